package ring

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// TestHopWarning: every ring election builds without a warning at its
// defaults at the DCF medium's hop time (1.95 ms at 1 Mbps), and warns
// with the figures when rto is below four hop times (7.8ms).
func TestHopWarning(t *testing.T) {
	hop := 1950 * time.Microsecond
	for _, alg := range []string{LeLann, ChangRoberts, HirschbergSinclair, Tanenbaum} {
		build := func(p protocol.Params) error {
			_, err := newNode(alg, protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2, 3}, Params: p, Env: protonet.NewEnv(t, 1), HopDelay: hop})
			return err
		}
		if err := build(nil); err != nil {
			t.Errorf("%s: defaults at hop %v: %v", alg, hop, err)
		}
		w, ok := protocol.Warned(build(protocol.Params{"rto": "5ms"}))
		if !ok || w == nil || !strings.Contains(w.Text, alg+": protocol.params.rto 5ms") || !strings.Contains(w.Text, "hop time of 1.95ms") || !strings.Contains(w.Text, "(7.8ms)") {
			t.Errorf("%s: rto 5ms: %v; want a warning with the figures", alg, w)
		}
	}
}
