package synchronous_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/synchronous"
)

type warnEnv struct{}

func (warnEnv) Now() time.Duration                                     { return 0 }
func (warnEnv) Send(protocol.NodeID, protocol.Message)                 {}
func (warnEnv) Broadcast(protocol.Message)                             {}
func (warnEnv) Deliver(protocol.NodeID, protocol.Message)              {}
func (warnEnv) Flood(protocol.Message)                                 {}
func (warnEnv) SetTimer(time.Duration, string, int64) protocol.TimerID { return 1 }
func (warnEnv) CancelTimer(protocol.TimerID)                           {}
func (warnEnv) Rand() *rand.Rand                                       { return rand.New(rand.NewPCG(1, 2)) }
func (warnEnv) Note(protocol.Note)                                     {}
func (warnEnv) Logf(string, ...any)                                    {}

// TestHopWarning: the synchronous algorithms run over the round
// framework's channel, whose rto below four hop times of the DCF medium
// (1.95 ms at 1 Mbps: 7.8ms) warns with the figures; the defaults do not.
func TestHopWarning(t *testing.T) {
	hop := 1950 * time.Microsecond
	spec, err := protocol.Lookup(synchronous.BFSName)
	if err != nil {
		t.Fatal(err)
	}
	build := func(p protocol.Params) error {
		_, err := spec.New(protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2, 3}, Params: p, Env: warnEnv{}, Seed: 1, HopDelay: hop})
		return err
	}
	if err := build(nil); err != nil {
		t.Fatalf("defaults at hop %v: %v", hop, err)
	}
	w, ok := protocol.Warned(build(protocol.Params{"rto": "5ms"}))
	if !ok || w == nil || !strings.Contains(w.Text, "sync/bfs: protocol.params.rto 5ms") || !strings.Contains(w.Text, "(7.8ms)") {
		t.Fatalf("rto 5ms: %v; want a warning with the figures", w)
	}
}
