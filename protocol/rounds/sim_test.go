package rounds_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/sim/simtest"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// run is one simulated run of the test algorithm.
type run struct {
	what string
	dir  string
	sum  *report.Summary
	c    *analysis.Complexity
	nbrs map[protocol.NodeID][]protocol.NodeID // from the sync notes
}

// simulate runs test/flood-<graph> over sync on n nodes. placement is
// "ring" (a physical ring: one hop between ring neighbours) or "grid"
// (cells 200 m wide, range 250 m); params are extra protocol params.
func simulate(t *testing.T, graph, sync string, n int, placement, params, extra string) run {
	t.Helper()
	cols := 1
	for cols*cols < n {
		cols++
	}
	rows := (n + cols - 1) / cols
	// ideal: the synchronizers must reproduce the lockstep's rounds and
	// messages, and d: 20ms bounds a hop there; on the DCF medium every
	// node's pulse leaves at the same instant and collides.
	y := fmt.Sprintf("name: sync\nseed: 1\nduration: 60s\nnodes: {count: %d, values: id, placement: %s}\n"+
		"radio: {mac: ideal, range: 250%s}\nmobility: {model: static, area: [%d, %d]}\n"+
		"protocol: {name: test/flood-%s, params: {synchronizer: %s, rounds: %d, d: 20ms%s}}\n",
		n, placement, extra, 200*cols, 200*rows, graph, sync, n+2, params)
	if graph == "ring" && sync == rounds.ABD {
		// flood, not the default aodv: d = 20 ms bounds a flood's delay
		// between ring neighbours several hops apart, not AODV's first
		// message, which waits up to 1.92 s for its route (the run warns;
		// TestABDWarnsOfRouteDiscovery).
		y += "routing: {protocol: flood}\n"
	}
	dir, sum := simtest.RunYAML(t, "sync.yaml", y)
	r := run{what: fmt.Sprintf("%s over %s, n=%d, %s%s%s", graph, sync, n, placement, params, extra), dir: dir, sum: sum, c: sum.Complexity,
		nbrs: map[protocol.NodeID][]protocol.NodeID{}}
	if r.c == nil || r.c.Sync == nil {
		t.Fatalf("%s: no rounds complexity: %+v", r.what, r.c)
	}
	for id := protocol.NodeID(1); id <= protocol.NodeID(n); id++ {
		evs, _, err := trace.ReadFile(trace.NodeFile(dir, id))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if name, nbrs, ok := rounds.ParseSyncNote(e.Text); ok && name == sync && e.Ev == string(protocol.NoteSync) {
				r.nbrs[id] = append(r.nbrs[id], nbrs...)
			}
		}
	}
	return r
}

// edges counts the undirected edges of nbrs and checks it is symmetric.
func edges(t *testing.T, what string, nbrs map[protocol.NodeID][]protocol.NodeID) int {
	t.Helper()
	e := 0
	for a, ns := range nbrs {
		for _, b := range ns {
			if !slices.Contains(nbrs[b], a) {
				t.Fatalf("%s: %d hears %d but not the other way: %v", what, a, b, nbrs)
			}
			e++
		}
	}
	return e / 2
}

// lockstep runs the test algorithm in perfect rounds on nbrs.
func lockstep(t *testing.T, graph string, nbrs map[protocol.NodeID][]protocol.NodeID, n int, wake map[protocol.NodeID]int) rounds.Lockstep {
	t.Helper()
	algs := map[protocol.NodeID]rounds.Algorithm[maxMsg]{}
	var members []protocol.NodeID
	for id := protocol.NodeID(1); id <= protocol.NodeID(n); id++ {
		members = append(members, id)
	}
	for _, id := range members {
		a, err := newFloodMax(rounds.Context{ID: id, Members: members, Neighbors: nbrs[id]}, protocol.Params{"rounds": n + 2}.Reader())
		if err != nil {
			t.Fatal(err)
		}
		algs[id] = a
	}
	res, err := rounds.RunLockstep(algs, nbrs, wake, 10*n)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func allWake(n int) map[protocol.NodeID]int {
	w := map[protocol.NodeID]int{}
	for id := 1; id <= n; id++ {
		w[protocol.NodeID(id)] = 1
	}
	return w
}

// checkRun requires a valid run with the lockstep's rounds and messages
// and the synchronizer's own messages exactly as the counting rule of
// docs/protocols/synchronizers.md gives them for an algorithm whose nodes
// all halt in round D (flood-max with D = n+2).
func checkRun(t *testing.T, r run, graph, sync string, n int, wake map[protocol.NodeID]int) {
	t.Helper()
	c, by := r.c, r.sum.Messages.ByKind
	if r.sum.Verdict != "valid" {
		t.Fatalf("%s: verdict %s %s %+v", r.what, r.sum.Verdict, r.sum.Reason, r.sum.Components)
	}
	if len(r.nbrs) != n {
		t.Fatalf("%s: %d nodes noted neighbours: %v", r.what, len(r.nbrs), r.nbrs)
	}
	E := edges(t, r.what, r.nbrs)
	ref := lockstep(t, graph, r.nbrs, n, wake)
	D := n + 2 // flood-max runs n+2 rounds: the diameter and two of wake-up
	if c.Rounds != ref.Rounds || c.Messages != uint64(ref.Messages) || c.Pulses != D {
		t.Fatalf("%s: %d rounds (%d pulses), %d messages; lockstep %d rounds, %d messages, D = %d", r.what, c.Rounds, c.Pulses, c.Messages, ref.Rounds, ref.Messages, D)
	}
	if b := c.RoundsBound; b == nil || b.Exact == nil || *b.Exact != c.Rounds || c.Bound.Formula != "n(n-1)(D-1)" || float64(c.Messages) > c.Bound.Value {
		t.Fatalf("%s: theory %+v %+v against %d rounds, %d messages", r.what, c.RoundsBound, c.Bound, c.Rounds, c.Messages)
	}
	// flood-max sends at most one message per neighbour per round and
	// nothing in its last round: every envelope carries one message.
	if c.Carriers != c.Messages || by["max"] != c.Messages {
		t.Fatalf("%s: %d envelopes carry %d messages (%v)", r.what, c.Carriers, c.Messages, by)
	}
	want := map[string]uint64{}
	switch sync {
	case rounds.Simple:
		want[rounds.KindNull] = uint64(2*E*D) - c.Messages
	case rounds.Alpha:
		want[rounds.KindSafe] = uint64(2 * E * D)
		want[rounds.KindAck] = c.Messages
	case rounds.Beta:
		want[rounds.KindPulse] = uint64((n - 1) * D)
		want[rounds.KindSafe] = uint64((n - 1) * D)
		want[rounds.KindAck] = c.Messages
		if tree := by[rounds.KindTreeJoin] + by[rounds.KindTreeAck] + by[rounds.KindTreeDone]; tree != uint64(4*E-n+1) || c.TreeMessages != tree {
			t.Fatalf("%s: tree %d messages (%d), want 4E-n+1 = %d", r.what, tree, c.TreeMessages, 4*E-n+1)
		}
	case rounds.ABD:
		want[rounds.KindStart] = uint64(2 * E)
	}
	var total uint64
	for k, v := range by {
		if rounds.IsSync(k) && !rounds.IsTree(k) && k != rounds.KindHello {
			total += v
			if want[k] != v {
				t.Fatalf("%s: %d %s, want %d (all: %v)", r.what, v, k, want[k], by)
			}
		}
	}
	for k, v := range want {
		if by[k] != v {
			t.Fatalf("%s: %d %s, want %d (all: %v)", r.what, by[k], k, v, by)
		}
	}
	hello := by[rounds.KindHello]
	switch {
	case graph == "ring" && hello != 0,
		graph == "radio" && r.sum.Messages.ByKind["transport-retx"] == 0 && !strings.Contains(r.what, "loss") && hello != uint64(2*E),
		hello > uint64(2*E) || c.HelloMessages != hello:
		t.Fatalf("%s: %d hellos (%d), 2E = %d", r.what, hello, c.HelloMessages, 2*E)
	}
	if c.SyncMessages != total || c.Sync.ExactSync == nil || *c.Sync.ExactSync != int(total) {
		t.Fatalf("%s: complexity says %d synchronizer messages, counting rule %v; trace %d", r.what, c.SyncMessages, c.Sync.ExactSync, total)
	}
	if float64(c.Sync.Measured) > c.Sync.MAValue {
		t.Fatalf("%s: measured M_A %d above the seed's %s = %g", r.what, c.Sync.Measured, c.Sync.MA, c.Sync.MAValue)
	}
}

// TestSynchronizersReproduceLockstep: on static lossless rings and grids
// of several sizes, with every node waking at round 1 or only two of them
// (one at round 2), each synchronizer gives the lockstep's rounds and
// messages and exactly the synchronizer messages of its counting rule.
func TestSynchronizersReproduceLockstep(t *testing.T) {
	for _, sync := range []string{rounds.Simple, rounds.Alpha, rounds.Beta, rounds.ABD} {
		for _, n := range []int{3, 5, 8, 13} {
			for _, c := range []struct{ graph, placement, params string }{
				{"ring", "ring", ", ring: ascending"},
				{"ring", "grid", ", ring: random"}, // ring neighbours several hops apart
				{"radio", "grid", ""},
				{"radio", "ring", ""},
			} {
				wake := allWake(n)
				params := c.params
				if n%2 == 1 { // two nodes wake spontaneously, the rest by message
					wake = map[protocol.NodeID]int{2: 1, protocol.NodeID(n): 2}
					params += fmt.Sprintf(", wake: {2: 1, %d: 2}", n)
				}
				r := simulate(t, c.graph, sync, n, c.placement, params, "")
				checkRun(t, r, c.graph, sync, n, wake)
			}
		}
	}
}

// TestABDWarnsOfRouteDiscovery: on the ring graph (neighbours reached
// with Deliver) under AODV, an abd d below the route delay (1.92 s) draws
// a warning with the figures; under flooding, or on the radio graph (one
// hop, no route), none.
func TestABDWarnsOfRouteDiscovery(t *testing.T) {
	for _, c := range []struct {
		graph, routing string
		warned         bool
	}{{"ring", "aodv", true}, {"ring", "flood", false}, {"radio", "aodv", false}} {
		y := fmt.Sprintf("name: w\nduration: 2s\nnodes: {count: 3, values: id}\nrouting: {protocol: %s}\nmobility: {model: static, area: [100, 100]}\n"+
			"protocol: {name: test/flood-%s, params: {synchronizer: abd, rounds: 3, d: 20ms}}\n", c.routing, c.graph)
		s, err := scenario.Parse([]byte(y), "w.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(s, sim.Options{Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		got := len(res.Warnings) == 1 && strings.Contains(res.Warnings[0], "d 20ms") && strings.Contains(res.Warnings[0], "waits 1.92s for its route")
		if got != c.warned || !c.warned && len(res.Warnings) != 0 {
			t.Errorf("%s graph under %s: warnings %q", c.graph, c.routing, res.Warnings)
		}
	}
}
