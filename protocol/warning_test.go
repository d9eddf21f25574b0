package protocol

import (
	"strings"
	"testing"
	"time"
)

// TestJoinWarnings: nils are skipped, none gives nil, several join in
// order.
func TestJoinWarnings(t *testing.T) {
	if w := JoinWarnings(nil, nil); w != nil {
		t.Fatalf("no warnings joined to %q", w.Text)
	}
	if w := JoinWarnings(nil, &Warning{Text: "a"}, nil, &Warning{Text: "b"}); w == nil || w.Text != "a; b" {
		t.Fatalf("joined %v; want \"a; b\"", w)
	}
}

// TestHopWaitsWarning: only the waits below hops hop times are named,
// with the figures; none below, or an unknown hop time, gives nil.
func TestHopWaitsWarning(t *testing.T) {
	hop := 1950 * time.Microsecond
	w := HopWaitsWarning("x/y", hop, 4, "it breaks", HopWait{"a", 5 * time.Millisecond}, HopWait{"b", time.Second}, HopWait{"c", 7 * time.Millisecond})
	if w == nil {
		t.Fatal("no warning")
	}
	for _, want := range []string{"x/y: protocol.params.a 5ms and protocol.params.c 7ms,", "round trip over one hop takes 3.9ms", "at least 4 hop times (7.8ms): it breaks"} {
		if !strings.Contains(w.Text, want) {
			t.Errorf("%q does not say %q", w.Text, want)
		}
	}
	if strings.Contains(w.Text, "protocol.params.b") {
		t.Errorf("%q names b, which is long enough", w.Text)
	}
	if w := HopWaitsWarning("x", hop, 4, "", HopWait{"b", time.Second}); w != nil {
		t.Errorf("long enough: %q", w.Text)
	}
	if w := HopWaitsWarning("x", 0, 4, "", HopWait{"a", time.Nanosecond}); w != nil {
		t.Errorf("unknown hop time: %q", w.Text)
	}
}
