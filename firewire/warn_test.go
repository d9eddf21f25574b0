package firewire

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// TestHopWarning: at the DCF medium's hop time (1.95 ms at 1 Mbps) the
// defaults build without a warning; contention waits that differ by less
// than four hop times (7.8ms) warn with the figures.
func TestHopWarning(t *testing.T) {
	hop := 1950 * time.Microsecond
	build := func(p protocol.Params) error {
		_, err := New(protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2, 3}, Params: p, Env: protonet.NewEnv(t, 1), HopDelay: hop})
		return err
	}
	if err := build(nil); err != nil {
		t.Fatalf("defaults at hop %v: %v", hop, err)
	}
	w, ok := protocol.Warned(build(protocol.Params{"short": "10ms", "long": "15ms"}))
	if !ok || w == nil || !strings.Contains(w.Text, "firewire/tree-identify: protocol.params.long - short 5ms") || !strings.Contains(w.Text, "(7.8ms)") {
		t.Fatalf("long - short 5ms: %v; want a warning with the figures", w)
	}
}
