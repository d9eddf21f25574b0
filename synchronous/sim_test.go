package synchronous

import (
	"fmt"
	"slices"
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/scenario"
	"manetlab/sim/simtest"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// syncs are the synchronizers the algorithms must run over unchanged
// (abd with d = 20 ms, ten times a hop's delay: safe).
var syncs = []string{rounds.Simple, rounds.Alpha, rounds.Beta, rounds.ABD}

// simRun is one simulated run of a synchronous algorithm.
type simRun struct {
	what   string
	dir    string
	sum    *report.Summary
	c      *analysis.Complexity
	sc     *scenario.Scenario
	ring   []protocol.NodeID                     // the logical ring's order (ring algorithms)
	nbrs   map[protocol.NodeID][]protocol.NodeID // the graph the nodes ran on, from their sync notes
	params protocol.Params                       // the algorithm's own parameters
}

// simulate runs fam on n nodes placed by placement ("ring" or "grid":
// cells 200 m wide, range 250 m) over sync; params are extra protocol
// params (YAML, each ", key: value"), algParams those the algorithm reads
// itself (handed to the lockstep); extra goes into the radio section.
func simulate(t *testing.T, fam rounds.Family[Msg], sync string, n int, placement, params string, algParams protocol.Params, extra string) simRun {
	t.Helper()
	cols := 1
	for cols*cols < n {
		cols++
	}
	rows := (n + cols - 1) / cols
	for k, v := range algParams {
		params += fmt.Sprintf(", %s: %v", k, v)
	}
	// ideal: the lockstep comparison (T_S, M_S equal to the lockstep's,
	// the rounds bounds of d: 20ms) is defined on the ideal medium; on the
	// DCF medium every node's pulse leaves at the same instant and collides,
	// and the reliable channel's retransmissions collide again in step.
	y := fmt.Sprintf("name: sync\nseed: 1\nduration: 60s\nnodes: {count: %d, values: id, placement: %s}\n"+
		"radio: {mac: ideal, range: 250%s}\nmobility: {model: static, area: [%d, %d]}\n"+
		"protocol: {name: %s, params: {synchronizer: %s, d: 20ms%s}}\n",
		n, placement, extra, 200*cols, 200*rows, fam.Name, sync, params)
	sc, err := scenario.Parse([]byte(y), "sync.yaml", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	dir, sum := simtest.Run(t, sc)
	r := simRun{what: fmt.Sprintf("%s over %s, n=%d, %s%s%s", fam.Name, sync, n, placement, params, extra), dir: dir, sum: sum, c: sum.Complexity,
		sc: sc, nbrs: map[protocol.NodeID][]protocol.NodeID{}, params: algParams}
	if r.c == nil || r.c.Sync == nil {
		t.Fatalf("%s: no rounds complexity: %+v", r.what, r.c)
	}
	members := span(1, protocol.NodeID(n))
	info, _ := rounds.Lookup(fam.Name)
	ps, err := info.Parse(members, sc.Protocol.Params, sc.Seed)
	if err != nil {
		t.Fatal(err)
	}
	r.ring = ps.Ring
	for _, id := range members {
		evs, _, err := trace.ReadFile(trace.NodeFile(dir, id))
		if err != nil {
			t.Fatal(err)
		}
		r.nbrs[id] = []protocol.NodeID{}
		for _, e := range evs {
			if name, nbrs, ok := rounds.ParseSyncNote(e.Text); ok && name == sync && e.Ev == string(protocol.NoteSync) {
				r.nbrs[id] = append(r.nbrs[id], nbrs...)
			}
		}
	}
	return r
}

// wakeOf is the run's wake rounds (every member at round 1 by default).
func (r simRun) wakeOf(t *testing.T, fam rounds.Family[Msg]) map[protocol.NodeID]int {
	t.Helper()
	info, _ := rounds.Lookup(fam.Name)
	members := make([]protocol.NodeID, 0, len(r.nbrs))
	for id := range r.nbrs {
		members = append(members, id)
	}
	slices.Sort(members)
	ps, err := info.Parse(members, r.sc.Protocol.Params, r.sc.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return ps.Wake
}

// lockstep runs fam in perfect rounds on the graph the simulated nodes
// ran on (the ring for a ring algorithm).
func (r simRun) lockstep(t *testing.T, fam rounds.Family[Msg]) *result {
	t.Helper()
	wake := r.wakeOf(t, fam)
	if fam.Graph == rounds.GraphRing {
		return runRing(t, fam, r.ring, wake, r.params, 1<<16)
	}
	return run(t, fam, r.nbrs, nil, nil, wake, r.params, 1<<16)
}

// checkSim requires a valid run whose rounds (T_S) and algorithm
// messages (M_S) are the lockstep's and the theory's, whose synchronizer
// messages match the counting rule (the complexity block's "matches"),
// and whose measured M_A stays under the seed's formula.
func checkSim(t *testing.T, fam rounds.Family[Msg], r simRun) *result {
	t.Helper()
	c := r.c
	if r.sum.Verdict != "valid" {
		t.Fatalf("%s: verdict %s: %s", r.what, r.sum.Verdict, r.sum.Reason)
	}
	ref := r.lockstep(t, fam)
	if c.Rounds != ref.Rounds || c.Messages != uint64(ref.Messages) {
		t.Fatalf("%s: T_S = %d rounds, M_S = %d messages; lockstep %d rounds, %d messages", r.what, c.Rounds, c.Messages, ref.Rounds, ref.Messages)
	}
	if b := c.RoundsBound; b == nil || b.Exact == nil || *b.Exact != c.Rounds || float64(c.Messages) > c.Bound.Value {
		t.Fatalf("%s: theory rounds %+v, messages %+v; measured %d rounds, %d messages", r.what, c.RoundsBound, c.Bound, c.Rounds, c.Messages)
	}
	if fam.Name != SlowFastName && (c.Bound.Exact == nil || *c.Bound.Exact != int(c.Messages)) {
		t.Fatalf("%s: theory messages %+v, measured %d", r.what, c.Bound, c.Messages)
	}
	if s := c.Sync; s.ExactSync == nil || *s.ExactSync != int(c.SyncMessages) || float64(s.Measured) > s.MAValue {
		t.Fatalf("%s: %d synchronizer messages, counting rule %v; measured M_A %d, seed's %s = %g", r.what, c.SyncMessages, s.ExactSync, s.Measured, s.MA, s.MAValue)
	}
	if r.c.Sync.Synchronizer == rounds.Beta && (c.Sync.ExactTree == nil || *c.Sync.ExactTree != int(c.TreeMessages)) {
		t.Fatalf("%s: %d tree messages, counting rule %v", r.what, c.TreeMessages, c.Sync.ExactTree)
	}
	return ref
}

// prop returns the named property of the run in dir.
func prop(t *testing.T, dir, name string) analysis.Property {
	t.Helper()
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Properties {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no %s property in %+v", name, rep.Properties)
	return analysis.Property{}
}

// TestTimeSliceOverSynchronizers: on physical rings of 3, 5 and 8 nodes
// and a ring of 6 laid on a grid (ring neighbours several hops apart),
// ascending or shuffled, every synchronizer gives the lockstep's rounds
// and messages: exactly n tokens in exactly n·(m+1) rounds for the
// smallest ID m that wakes in time (m = 3 when only 3 and 6 wake).
func TestTimeSliceOverSynchronizers(t *testing.T) {
	for _, sync := range syncs {
		for _, c := range []struct {
			n                 int
			placement, params string
			m                 int
		}{
			{3, "ring", ", ring: ascending", 1},
			{5, "ring", ", ring: random", 1},
			{8, "ring", ", ring: ascending, wake: {3: 1, 6: 1}", 3},
			{6, "grid", ", ring: random", 1},
		} {
			r := simulate(t, TimeSlice, sync, c.n, c.placement, c.params, nil, "")
			checkSim(t, TimeSlice, r)
			if r.c.Messages != uint64(c.n) || r.c.Rounds != c.n*(c.m+1) {
				t.Fatalf("%s: %d messages, %d rounds; want n = %d, n·(m+1) = %d", r.what, r.c.Messages, r.c.Rounds, c.n, c.n*(c.m+1))
			}
		}
	}
}

// TestSlowFastOverSynchronizers: seed 001's homework (configs/
// sync-slow-fast-homework.yaml) gives its 22 messages in 22 rounds over
// every synchronizer, and a shuffled ring of 5 with three nodes waking
// the lockstep's counts.
func TestSlowFastOverSynchronizers(t *testing.T) {
	for _, sync := range syncs {
		r := simulate(t, SlowFast, sync, 8, "ring", ", ring: [1, 2, 3, 4, 5, 6, 7, 8], wake: {1: 1, 5: 1, 8: 1, 3: 2}", nil, "")
		ref := checkSim(t, SlowFast, r)
		if r.c.Messages != 22 || r.c.Rounds != 22 || r.sum.Messages.ByKind[KindElected] != 8 {
			t.Fatalf("%s: %d messages, %d rounds (%v); want 22 and 22", r.what, r.c.Messages, r.c.Rounds, r.sum.Messages.ByKind)
		}
		if ref.kinds[KindFast] != 8 || ref.kinds[KindSlow] != 6 {
			t.Fatalf("%s: lockstep %v", r.what, ref.kinds)
		}
		r = simulate(t, SlowFast, sync, 5, "ring", ", ring: random, wake: {2: 1, 4: 1, 5: 3}", nil, "")
		checkSim(t, SlowFast, r)
	}
}

// TestBFSOverSynchronizers: on grids of 4, 9 and 16 nodes and a physical
// ring of 7, from the default root and another, every synchronizer
// builds a BFS tree (bfs-depth valid: each depth is the hop distance)
// with the lockstep's counts, which are BFSTheory's exact 2|E|-(n-1)
// invitations (the complexity block reports them: Family.TheoryGraph).
func TestBFSOverSynchronizers(t *testing.T) {
	for _, sync := range syncs {
		for _, c := range []struct {
			n         int
			placement string
			root      protocol.NodeID
		}{{4, "grid", 1}, {9, "grid", 5}, {16, "grid", 1}, {7, "ring", 4}} {
			r := simulate(t, BFS, sync, c.n, c.placement, "", protocol.Params{"root": int(c.root)}, "")
			checkSim(t, BFS, r)
			E := 0
			for _, ns := range r.nbrs {
				E += len(ns)
			}
			E /= 2
			if int(r.c.Messages) != 2*E-(c.n-1) || r.c.Bound.Formula != "2|E|-(n-1)" {
				t.Fatalf("%s: %d invitations, want 2|E|-(n-1) = %d; theory %+v", r.what, r.c.Messages, 2*E-(c.n-1), r.c.Bound)
			}
			if p := prop(t, r.dir, analysis.PropBFSDepth); p.Verdict != analysis.Valid || p.Checked != c.n {
				t.Fatalf("%s: %+v", r.what, p)
			}
		}
	}
}

// TestLossAbsorbedBySynchronizers: with 15 % of frames lost, each
// algorithm over simple, alpha and beta gives the same rounds, algorithm
// messages and synchronizer messages as without loss, only more time
// (abd is left out:
// its rounds are 2d of time, and the channel's repairs take longer).
func TestLossAbsorbedBySynchronizers(t *testing.T) {
	const loss = ", loss: {model: bernoulli, p: 0.15}"
	for _, sync := range syncs[:3] {
		for _, c := range []struct {
			fam       rounds.Family[Msg]
			n         int
			placement string
			params    string
		}{
			{TimeSlice, 6, "ring", ", ring: ascending"},
			{SlowFast, 8, "ring", ", ring: [1, 2, 3, 4, 5, 6, 7, 8], wake: {1: 1, 5: 1, 8: 1, 3: 2}"},
			{BFS, 9, "grid", ""},
		} {
			clean := simulate(t, c.fam, sync, c.n, c.placement, c.params, nil, "")
			lossy := simulate(t, c.fam, sync, c.n, c.placement, c.params, nil, loss)
			checkSim(t, c.fam, lossy)
			if lossy.c.Rounds != clean.c.Rounds || lossy.c.Messages != clean.c.Messages || lossy.c.SyncMessages != clean.c.SyncMessages ||
				lossy.c.TreeMessages != clean.c.TreeMessages {
				t.Fatalf("%s: T_S %d, M_S %d, sync %d, tree %d; without loss %d, %d, %d, %d", lossy.what, lossy.c.Rounds, lossy.c.Messages, lossy.c.SyncMessages,
					lossy.c.TreeMessages, clean.c.Rounds, clean.c.Messages, clean.c.SyncMessages, clean.c.TreeMessages)
			}
			// the repairs (link-layer retries, the channel's
			// retransmissions) slow the rounds down
			if lossy.c.Time <= clean.c.Time {
				t.Fatalf("%s: %.4fs from round 1 to the last, %.4fs without loss", lossy.what, lossy.c.Time, clean.c.Time)
			}
		}
	}
}
