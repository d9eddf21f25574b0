package analysis

import (
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// TestCheckMutexAcrossRelays: node 1 leaves and sends a message that
// node 3 relays to node 2 (multi-hop delivery: relaying nodes log a relay,
// not a receive), and node 2 enters after receiving it. The receive is
// matched with node 1's send, so the sections are ordered; a relay of an
// earlier message of node 1 (sent before it left) does not order them.
func TestCheckMutexAcrossRelays(t *testing.T) {
	scen := lineScenario(t, 3, 10*time.Second)
	send := trace.Event{T: sec(3), Ev: trace.EvSend, Kind: "release", Seq: 7, To: 2, Origin: 1, OSeq: 4, Hops: 1}
	relay := trace.Event{T: sec(3.1), Ev: trace.EvRelay, Kind: "release", Seq: 9, To: 2, Origin: 1, OSeq: 4, Hops: 2}
	recv := trace.Event{T: sec(3.2), Ev: trace.EvRecv, Kind: "release", From: 3, Seq: 9, Origin: 1, OSeq: 4, Hops: 2}
	early := send
	early.T, early.Seq, early.OSeq = sec(1.5), 6, 3
	earlyRelay := relay
	earlyRelay.T, earlyRelay.Seq, earlyRelay.OSeq = sec(1.6), 8, 3
	earlyRecv := recv
	earlyRecv.T, earlyRecv.Seq, earlyRecv.OSeq = sec(1.7), 8, 3
	cases := []struct {
		name  string
		nodes map[protocol.NodeID][]trace.Event
		want  string
	}{
		{"relayed after leaving", map[protocol.NodeID][]trace.Event{
			1: {ev(1, "cs-enter"), ev(2, "cs-exit"), send},
			3: {relay},
			2: {recv, ev(4, "cs-enter"), ev(5, "cs-exit")},
		}, Valid},
		{"relayed before leaving", map[protocol.NodeID][]trace.Event{
			1: {ev(1, "cs-enter"), early, ev(2, "cs-exit")},
			3: {earlyRelay},
			2: {earlyRecv, ev(4, "cs-enter"), ev(5, "cs-exit")},
		}, Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			synthRun(t, dir, scen, 10*time.Second, nil, c.nodes)
			rep, err := Check(dir, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if p := property(t, rep, PropMutex); p.Verdict != c.want {
				t.Fatalf("verdict %s, want %s: %+v", p.Verdict, c.want, p)
			}
		})
	}
}
