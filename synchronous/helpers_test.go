package synchronous

import (
	"slices"
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// counting wraps an Algorithm and counts the messages it sends by kind.
type counting struct {
	rounds.Algorithm[Msg]
	kinds map[string]int
}

func (c *counting) Round(r int, in []rounds.In[Msg]) []rounds.Out[Msg] {
	out := c.Algorithm.Round(r, in)
	for _, o := range out {
		c.kinds[o.Msg.Kind()]++
	}
	return out
}

// result is one lockstep run: the executor's counts, messages by kind, the
// notes of every node and the algorithms at the end.
type result struct {
	rounds.Lockstep
	kinds map[string]int
	notes map[protocol.NodeID][]protocol.Note
	algs  map[protocol.NodeID]rounds.Algorithm[Msg]
}

// leaderOf is the Leader of id's latest note of kind k, None without one.
func (r *result) latest(id protocol.NodeID, k protocol.NoteKind) (protocol.Note, bool) {
	ns := r.notes[id]
	for i := len(ns) - 1; i >= 0; i-- {
		if ns[i].Kind == k {
			return ns[i], true
		}
	}
	return protocol.Note{}, false
}

// allHalted fails the test unless every node that took part has halted.
func (r *result) allHalted(t *testing.T) {
	t.Helper()
	for id, a := range r.algs {
		if !a.Halted() {
			t.Errorf("node %d has not halted", id)
		}
	}
}

// ringGraph gives each node of order (successor order) its Left and Right
// and its neighbours.
func ringGraph(order []protocol.NodeID) (left, right map[protocol.NodeID]protocol.NodeID, nb map[protocol.NodeID][]protocol.NodeID) {
	n := len(order)
	left, right, nb = map[protocol.NodeID]protocol.NodeID{}, map[protocol.NodeID]protocol.NodeID{}, map[protocol.NodeID][]protocol.NodeID{}
	for i, id := range order {
		if n == 1 {
			nb[id] = nil
			continue
		}
		l, r := order[(i-1+n)%n], order[(i+1)%n]
		left[id], right[id] = l, r
		s := []protocol.NodeID{l}
		if r != l {
			s = append(s, r)
		}
		slices.Sort(s)
		nb[id] = s
	}
	return left, right, nb
}

// run builds one algorithm per member of fam with params and runs them in
// lockstep over the graph nb (left and right for a ring algorithm).
func run(t *testing.T, fam rounds.Family[Msg], nb map[protocol.NodeID][]protocol.NodeID, left, right map[protocol.NodeID]protocol.NodeID,
	wake map[protocol.NodeID]int, params protocol.Params, maxRounds int) *result {
	t.Helper()
	var members []protocol.NodeID
	for id := range nb {
		members = append(members, id)
	}
	slices.Sort(members)
	res := &result{kinds: map[string]int{}, notes: map[protocol.NodeID][]protocol.Note{}, algs: map[protocol.NodeID]rounds.Algorithm[Msg]{}}
	algs := map[protocol.NodeID]rounds.Algorithm[Msg]{}
	for _, id := range members {
		ctx := rounds.Context{ID: id, Members: members, Neighbors: nb[id], Left: left[id], Right: right[id],
			Note: func(n protocol.Note) { res.notes[id] = append(res.notes[id], n) }}
		p := params.Reader()
		a, err := fam.New(ctx, p)
		if err != nil {
			t.Fatalf("%s: New for node %d: %v", fam.Name, id, err)
		}
		if err := p.Err(); err != nil {
			t.Fatalf("%s: params: %v", fam.Name, err)
		}
		res.algs[id] = a
		algs[id] = &counting{Algorithm: a, kinds: res.kinds}
	}
	ls, err := rounds.RunLockstep(algs, nb, wake, maxRounds)
	if err != nil {
		t.Fatalf("%s: %v", fam.Name, err)
	}
	res.Lockstep = ls
	// Only the nodes that woke take part.
	for id := range res.algs {
		if len(res.notes[id]) == 0 && !res.algs[id].Halted() {
			delete(res.algs, id)
		}
	}
	return res
}

// runRing runs a ring algorithm on order (successor order).
func runRing(t *testing.T, fam rounds.Family[Msg], order []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params, maxRounds int) *result {
	t.Helper()
	l, r, nb := ringGraph(order)
	return run(t, fam, nb, l, r, wake, params, maxRounds)
}

// allAt wakes every member of ids at round r.
func allAt(ids []protocol.NodeID, r int) map[protocol.NodeID]int {
	w := map[protocol.NodeID]int{}
	for _, id := range ids {
		w[id] = r
	}
	return w
}

func ids(v ...protocol.NodeID) []protocol.NodeID { return v }

func span(lo, hi protocol.NodeID) []protocol.NodeID {
	var s []protocol.NodeID
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}
