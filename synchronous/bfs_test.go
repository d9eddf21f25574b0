package synchronous

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// graph builds an undirected graph over nodes 1..n from edges.
func graph(n int, edges [][2]protocol.NodeID) map[protocol.NodeID][]protocol.NodeID {
	nb := map[protocol.NodeID][]protocol.NodeID{}
	for i := 1; i <= n; i++ {
		nb[protocol.NodeID(i)] = nil
	}
	for _, e := range edges {
		if e[0] == e[1] || slices.Contains(nb[e[0]], e[1]) {
			continue
		}
		nb[e[0]] = append(nb[e[0]], e[1])
		nb[e[1]] = append(nb[e[1]], e[0])
	}
	for id := range nb {
		slices.Sort(nb[id])
	}
	return nb
}

// grid is a w×h grid, node (x, y) being y·w+x+1.
func grid(w, h int) map[protocol.NodeID][]protocol.NodeID {
	var e [][2]protocol.NodeID
	at := func(x, y int) protocol.NodeID { return protocol.NodeID(y*w + x + 1) }
	for y := range h {
		for x := range w {
			if x+1 < w {
				e = append(e, [2]protocol.NodeID{at(x, y), at(x+1, y)})
			}
			if y+1 < h {
				e = append(e, [2]protocol.NodeID{at(x, y), at(x, y+1)})
			}
		}
	}
	return graph(w*h, e)
}

// randomConnected is a random tree on n nodes plus extra random edges.
func randomConnected(rng *rand.Rand, n, extra int) map[protocol.NodeID][]protocol.NodeID {
	var e [][2]protocol.NodeID
	perm := rng.Perm(n)
	for i := 1; i < n; i++ {
		e = append(e, [2]protocol.NodeID{protocol.NodeID(perm[i] + 1), protocol.NodeID(perm[rng.IntN(i)] + 1)})
	}
	for range extra {
		e = append(e, [2]protocol.NodeID{protocol.NodeID(rng.IntN(n) + 1), protocol.NodeID(rng.IntN(n) + 1)})
	}
	return graph(n, e)
}

func line(n int) map[protocol.NodeID][]protocol.NodeID {
	var e [][2]protocol.NodeID
	for i := 1; i < n; i++ {
		e = append(e, [2]protocol.NodeID{protocol.NodeID(i), protocol.NodeID(i + 1)})
	}
	return graph(n, e)
}

func complete(n int) map[protocol.NodeID][]protocol.NodeID {
	var e [][2]protocol.NodeID
	for i := 1; i <= n; i++ {
		for j := i + 1; j <= n; j++ {
			e = append(e, [2]protocol.NodeID{protocol.NodeID(i), protocol.NodeID(j)})
		}
	}
	return graph(n, e)
}

// checkBFS runs the BFS tree on nb from root and checks it: every node of
// the root's component notes a parent that is a neighbour one hop closer
// to the root (None at the root), a depth equal to its hop distance and
// the root as leader; nodes outside note nothing; messages and rounds are
// BFSTheory's and within BFSBound; every node that woke has halted.
func checkBFS(t *testing.T, name string, nb map[protocol.NodeID][]protocol.NodeID, root protocol.NodeID, allAwake bool) {
	t.Helper()
	members := make([]protocol.NodeID, 0, len(nb))
	for id := range nb {
		members = append(members, id)
	}
	slices.Sort(members)
	wake := map[protocol.NodeID]int{root: 1}
	if allAwake {
		wake = allAt(members, 1)
	}
	params := protocol.Params{}
	if root != members[0] {
		params["root"] = int(root)
	}
	res := run(t, BFS, nb, nil, nil, wake, params, 10*len(nb)+10)
	th, dist := BFSTheory(nb, root, allAwake)
	for _, id := range members {
		p, hasP := res.latest(id, protocol.NoteParent)
		l, _ := res.latest(id, protocol.NoteLeader)
		d, reached := dist[id]
		switch {
		case !reached:
			if hasP {
				t.Errorf("%s: node %d outside the root's component noted %+v", name, id, p)
			}
			continue
		case !hasP:
			t.Errorf("%s: node %d noted no parent", name, id)
			continue
		}
		depth, ok := ParseDepth(p.Text)
		if !ok || depth != d {
			t.Errorf("%s: node %d notes %q, hop distance %d", name, id, p.Text, d)
		}
		if id == root && p.Leader != protocol.None {
			t.Errorf("%s: the root notes parent %d", name, p.Leader)
		}
		if id != root && (!slices.Contains(nb[id], p.Leader) || dist[p.Leader] != d-1) {
			t.Errorf("%s: node %d's parent %d (distance %d) is not a neighbour one hop closer", name, id, p.Leader, dist[p.Leader])
		}
		if l.Leader != root {
			t.Errorf("%s: node %d follows %d, want the root %d", name, id, l.Leader, root)
		}
	}
	if res.Messages != *th.Messages.Exact || res.Rounds != *th.Rounds.Exact {
		t.Errorf("%s: %d messages, %d rounds; theory %d, %d", name, res.Messages, res.Rounds, *th.Messages.Exact, *th.Rounds.Exact)
	}
	b := BFSBound(len(members))
	if res.Messages > *b.Messages.Worst || res.Rounds > *b.Rounds.Worst {
		t.Errorf("%s: %d messages, %d rounds above the bound %+v", name, res.Messages, res.Rounds, b)
	}
	res.allHalted(t)
}

// TestBFSDepthIsHopDistance: on grids, lines, complete graphs and random
// connected graphs, from several roots, with every node awake at round 1
// or only the root, the tree is a BFS tree with the theory's counts.
func TestBFSDepthIsHopDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	graphs := map[string]map[protocol.NodeID][]protocol.NodeID{
		"grid 3x3": grid(3, 3), "grid 4x5": grid(4, 5), "grid 1x1": grid(1, 1), "line 6": line(6),
		"complete 5": complete(5), "pair": line(2),
	}
	for i := range 8 {
		n := 5 + rng.IntN(30)
		graphs[fmt.Sprintf("random %d (%d)", n, i)] = randomConnected(rng, n, rng.IntN(2*n))
	}
	for name, nb := range graphs {
		for _, root := range []protocol.NodeID{1, protocol.NodeID(len(nb)), protocol.NodeID(1 + rng.IntN(len(nb)))} {
			for _, all := range []bool{true, false} {
				checkBFS(t, fmt.Sprintf("%s root %d all awake %v", name, root, all), nb, root, all)
			}
		}
	}
	// An exact case by hand: the 3x3 grid from its corner, eccentricity 4,
	// the far corner with two neighbours: 5 rounds; 12 edges, 2·12-8 = 16
	// invitations.
	th, _ := BFSTheory(grid(3, 3), 1, true)
	if *th.Rounds.Exact != 5 || *th.Messages.Exact != 16 {
		t.Errorf("3x3 grid theory %+v", th)
	}
}

// TestBFSDisconnected: nodes outside the root's component, awake from
// round 1, halt after n-1 rounds without a parent.
func TestBFSDisconnected(t *testing.T) {
	nb := graph(6, [][2]protocol.NodeID{{1, 2}, {2, 3}, {4, 5}, {5, 6}})
	checkBFS(t, "two lines", nb, 2, true)
	checkBFS(t, "two lines, root only", nb, 2, false)
}

// TestBFSBadRoot: a root that is not a member, or not an ID, is an error
// naming the field.
func TestBFSBadRoot(t *testing.T) {
	ctx := rounds.Context{ID: 1, Members: ids(1, 2, 3), Neighbors: ids(2)}
	for _, v := range []any{9, 0, "one", 1.5} {
		p := protocol.Params{"root": v}
		r := p.Reader()
		_, err := BFS.New(ctx, r)
		if err == nil || !strings.Contains(err.Error(), "protocol.params.root") || !strings.Contains(err.Error(), "members: 1-3") || r.Err() == nil {
			t.Errorf("root %v: %v", v, err)
		}
		if _, err := BFS.Theory(ids(1, 2, 3), nil, p); err == nil {
			t.Errorf("theory with root %v: no error", v)
		}
	}
}

// TestBFSHostile: invitations of another root, of impossible depths or of
// another type are ignored.
func TestBFSHostile(t *testing.T) {
	ctx := rounds.Context{ID: 2, Members: ids(1, 2, 3), Neighbors: ids(1, 3)}
	a, _ := BFS.New(ctx, protocol.Params{}.Reader())
	a.Start(1, true)
	junk := []rounds.In[Msg]{{From: 3, Msg: Msg{Type: TypeInvite, ID: 3, Depth: 1}}, {From: 3, Msg: Msg{Type: TypeInvite, ID: 1}},
		{From: 3, Msg: Msg{Type: TypeInvite, ID: 1, Depth: 3}}, {From: 3, Msg: Msg{Type: TypeToken, ID: 1, Depth: 1}}, {From: 3, Msg: Msg{Type: 77}}}
	if out := a.Round(1, junk); len(out) != 0 || a.Halted() {
		t.Fatalf("junk: %v, halted %v", out, a.Halted())
	}
	out := a.Round(2, []rounds.In[Msg]{{From: 1, Msg: Msg{Type: TypeInvite, ID: 1, Depth: 1}}})
	if len(out) != 1 || out[0].To != 3 || out[0].Msg.Depth != 2 || !a.Halted() {
		t.Fatalf("invited: %v, halted %v", out, a.Halted())
	}
	if d, ok := ParseDepth("depth x"); ok {
		t.Errorf("ParseDepth(depth x) = %d", d)
	}
}

// TestBFSKingGrid checks the figures configs/sync-bfs.yaml gives: a 5×5
// grid where each node hears its 8 surrounding nodes, root 1 at a corner:
// depths are the Chebyshev distances, 120 invitations, 5 rounds.
func TestBFSKingGrid(t *testing.T) {
	var e [][2]protocol.NodeID
	at := func(x, y int) protocol.NodeID { return protocol.NodeID(y*5 + x + 1) }
	for y := range 5 {
		for x := range 5 {
			for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
				if x2, y2 := x+d[0], y+d[1]; x2 < 5 && y2 >= 0 && y2 < 5 {
					e = append(e, [2]protocol.NodeID{at(x, y), at(x2, y2)})
				}
			}
		}
	}
	nb := graph(25, e)
	checkBFS(t, "king grid", nb, 1, true)
	th, dist := BFSTheory(nb, 1, true)
	if *th.Messages.Exact != 120 || *th.Rounds.Exact != 5 {
		t.Errorf("theory %+v", th)
	}
	for y := range 5 {
		for x := range 5 {
			if dist[at(x, y)] != max(x, y) {
				t.Errorf("node %d at distance %d, want %d", at(x, y), dist[at(x, y)], max(x, y))
			}
		}
	}
}
