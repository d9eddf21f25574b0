package invitation

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// TestHopWarning: at the DCF medium's hop time (1.95 ms at 1 Mbps) the
// defaults build without a warning; an rto, answer and window below four
// hop times (7.8ms) warn with the figures, naming each field.
func TestHopWarning(t *testing.T) {
	hop := 1950 * time.Microsecond
	build := func(p protocol.Params) error {
		_, err := New(protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2, 3}, Params: p, Env: protonet.NewEnv(t, 1), HopDelay: hop})
		return err
	}
	if err := build(nil); err != nil {
		t.Fatalf("defaults at hop %v: %v", hop, err)
	}
	err := build(protocol.Params{"rto": "5ms", "answer": "6ms", "window": "7ms"})
	w, ok := protocol.Warned(err)
	if !ok || w == nil {
		t.Fatalf("short waits: %v; want a warning", err)
	}
	for _, want := range []string{"protocol.params.rto 5ms", "hop time of 1.95ms", "(7.8ms)", "answer 6ms and window 7ms", "round trip over one hop takes 3.9ms"} {
		if !strings.Contains(w.Text, want) {
			t.Errorf("warning %q does not say %q", w.Text, want)
		}
	}
}
