package firewire

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

// net is an in-memory network of tree identify processes in virtual time:
// one-hop messages on the given links with a delay (a base plus seeded
// jitter), FIFO per link, timers, and neighbour discovery at boot.
type net struct {
	now    time.Duration
	seq    uint64
	q      pending
	nodes  map[protocol.NodeID]*netNode
	adj    map[protocol.NodeID][]protocol.NodeID
	rng    *rand.Rand
	delay  time.Duration
	jitter time.Duration
	last   map[[2]protocol.NodeID]time.Duration // latest arrival per link, for FIFO
	params protocol.Params
	sends  map[string]int
}

type netNode struct {
	id      protocol.NodeID
	proc    protocol.Process
	env     *netEnv
	notes   []protocol.Note
	parent  protocol.NodeID
	parents int // parent notes
	leader  protocol.NodeID
	epoch   string
}

type netEnv struct {
	n      *net
	id     protocol.NodeID
	rng    *rand.Rand
	timers map[protocol.TimerID]bool
	nextID protocol.TimerID
}

type netEvent struct {
	at    time.Duration
	seq   uint64
	to    protocol.NodeID
	ev    protocol.Event
	timer protocol.TimerID
}

type pending []netEvent

func (p pending) Len() int { return len(p) }
func (p pending) Less(i, j int) bool {
	return p[i].at < p[j].at || p[i].at == p[j].at && p[i].seq < p[j].seq
}
func (p pending) Swap(i, j int) { p[i], p[j] = p[j], p[i] }
func (p *pending) Push(x any)   { *p = append(*p, x.(netEvent)) }
func (p *pending) Pop() any {
	old := *p
	x := old[len(old)-1]
	*p = old[:len(old)-1]
	return x
}

func (n *net) push(at time.Duration, to protocol.NodeID, ev protocol.Event, timer protocol.TimerID) {
	n.seq++
	heap.Push(&n.q, netEvent{at: at, seq: n.seq, to: to, ev: ev, timer: timer})
}

func (e *netEnv) Now() time.Duration { return e.n.now }
func (e *netEnv) Send(to protocol.NodeID, m protocol.Message) {
	if !slices.Contains(e.n.adj[e.id], to) {
		panic(fmt.Sprintf("node %d sends %s to %d, not a neighbour", e.id, m.Kind(), to))
	}
	e.n.sends[m.Kind()]++
	at := e.n.now + e.n.delay
	if e.n.jitter > 0 {
		at += time.Duration(e.n.rng.Int64N(int64(e.n.jitter)))
	}
	link := [2]protocol.NodeID{e.id, to}
	at = max(at, e.n.last[link]+1)
	e.n.last[link] = at
	e.n.push(at, to, protocol.Receive{From: e.id, Hops: 1, Msg: m}, 0)
}
func (e *netEnv) Broadcast(protocol.Message)                { panic("no broadcast") }
func (e *netEnv) Deliver(protocol.NodeID, protocol.Message) { panic("no multi-hop") }
func (e *netEnv) Flood(protocol.Message)                    { panic("no multi-hop") }
func (e *netEnv) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	e.nextID++
	e.timers[e.nextID] = true
	e.n.push(e.n.now+max(after, 0), e.id, protocol.Timeout{ID: e.nextID, Name: name, Arg: arg}, e.nextID)
	return e.nextID
}
func (e *netEnv) CancelTimer(id protocol.TimerID) { delete(e.timers, id) }
func (e *netEnv) Rand() *rand.Rand                { return e.rng }
func (e *netEnv) Logf(string, ...any)             {}
func (e *netEnv) Note(note protocol.Note) {
	nd := e.n.nodes[e.id]
	nd.notes = append(nd.notes, note)
	switch note.Kind {
	case protocol.NoteParent:
		nd.parent = note.Leader
		nd.parents++
	case protocol.NoteLeader:
		nd.leader, nd.epoch = note.Leader, note.Epoch
	}
}

// newNet builds the network of the given links among ids; every node
// boots at a time within skew of zero and hears its neighbours at once.
func newNet(t *testing.T, seed uint64, ids []protocol.NodeID, links [][2]protocol.NodeID, delay, jitter, skew time.Duration, params protocol.Params) *net {
	t.Helper()
	n := &net{nodes: map[protocol.NodeID]*netNode{}, adj: map[protocol.NodeID][]protocol.NodeID{}, rng: rand.New(rand.NewPCG(seed, 0)),
		delay: delay, jitter: jitter, last: map[[2]protocol.NodeID]time.Duration{}, params: params, sends: map[string]int{}}
	for _, l := range links {
		n.adj[l[0]] = append(n.adj[l[0]], l[1])
		n.adj[l[1]] = append(n.adj[l[1]], l[0])
	}
	for _, id := range ids {
		env := &netEnv{n: n, id: id, rng: rand.New(rand.NewPCG(seed, uint64(id))), timers: map[protocol.TimerID]bool{}}
		p, err := New(protocol.Config{ID: id, Value: float64(id), Members: ids, Params: params, Seed: seed, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		n.nodes[id] = &netNode{id: id, proc: p, env: env, parent: math.MaxUint32}
		at := time.Duration(0)
		if skew > 0 {
			at = time.Duration(n.rng.Int64N(int64(skew)))
		}
		n.push(at, id, protocol.Start{}, 0)
		for _, nb := range n.adj[id] {
			n.push(at, id, protocol.NeighborUp{ID: nb}, 0)
		}
	}
	return n
}

// run delivers events until none is left.
func (n *net) run() {
	for n.q.Len() > 0 {
		e := heap.Pop(&n.q).(netEvent)
		n.now = e.at
		nd := n.nodes[e.to]
		if e.timer != 0 {
			if !nd.env.timers[e.timer] {
				continue
			}
			delete(nd.env.timers, e.timer)
		}
		nd.proc.Step(e.ev)
	}
}

// rounds is the number of root contention rounds of the run: the highest
// "contention round k" noted.
func (n *net) rounds() int {
	r := 0
	for _, nd := range n.nodes {
		for _, note := range nd.notes {
			var k int
			if _, err := fmt.Sscanf(note.Text, "contention round %d", &k); err == nil {
				r = max(r, k)
			}
		}
	}
	return r
}

// checkTree requires the run to have built a spanning tree of every
// component: one root, a parent per other node along a link, every node
// reaching the root, every node's leader the root. It returns the roots.
func (n *net) checkTree(t *testing.T, what string) []protocol.NodeID {
	t.Helper()
	var roots []protocol.NodeID
	for id, nd := range n.nodes {
		if nd.parents != 1 {
			t.Fatalf("%s: node %d noted %d parents (%v)", what, id, nd.parents, nd.notes)
		}
		if nd.parent == protocol.None {
			roots = append(roots, id)
			continue
		}
		if !slices.Contains(n.adj[id], nd.parent) {
			t.Fatalf("%s: node %d's parent %d is not a neighbour", what, id, nd.parent)
		}
	}
	slices.Sort(roots)
	comps := 0
	for id := range n.nodes {
		// follow the parents: at most n steps to a root
		x, steps := id, 0
		for n.nodes[x].parent != protocol.None {
			x = n.nodes[x].parent
			if steps++; steps > len(n.nodes) {
				t.Fatalf("%s: the parents of node %d form a cycle", what, id)
			}
		}
		if nd := n.nodes[id]; nd.leader != x || nd.epoch != Epoch(x) {
			t.Fatalf("%s: node %d under root %d follows %d (epoch %q)", what, id, x, nd.leader, nd.epoch)
		}
		if x == id {
			comps++
		}
	}
	if comps != len(roots) {
		t.Fatalf("%s: %d roots for %d trees", what, len(roots), comps)
	}
	return roots
}

// randomForest returns n nodes with shuffled IDs 1..n linked as random
// trees: each node after the first joins an earlier one, or (with
// probability split) starts a tree of its own.
func randomForest(rng *rand.Rand, n int, split float64) ([]protocol.NodeID, [][2]protocol.NodeID, int) {
	ids := make([]protocol.NodeID, n)
	for i := range ids {
		ids[i] = protocol.NodeID(i + 1)
	}
	rng.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	var links [][2]protocol.NodeID
	trees := 1
	for i := 1; i < n; i++ {
		if rng.Float64() < split {
			trees++
			continue
		}
		links = append(links, [2]protocol.NodeID{ids[rng.IntN(i)], ids[i]})
	}
	return ids, links, trees
}

// TestNetRandomForests: on random forests with jittered delays and boots
// skewed by up to 50 ms, every run builds a spanning tree of each
// component, led by its root, and exactly one pair contends per tree at
// most. Root contention is not needed for correctness: messages arriving
// in any order give a tree.
func TestNetRandomForests(t *testing.T) {
	contended := 0
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		ids, links, trees := randomForest(rng, 1+rng.IntN(30), 0.05)
		n := newNet(t, seed, ids, links, 2*time.Millisecond, 3*time.Millisecond, 50*time.Millisecond, nil)
		n.run()
		what := fmt.Sprintf("seed %d, %d nodes, %d trees", seed, len(ids), trees)
		if roots := n.checkTree(t, what); len(roots) != trees {
			t.Fatalf("%s: roots %v", what, roots)
		}
		if n.sends[KindRequest] > len(links)+trees || n.sends[KindAck] != len(links) || n.sends[KindRoot] != len(links) {
			t.Fatalf("%s: sends %v for %d links", what, n.sends, len(links))
		}
		if n.rounds() > 0 {
			contended++
		}
	}
	t.Logf("%d of 300 runs had a root contention", contended)
	if contended == 0 {
		t.Error("no run had a root contention: the jitter does not exercise it")
	}
}

// TestNetSynchronousCentre: every node starting together, equal delays:
// requests climb from the leaves at one pace, so a tree with one centre
// (even diameter) makes it root with no contention, and one with two
// centres (odd diameter) makes them contend.
func TestNetSynchronousCentre(t *testing.T) {
	// 1-2-3-4-5 with 6 on 3: diameter 4, centre 3.
	even := [][2]protocol.NodeID{{1, 2}, {2, 3}, {3, 4}, {4, 5}, {3, 6}}
	// 1-2-3-4 with 5 on 2 and 6 on 3: diameter 3, centres 2 and 3.
	odd := [][2]protocol.NodeID{{1, 2}, {2, 3}, {3, 4}, {2, 5}, {3, 6}}
	ids := []protocol.NodeID{1, 2, 3, 4, 5, 6}
	for seed := uint64(1); seed <= 20; seed++ {
		n := newNet(t, seed, ids, even, 2*time.Millisecond, 0, 0, nil)
		n.run()
		if roots := n.checkTree(t, "even"); !slices.Equal(roots, []protocol.NodeID{3}) || n.rounds() != 0 {
			t.Fatalf("even diameter, seed %d: roots %v after %d contention rounds", seed, roots, n.rounds())
		}
		n = newNet(t, seed, ids, odd, 2*time.Millisecond, 0, 0, nil)
		n.run()
		if roots := n.checkTree(t, "odd"); len(roots) != 1 || roots[0] != 2 && roots[0] != 3 || n.rounds() < 1 {
			t.Fatalf("odd diameter, seed %d: roots %v after %d contention rounds", seed, roots, n.rounds())
		}
		if c := n.sends[KindContention]; c != 2*n.rounds()-1 {
			t.Fatalf("odd diameter, seed %d: %d contention messages for %d rounds, want 2R-1", seed, c, n.rounds())
		}
	}
}

// TestNetContentionRounds: two nodes, as in the classic case, over 4000
// seeds. The rounds R are geometric with p = 1/2 (a round ends when the
// coins differ): mean 2, variance (1-p)/p² = 2, so the mean of 4000 has
// standard deviation √(2/4000) ≈ 0.022; allow 4 of them. Every run costs
// 2R-1 contention messages.
func TestNetContentionRounds(t *testing.T) {
	const runs = 4000
	total, most := 0, 0
	for seed := uint64(1); seed <= runs; seed++ {
		n := newNet(t, seed, []protocol.NodeID{1, 2}, [][2]protocol.NodeID{{1, 2}}, 2*time.Millisecond, 0, 0, nil)
		n.run()
		n.checkTree(t, fmt.Sprintf("seed %d", seed))
		r := n.rounds()
		if r < 1 || n.sends[KindContention] != 2*r-1 {
			t.Fatalf("seed %d: %d rounds, %d contention messages", seed, r, n.sends[KindContention])
		}
		total += r
		most = max(most, r)
	}
	mean := float64(total) / runs
	if tol := 4 * math.Sqrt(2.0/runs); math.Abs(mean-ContentionRounds) > tol {
		t.Fatalf("mean contention rounds %.3f over %d runs, want %d ± %.3f", mean, runs, ContentionRounds, tol)
	}
	t.Logf("mean %.3f rounds over %d runs (at most %d)", mean, runs, most)
}

// TestNetCycle: on a cycle no node gets down to one missing neighbour;
// at stall the cycle's nodes say the topology is cyclic, the others that
// they stalled, and nobody claims a parent or a root.
func TestNetCycle(t *testing.T) {
	// a square 1-2-3-4 with a leaf 5 on 1
	links := [][2]protocol.NodeID{{1, 2}, {2, 3}, {3, 4}, {4, 1}, {1, 5}}
	n := newNet(t, 1, []protocol.NodeID{1, 2, 3, 4, 5}, links, 2*time.Millisecond, 0, 0, nil)
	n.run()
	for id, nd := range n.nodes {
		var info []string
		for _, note := range nd.notes {
			if note.Kind == protocol.NoteInfo {
				info = append(info, note.Text)
			}
		}
		want := "cyclic topology: no tree identify possible"
		if id == 5 {
			want = "tree identify stalled: parent 1 acknowledged"
		}
		if len(info) != 1 || !strings.HasPrefix(info[0], want) {
			t.Errorf("node %d: info notes %q, want one beginning %q", id, info, want)
		}
		if nd.leader != protocol.None || id != 5 && nd.parents != 0 {
			t.Errorf("node %d: leader %d, %d parent notes", id, nd.leader, nd.parents)
		}
	}
	if err := CheckAcyclic([]protocol.NodeID{1, 2, 3, 4, 5}, links); err == nil ||
		!strings.Contains(err.Error(), "cyclic topology: the radio links 1-2-3-4-1 form a cycle of 4 nodes") {
		t.Fatalf("CheckAcyclic: %v", err)
	}
}

func TestCheckAcyclic(t *testing.T) {
	ids := []protocol.NodeID{1, 2, 3, 4, 5, 6}
	for _, c := range []struct {
		links [][2]protocol.NodeID
		want  string // "" for no error
	}{
		{nil, ""},
		{[][2]protocol.NodeID{{1, 2}, {2, 3}, {5, 4}, {6, 4}}, ""},
		{[][2]protocol.NodeID{{1, 2}, {2, 1}, {3, 3}, {2, 3}}, ""}, // duplicates and a self-link
		{[][2]protocol.NodeID{{3, 1}, {2, 3}, {1, 2}}, "the radio links 1-2-3-1 form a cycle of 3 nodes"},
		{[][2]protocol.NodeID{{1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {2, 5}}, "the radio links 2-3-4-5-2 form a cycle of 4 nodes"},
		{[][2]protocol.NodeID{{1, 7}}, "radio link 1-7: not between members"},
	} {
		err := CheckAcyclic(ids, c.links)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.links, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want %q", c.links, err, c.want)
		}
	}
}
