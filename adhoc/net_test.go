package adhoc

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"manetlab/protocol"
)

// testNet is an in-memory, synchronous, deterministic network in the
// style of etcd-raft's tests: an adjacency the test controls, one fake Env
// per node, a virtual clock, and a pump that delivers messages FIFO per
// link (only while the link exists) and fires timers in time order.
type testNet struct {
	t       testing.TB
	now     time.Duration
	rng     *rand.Rand
	params  protocol.Params
	nodes   map[protocol.NodeID]*testNode
	adj     map[[2]protocol.NodeID]bool
	q       eventQueue
	seq     uint64
	fifo    map[[2]protocol.NodeID]time.Duration // last arrival per directed link
	sent    map[string]int                       // messages sent, by kind
	events  int
	timerID protocol.TimerID
	trace   func(netEvent) // debugging hook: sees every delivery
	loss    float64        // chance that one receiver misses a broadcast
}

type testNode struct {
	id     protocol.NodeID
	value  float64
	alive  bool
	gen    int
	proc   *Node
	env    *testEnv
	notes  []protocol.Note
	leader protocol.NodeID // from the last NoteLeader
}

type testEnv struct {
	net    *testNet
	node   *testNode
	gen    int
	rng    *rand.Rand
	timers map[protocol.TimerID]bool
}

type netEvent struct {
	at   time.Duration
	seq  uint64
	to   protocol.NodeID
	gen  int // receiver's incarnation when scheduled
	from protocol.NodeID
	msg  protocol.Message // nil for a timer
	tid  protocol.TimerID
	name string
	arg  int64
}

type eventQueue []netEvent

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(netEvent)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// newNet builds n nodes with IDs 1..len(values) and the given values, no
// links, none started.
func newNet(t testing.TB, seed uint64, params protocol.Params, values ...float64) *testNet {
	w := &testNet{
		t: t, rng: rand.New(rand.NewPCG(seed, 99)), params: params,
		nodes: map[protocol.NodeID]*testNode{}, adj: map[[2]protocol.NodeID]bool{},
		fifo: map[[2]protocol.NodeID]time.Duration{}, sent: map[string]int{},
	}
	for i, v := range values {
		id := protocol.NodeID(i + 1)
		w.nodes[id] = &testNode{id: id, value: v}
	}
	return w
}

func key(a, b protocol.NodeID) [2]protocol.NodeID {
	if a > b {
		a, b = b, a
	}
	return [2]protocol.NodeID{a, b}
}

func (w *testNet) ids() []protocol.NodeID {
	ids := make([]protocol.NodeID, 0, len(w.nodes))
	for id := range w.nodes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func (w *testNet) linked(a, b protocol.NodeID) bool {
	return w.adj[key(a, b)] && w.nodes[a].alive && w.nodes[b].alive
}

func (w *testNet) neighbours(a protocol.NodeID) []protocol.NodeID {
	var out []protocol.NodeID
	for _, b := range w.ids() {
		if b != a && w.linked(a, b) {
			out = append(out, b)
		}
	}
	return out
}

// create makes a fresh Process for a node and marks it running, without
// starting it.
func (w *testNet) create(id protocol.NodeID) {
	n := w.nodes[id]
	n.alive = true
	n.gen++
	n.leader = protocol.None
	n.env = &testEnv{net: w, node: n, gen: n.gen, rng: rand.New(rand.NewPCG(uint64(id), uint64(n.gen))), timers: map[protocol.TimerID]bool{}}
	p, err := New(protocol.Config{ID: id, Value: n.value, Params: w.params, Env: n.env})
	if err != nil {
		w.t.Fatalf("New(%d): %v", id, err)
	}
	n.proc = p.(*Node)
}

// boot starts a node with a fresh Process, then reports its current links
// to both sides, as neighbour discovery would.
func (w *testNet) boot(id protocol.NodeID) {
	w.create(id)
	w.nodes[id].proc.Step(protocol.Start{})
	for _, b := range w.neighbours(id) {
		w.step(id, protocol.NeighborUp{ID: b})
		w.step(b, protocol.NeighborUp{ID: id})
	}
}

// startAll boots every node one after the other, as the simulator does:
// each hears of its neighbours after its Start.
func (w *testNet) startAll() {
	for _, id := range w.ids() {
		if !w.nodes[id].alive && w.nodes[id].gen == 0 {
			w.boot(id)
		}
	}
}

// startKnowing creates every node, tells each of its neighbours, then
// starts them all, so that the boot elections run over the whole graph.
func (w *testNet) startKnowing() {
	for _, id := range w.ids() {
		w.create(id)
	}
	for _, id := range w.ids() {
		for _, b := range w.neighbours(id) {
			w.step(id, protocol.NeighborUp{ID: b})
		}
	}
	for _, id := range w.ids() {
		w.step(id, protocol.Start{})
	}
}

func (w *testNet) step(id protocol.NodeID, ev protocol.Event) {
	if n := w.nodes[id]; n.alive {
		n.proc.Step(ev)
	}
}

// link connects a and b; running nodes hear NeighborUp.
func (w *testNet) link(a, b protocol.NodeID) {
	if w.adj[key(a, b)] {
		return
	}
	w.adj[key(a, b)] = true
	if w.linked(a, b) {
		w.step(a, protocol.NeighborUp{ID: b})
		w.step(b, protocol.NeighborUp{ID: a})
	}
}

// cut disconnects a and b; running nodes hear NeighborDown.
func (w *testNet) cut(a, b protocol.NodeID) {
	if !w.adj[key(a, b)] {
		return
	}
	up := w.linked(a, b)
	delete(w.adj, key(a, b))
	if up {
		w.step(a, protocol.NeighborDown{ID: b})
		w.step(b, protocol.NeighborDown{ID: a})
	}
}

// crash stops a node: its timers and in-flight messages die with it and
// its neighbours hear NeighborDown.
func (w *testNet) crash(id protocol.NodeID) {
	n := w.nodes[id]
	if !n.alive {
		return
	}
	nb := w.neighbours(id)
	n.alive = false
	n.gen++
	n.leader = protocol.None
	for _, b := range nb {
		w.step(b, protocol.NeighborDown{ID: id})
	}
}

// recover restarts a crashed node with a fresh Process.
func (w *testNet) recover(id protocol.NodeID) {
	if !w.nodes[id].alive {
		w.boot(id)
	}
}

// setValue changes a node's value through the SetValue command.
func (w *testNet) setValue(id protocol.NodeID, v float64) {
	w.nodes[id].value = v
	w.step(id, protocol.Command{Name: protocol.SetValue, Value: v})
}

// run pumps events until the virtual clock reaches now+d.
func (w *testNet) run(d time.Duration) {
	end := w.now + d
	for w.q.Len() > 0 && w.q[0].at <= end {
		e := heap.Pop(&w.q).(netEvent)
		w.now = e.at
		w.events++
		if w.events > 5_000_000 {
			w.t.Fatalf("runaway: too many events at t=%v: sent %v", w.now, w.sent)
		}
		if w.trace != nil && e.msg != nil {
			w.trace(e)
		}
		n := w.nodes[e.to]
		if !n.alive || n.gen != e.gen {
			continue
		}
		if e.msg == nil {
			if !n.env.timers[e.tid] {
				continue
			}
			delete(n.env.timers, e.tid)
			n.proc.Step(protocol.Timeout{ID: e.tid, Name: e.name, Arg: e.arg})
			continue
		}
		if !w.linked(e.from, e.to) {
			continue // the link broke while the message travelled
		}
		n.proc.Step(protocol.Receive{From: e.from, Hops: 1, Msg: e.msg})
	}
	w.now = end
}

func (w *testNet) push(e netEvent) {
	w.seq++
	e.seq = w.seq
	heap.Push(&w.q, e)
}

// transmit schedules m from a to b after a random delay, never before an
// earlier message on the same link: links are FIFO.
func (w *testNet) transmit(from, to protocol.NodeID, m protocol.Message) {
	if !w.linked(from, to) {
		return
	}
	at := w.now + time.Millisecond + time.Duration(w.rng.Int64N(int64(20*time.Millisecond)))
	k := [2]protocol.NodeID{from, to}
	at = max(at, w.fifo[k])
	w.fifo[k] = at
	w.push(netEvent{at: at, to: to, gen: w.nodes[to].gen, from: from, msg: m})
}

// component returns the running nodes reachable from id.
func (w *testNet) component(id protocol.NodeID) []protocol.NodeID {
	seen := map[protocol.NodeID]bool{id: true}
	todo := []protocol.NodeID{id}
	for len(todo) > 0 {
		a := todo[0]
		todo = todo[1:]
		for _, b := range w.neighbours(a) {
			if !seen[b] {
				seen[b] = true
				todo = append(todo, b)
			}
		}
	}
	return sorted(seen)
}

// bestOf is the node that should lead comp.
func (w *testNet) bestOf(comp []protocol.NodeID) protocol.NodeID {
	best := comp[0]
	for _, id := range comp[1:] {
		if protocol.Better(id, w.nodes[id].value, best, w.nodes[best].value) {
			best = id
		}
	}
	return best
}

// checkStable returns an error unless every running node is out of any
// election, its last NoteLeader and its state both name the best node of
// its component, and exactly that node believes it leads.
func (w *testNet) checkStable() error {
	for _, id := range w.ids() {
		n := w.nodes[id]
		if !n.alive {
			continue
		}
		want := w.bestOf(w.component(id))
		switch {
		case n.proc.phase != idle:
			return fmt.Errorf("t=%v node %d still in election %v (phase %d)", w.now, id, n.proc.idx, n.proc.phase)
		case n.leader != want || n.proc.leader != want:
			return fmt.Errorf("t=%v node %d: leader %d (noted %d), want %d of component %v", w.now, id, n.proc.leader, n.leader, want, w.component(id))
		case (n.proc.leader == id) != (id == want):
			return fmt.Errorf("t=%v node %d wrongly believes it leads", w.now, id)
		}
	}
	return nil
}

func (w *testNet) mustStable() {
	w.t.Helper()
	if err := w.checkStable(); err != nil {
		w.t.Fatal(err)
	}
}

// notes returns the notes of kind k that node id emitted.
func (w *testNet) notes(id protocol.NodeID, k protocol.NoteKind) []protocol.Note {
	var out []protocol.Note
	for _, n := range w.nodes[id].notes {
		if n.Kind == k {
			out = append(out, n)
		}
	}
	return out
}

func (e *testEnv) live() bool { return e.node.alive && e.node.gen == e.gen }

func (e *testEnv) Now() time.Duration { return e.net.now }

func (e *testEnv) Send(to protocol.NodeID, m protocol.Message) {
	if e.live() {
		e.net.sent[m.Kind()]++
		e.net.transmit(e.node.id, to, m)
	}
}

func (e *testEnv) Broadcast(m protocol.Message) {
	if !e.live() {
		return
	}
	e.net.sent[m.Kind()]++
	for _, b := range e.net.neighbours(e.node.id) {
		// Broadcasts are not acknowledged, so each receiver may miss one;
		// Send stands for the link layer's retransmission and never fails.
		if e.net.loss > 0 && e.net.rng.Float64() < e.net.loss {
			continue
		}
		e.net.transmit(e.node.id, b, m)
	}
}

func (e *testEnv) Deliver(protocol.NodeID, protocol.Message) {
	e.net.t.Fatalf("node %d used Deliver; adhoc floods by itself", e.node.id)
}

func (e *testEnv) Flood(protocol.Message) {
	e.net.t.Fatalf("node %d used Flood; adhoc floods by itself", e.node.id)
}

func (e *testEnv) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	e.net.timerID++
	id := e.net.timerID
	if e.live() {
		e.timers[id] = true
		e.net.push(netEvent{at: e.net.now + after, to: e.node.id, gen: e.gen, tid: id, name: name, arg: arg})
	}
	return id
}

func (e *testEnv) CancelTimer(id protocol.TimerID) { delete(e.timers, id) }

func (e *testEnv) Rand() *rand.Rand { return e.rng }

func (e *testEnv) Note(n protocol.Note) {
	if !e.live() {
		return
	}
	e.node.notes = append(e.node.notes, n)
	if n.Kind == protocol.NoteLeader {
		e.node.leader = n.Leader
	}
}

func (e *testEnv) Logf(format string, args ...any) {}
