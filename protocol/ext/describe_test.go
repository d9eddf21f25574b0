package ext

import (
	"strings"
	"testing"
	"unicode/utf8"

	"manetlab/protocol"
)

// TestMessagesSayWhatTheyCarry: a program's message is described by its
// "says", else by its kind and body (a long body cut), so the studio and
// the traces show what it carries (issue 35).
func TestMessagesSayWhatTheyCarry(t *testing.T) {
	p := &proc{}
	for _, c := range []struct {
		a    action
		want string
	}{
		{action{Do: "send", Kind: "token", Body: []byte(`{"epoch": 1, "id": 8}`)}, `token {"epoch":1,"id":8}`},
		{action{Do: "send", Kind: "token", Body: []byte(`{"id":8}`), Says: "token from 8"}, "token from 8"},
		{action{Do: "broadcast", Kind: "hello"}, "hello"},
	} {
		m, err := p.message(c.a)
		if err != nil {
			t.Fatal(err)
		}
		if got := protocol.DescribeMessage(m); got != c.want {
			t.Errorf("%+v: %q, want %q", c.a, got, c.want)
		}
	}
	m, _ := p.message(action{Do: "send", Kind: "big", Body: []byte(`"` + strings.Repeat("x", 500) + `"`)})
	if d := m.Describe(); len(d) > maxDescribedBody+10 || !strings.HasSuffix(d, "…") {
		t.Errorf("a long body's line: %d bytes %q", len(d), d)
	}
	m, _ = p.message(action{Do: "send", Kind: "big", Body: []byte(`"` + strings.Repeat("é", 200) + `"`)})
	if d := m.Describe(); !utf8.ValidString(d) {
		t.Errorf("a long body of two-byte characters cut inside one: %q", d)
	}
	if _, err := p.message(action{Do: "send", Kind: "a", Says: strings.Repeat("y", maxSays+1)}); err == nil {
		t.Errorf("a says longer than %d bytes was taken", maxSays)
	}
}
