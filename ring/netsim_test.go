package ring

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"manetlab/protocol"
)

// network is an in-memory network in virtual time for a ring protocol, in
// the manner of etcd-raft's tests: it delivers what the nodes Deliver after
// a latency (fixed, or drawn from a seeded source so that frames overtake
// each other), runs timers in virtual time, drops a fraction of frames,
// crashes and recovers nodes, and counts the frames sent by kind as a
// driver does. Every random choice comes from one seeded source.
type network struct {
	t       testing.TB
	alg     string
	spec    protocol.Spec
	members []protocol.NodeID
	params  protocol.Params
	seed    uint64

	now    time.Duration
	seq    uint64
	queue  events
	timers map[protocol.TimerID]bool // pending, not cancelled
	nextID protocol.TimerID
	nodes  map[protocol.NodeID]*simNode

	rng    *rand.Rand
	jitter bool    // random latencies: delivery order randomised
	loss   float64 // fraction of frames dropped

	// crashAfter, when it returns true for the event a node is about to
	// handle, crashes the node right after the step: only the
	// acknowledgements it sent in that step get out (it crashed after
	// acknowledging, before forwarding).
	crashAfter func(id protocol.NodeID, ev protocol.Event) bool
	// crashKeeps lets everything the step sent out: the node crashed
	// after forwarding.
	crashKeeps bool

	sent  map[string]int // frames sent, by kind
	notes []noteRec
	steps int
}

type simNode struct {
	id    protocol.NodeID
	proc  protocol.Process
	env   *simEnv
	alive bool
	gen   int
}

type noteRec struct {
	at   time.Duration
	node protocol.NodeID
	gen  int
	protocol.Note
}

// event is a frame in flight or a timer.
type event struct {
	at    time.Duration
	seq   uint64
	to    protocol.NodeID
	from  protocol.NodeID
	msg   protocol.Message // nil for a timer
	timer protocol.TimerID
	name  string
	arg   int64
	gen   int // the incarnation that set the timer
}

type events []event

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(event)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// simEnv is one incarnation's protocol.Env. Frames sent during a step wait
// in out until the step is over.
type simEnv struct {
	net  *network
	node *simNode
	gen  int
	rng  *rand.Rand
	out  []event
}

func (e *simEnv) Now() time.Duration { return e.net.now }
func (e *simEnv) Send(protocol.NodeID, protocol.Message) {
	e.net.t.Fatalf("node %d: ring protocols send with Deliver, not Send", e.node.id)
}
func (e *simEnv) Broadcast(protocol.Message) {
	e.net.t.Fatalf("node %d: ring protocols do not Broadcast", e.node.id)
}
func (e *simEnv) Flood(protocol.Message) {
	e.net.t.Fatalf("node %d: ring protocols do not Flood", e.node.id)
}
func (e *simEnv) Deliver(to protocol.NodeID, m protocol.Message) {
	if to == e.node.id {
		e.net.t.Fatalf("node %d delivers %s to itself", to, m.Kind())
	}
	e.out = append(e.out, event{to: to, from: e.node.id, msg: m})
}
func (e *simEnv) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	n := e.net
	n.nextID++
	n.timers[n.nextID] = true
	n.push(event{at: n.now + after, to: e.node.id, timer: n.nextID, name: name, arg: arg, gen: e.gen})
	return n.nextID
}
func (e *simEnv) CancelTimer(id protocol.TimerID) { delete(e.net.timers, id) }
func (e *simEnv) Rand() *rand.Rand                { return e.rng }
func (e *simEnv) Note(nt protocol.Note) {
	e.net.notes = append(e.net.notes, noteRec{at: e.net.now, node: e.node.id, gen: e.gen, Note: nt})
}
func (e *simEnv) Logf(format string, args ...any) {
	e.net.t.Logf("%v node %d: %s", e.net.now, e.node.id, fmt.Sprintf(format, args...))
}

// newNetwork builds and boots every member of alg's ring at time 0; opts
// adjust the network before the boot.
func newNetwork(t testing.TB, alg string, members []protocol.NodeID, params protocol.Params, seed uint64, opts ...func(*network)) *network {
	t.Helper()
	spec, err := protocol.Lookup(alg)
	if err != nil {
		t.Fatal(err)
	}
	n := &network{
		t: t, alg: alg, spec: spec, members: members, params: params, seed: seed,
		timers: map[protocol.TimerID]bool{}, nodes: map[protocol.NodeID]*simNode{},
		rng:  rand.New(rand.NewPCG(seed, 0x6e6574)),
		sent: map[string]int{},
	}
	for _, id := range members {
		n.nodes[id] = &simNode{id: id}
	}
	for _, o := range opts {
		o(n)
	}
	for _, id := range members {
		n.boot(id)
	}
	return n
}

func (n *network) push(e event) {
	n.seq++
	e.seq = n.seq
	heap.Push(&n.queue, e)
}

func (n *network) boot(id protocol.NodeID) {
	sn := n.nodes[id]
	sn.gen++
	sn.alive = true
	sn.env = &simEnv{net: n, node: sn, gen: sn.gen, rng: rand.New(rand.NewPCG(n.seed, uint64(id)<<32|uint64(sn.gen)))}
	p, err := n.spec.New(protocol.Config{ID: id, Members: n.members, Params: n.params, Seed: n.seed, Env: sn.env})
	if err != nil {
		n.t.Fatalf("node %d: %v", id, err)
	}
	sn.proc = p
	n.step(sn, protocol.Start{})
}

// crash stops a node: it loses its state, and frames and timers for it
// are dropped.
func (n *network) crash(id protocol.NodeID) {
	sn := n.nodes[id]
	sn.alive = false
	sn.proc, sn.env = nil, nil
}

// recover boots a crashed node as a fresh process.
func (n *network) recover(id protocol.NodeID) {
	if n.nodes[id].alive {
		n.t.Fatalf("node %d recovers but never crashed", id)
	}
	n.boot(id)
}

func (n *network) latency() time.Duration {
	if n.jitter {
		return 100*time.Microsecond + time.Duration(n.rng.Int64N(int64(20*time.Millisecond)))
	}
	return time.Millisecond
}

// step hands ev to a node and then sends what it delivered, counting each
// frame by kind as a driver's send event would.
func (n *network) step(sn *simNode, ev protocol.Event) {
	n.steps++
	crash := n.crashAfter != nil && n.crashAfter(sn.id, ev)
	env := sn.env
	sn.proc.Step(ev)
	out := env.out
	env.out = nil
	for _, f := range out {
		if crash && !n.crashKeeps && f.msg.Kind() != "transport-ack" {
			continue
		}
		n.sent[f.msg.Kind()]++
		if n.loss > 0 && n.rng.Float64() < n.loss {
			continue
		}
		f.at = n.now + n.latency()
		n.push(f)
	}
	if crash {
		n.crash(sn.id)
	}
}

// at runs fn at virtual time t (a fault or a command).
type action struct {
	at time.Duration
	fn func()
}

// run pumps frames and timers until nothing is pending or the virtual time
// passes until, running the actions at their times.
func (n *network) run(until time.Duration, actions ...action) {
	n.t.Helper()
	slices.SortStableFunc(actions, func(a, b action) int { return int(a.at - b.at) })
	for {
		if n.steps > 5_000_000 {
			n.t.Fatalf("%s: more than 5M steps by %v: a livelock?", n.alg, n.now)
		}
		next := until + 1
		if len(n.queue) > 0 {
			next = n.queue[0].at
		}
		if len(actions) > 0 && actions[0].at <= next && actions[0].at <= until {
			n.now = max(n.now, actions[0].at)
			actions[0].fn()
			actions = actions[1:]
			continue
		}
		if len(n.queue) == 0 || next > until {
			return
		}
		e := heap.Pop(&n.queue).(event)
		n.now = e.at
		sn := n.nodes[e.to]
		if sn == nil || !sn.alive {
			continue
		}
		if e.msg == nil {
			if !n.timers[e.timer] || e.gen != sn.gen {
				continue
			}
			delete(n.timers, e.timer)
			n.step(sn, protocol.Timeout{ID: e.timer, Name: e.name, Arg: e.arg})
			continue
		}
		n.step(sn, protocol.Receive{From: e.from, Hops: 1, Msg: e.msg})
	}
}

// command issues a workload command to a live node now.
func (n *network) command(id protocol.NodeID, name protocol.CommandName) {
	if sn := n.nodes[id]; sn.alive {
		n.step(sn, protocol.Command{Name: name})
	}
}

// counts splits the frames sent into the election's, the announcement's,
// the control messages and the transport's, as trace/analysis does.
func (n *network) counts() (election, announce, control, transport int) {
	cls := map[string]int{}
	for _, k := range n.spec.Complexity.Announce {
		cls[k] = 1
	}
	for _, k := range n.spec.Complexity.Control {
		cls[k] = 2
	}
	for k, c := range n.sent {
		switch {
		case protocol.IsTransport(k):
			transport += c
		case cls[k] == 1:
			announce += c
		case cls[k] == 2:
			control += c
		default:
			election += c
		}
	}
	return
}

// algorithmKinds is the count by kind of everything but transport.
func (n *network) algorithmKinds() map[string]int {
	m := map[string]int{}
	for k, c := range n.sent {
		if !protocol.IsTransport(k) {
			m[k] = c
		}
	}
	return m
}

func (n *network) live() []protocol.NodeID {
	var ids []protocol.NodeID
	for _, id := range n.members {
		if n.nodes[id].alive {
			ids = append(ids, id)
		}
	}
	return ids
}

// follows is what a live node follows: its current incarnation's last
// leader note.
func (n *network) follows(id protocol.NodeID) (protocol.NodeID, string, bool) {
	sn := n.nodes[id]
	for i := len(n.notes) - 1; i >= 0; i-- {
		r := n.notes[i]
		if r.node == id && r.gen == sn.gen && r.Kind == protocol.NoteLeader {
			return r.Leader, r.Epoch, true
		}
	}
	return 0, "", false
}

// checkSafety fails if an epoch has two leaders.
func (n *network) checkSafety() {
	n.t.Helper()
	leaders := map[string]protocol.NodeID{}
	for _, r := range n.notes {
		if r.Kind != protocol.NoteLeader || r.Leader == protocol.None {
			continue
		}
		if l, ok := leaders[r.Epoch]; ok && l != r.Leader {
			n.t.Fatalf("%s: epoch %s has two leaders, %d and %d (node %d at %v)", n.alg, r.Epoch, l, r.Leader, r.node, r.at)
		}
		leaders[r.Epoch] = r.Leader
	}
}

// checkElected fails unless every live node follows the highest live ID
// in one epoch, and returns that epoch.
func (n *network) checkElected() string {
	n.t.Helper()
	n.checkSafety()
	live := n.live()
	want := slices.Max(live)
	var epoch string
	for _, id := range live {
		l, e, ok := n.follows(id)
		if !ok {
			n.t.Fatalf("%s: node %d follows nobody (live %v)", n.alg, id, live)
		}
		if l != want {
			n.t.Fatalf("%s: node %d follows %d in epoch %s, want %d (live %v)", n.alg, id, l, e, want, live)
		}
		if epoch == "" {
			epoch = e
		} else if e != epoch {
			n.t.Fatalf("%s: node %d follows %d in epoch %s, others in epoch %s", n.alg, id, l, e, epoch)
		}
	}
	return epoch
}

// ids returns n distinct member IDs, ascending, spread out so that IDs and
// ring positions are never confused.
func ids(n int) []protocol.NodeID {
	out := make([]protocol.NodeID, n)
	for i := range out {
		out[i] = protocol.NodeID(3 + 7*i)
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// shuffled randomises the delivery order with its own seed.
func shuffled(seed uint64) func(*network) {
	return func(n *network) {
		n.jitter = true
		n.rng = rand.New(rand.NewPCG(seed, 0x6a6974))
	}
}

// lossy drops a fraction of the frames, drawn from seed.
func lossy(p float64, seed uint64) func(*network) {
	return func(n *network) {
		n.loss = p
		n.rng = rand.New(rand.NewPCG(seed, 0x6c6f73))
	}
}
