package mutex_test

import (
	"strings"
	"testing"
	"time"

	"manetlab/mutex"
	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// TestHopWarning: every mutual exclusion algorithm builds without a
// warning at its defaults at the DCF medium's hop time (1.95 ms at
// 1 Mbps), and warns with the figures when its channel's rto is below
// four hop times (7.8ms); the centralized algorithm passes on its
// embedded election's warning beside its own.
func TestHopWarning(t *testing.T) {
	hop := 1950 * time.Microsecond
	build := func(name string, p protocol.Params) error {
		spec, err := protocol.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = spec.New(protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2, 3}, Params: p, Env: protonet.NewEnv(t, 1),
			Store: &protocol.MemStore{}, HopDelay: hop})
		return err
	}
	for _, name := range []string{mutex.RicartAgrawala, mutex.Lamport, mutex.SuzukiKasami, mutex.TokenRing, mutex.Centralized} {
		if err := build(name, nil); err != nil {
			t.Errorf("%s: defaults at hop %v: %v", name, hop, err)
		}
		w, ok := protocol.Warned(build(name, protocol.Params{"rto": "5ms"}))
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
	w, ok := protocol.Warned(build(mutex.Centralized, protocol.Params{"rto": "5ms", "election_params": map[string]any{"rto": "1ms", "timeout": "2ms"}}))
	if !ok || w == nil || !strings.Contains(w.Text, "mutex/centralized: protocol.params.rto 5ms") ||
		!strings.Contains(w.Text, "protocol.params.election_params (for bully/garcia-molina): bully/garcia-molina: protocol.params.rto 1ms") {
		t.Errorf("centralized with a short election: %v; want both warnings", w)
	}
}
