package analysis

import (
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// TestTruthCutByHand: two nodes 50 m apart, well in range, whose link
// is cut by hand at 1 s (the run file's cut events, one per half, as a
// launcher records them). Cut both ways the link is down whatever the
// radio model says: two components, each leading itself, is valid and
// one leader across the cut is invalid. Cut one way only (node 1 no
// longer hears 2, 2 still hears 1) the link is uncertain: both are
// valid. Healed at 20 s, the two must merge again.
func TestTruthCutByHand(t *testing.T) {
	half := func(s float64, ev string, a, b protocol.NodeID) trace.Event {
		return trace.Event{T: sec(s), Node: a, Peer: b, Ev: ev}
	}
	both := []trace.Event{half(1, trace.EvCut, 1, 2), half(1.001, trace.EvCut, 2, 1)}
	one := []trace.Event{half(1, trace.EvCut, 1, 2)}
	leaders := func(l1, l2 protocol.NodeID, healed bool) map[protocol.NodeID][]trace.Event {
		n := map[protocol.NodeID][]trace.Event{
			1: {ev(0, trace.EvStart), leaderAt(2, l1, "")},
			2: {ev(0, trace.EvStart), leaderAt(2, l2, "")},
		}
		if healed {
			n[1] = append(n[1], leaderAt(25, 2, ""))
		}
		return n
	}
	healBoth := append(both[:2:2], half(20, trace.EvHeal, 1, 2), half(20.001, trace.EvHeal, 2, 1))
	cases := []struct {
		name  string
		cuts  []trace.Event
		nodes map[protocol.NodeID][]trace.Event
		want  string
	}{
		{"cut, apart", both, leaders(1, 2, false), Valid},
		{"cut, one leader", both, leaders(2, 2, false), Invalid},
		{"half cut, apart", one, leaders(1, 2, false), Valid},
		{"half cut, one leader", one, leaders(2, 2, false), Valid},
		{"healed, merged after", healBoth, leaders(1, 2, true), Valid},
		{"healed, still apart", healBoth, leaders(1, 2, false), Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			synthRun(t, dir, pairScenario(t, 50, 0, 3), 60*time.Second, c.cuts, c.nodes)
			rep, err := Check(dir, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if st := property(t, rep, PropStableLeader); st.Verdict != c.want {
				t.Fatalf("stable-leader %s (%s), want %s; %+v", st.Verdict, st.Reason, c.want, st.Witnesses)
			}
		})
	}
}
