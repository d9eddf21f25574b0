package rounds_test

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

// TestHopWarning: a round protocol's channel (on either graph) builds
// without a warning at its defaults at the DCF medium's hop time
// (1.95 ms at 1 Mbps), and warns with the figures when rto is below four
// hop times (7.8ms).
func TestHopWarning(t *testing.T) {
	hop := 1950 * time.Microsecond
	for _, name := range []string{"test/flood-ring", "test/flood-radio"} {
		spec, err := protocol.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		build := func(p protocol.Params) error {
			_, err := spec.New(protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2, 3, 5, 8}, Params: p, Env: nopEnv{}, Seed: 1, HopDelay: hop})
			return err
		}
		if err := build(nil); err != nil {
			t.Errorf("%s: defaults at hop %v: %v", name, hop, err)
		}
		w, ok := protocol.Warned(build(protocol.Params{"rto": "5ms"}))
		if !ok || w == nil {
			t.Errorf("%s: rto 5ms: no warning", name)
			continue
		}
		for _, want := range []string{name + ": protocol.params.rto 5ms", "hop time of 1.95ms", "(7.8ms)"} {
			if !strings.Contains(w.Text, want) {
				t.Errorf("%s: warning %q does not say %q", name, w.Text, want)
			}
		}
	}
}
