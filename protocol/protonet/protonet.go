// Package protonet is an in-memory network in virtual time for testing a
// protocol event by event, in the manner of etcd-raft's tests: it delivers
// what the nodes Deliver after a latency (fixed, or drawn from a seeded
// source so that frames overtake each other), runs timers in virtual time,
// drops a fraction of frames, cuts links (partitions), crashes and
// recovers nodes (a recovered node is a fresh Process that keeps its
// stable storage, protocol.Config.Store), and counts the frames sent by
// kind as a driver does. Every random choice comes from one seeded source,
// so a seed reproduces a run.
//
// The protocols it runs send with Env.Deliver (the ring, bully and
// invitation families, over protocol/reliable); Broadcast and Flood fail
// the test, and so does Send but on a radio network (option Radio: links
// in range, hop counts, neighbour events, partitions). AfterStep checks
// invariants after every step. It imports protocol and the standard library, and testing
// only for testing.TB; tests of protocol packages import it.
package protonet

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
)

// Network is the in-memory network. Its exported fields may be set by
// options before the boot and changed between runs.
type Network struct {
	T       testing.TB
	Alg     string
	Spec    protocol.Spec
	Members []protocol.NodeID
	Params  protocol.Params
	Seed    uint64

	// Now is the virtual time.
	Now    time.Duration
	seq    uint64
	queue  events
	timers map[protocol.TimerID]bool // pending, not cancelled
	nextID protocol.TimerID
	Nodes  map[protocol.NodeID]*Node

	Rng    *rand.Rand
	Jitter bool    // random latencies: delivery order randomised
	Loss   float64 // fraction of frames dropped
	// Latency, when set, is the fixed latency of a frame (default 1ms);
	// with Jitter it is ignored.
	Latency time.Duration

	// CrashAfter, when it returns true for the event a node is about to
	// handle, crashes the node right after the step: only the
	// acknowledgements it sent in that step get out (it crashed after
	// acknowledging, before forwarding).
	CrashAfter func(id protocol.NodeID, ev protocol.Event) bool
	// CrashKeeps lets everything the step sent out: the node crashed
	// after forwarding.
	CrashKeeps bool

	// Sent counts the frames sent, by kind.
	Sent  map[string]int
	Notes []NoteRec
	Steps int
	// MaxSteps fails the test when exceeded (a livelock); 0 means 5M.
	MaxSteps int

	cut map[[2]protocol.NodeID]bool // links that drop every frame

	// AfterStep, when set, runs after every step of a node: the test's
	// per-step invariant checks.
	AfterStep func(sn *Node)
	// SendOnly makes Deliver fail the test (radio: the protocol sends one
	// hop, with Send only).
	SendOnly bool

	radio *radio // nil: every pair linked, Deliver only
}

// radio is the topology of a radio network (see Radio).
type radio struct {
	linked func(a, b protocol.NodeID) bool
	nbrs   map[protocol.NodeID]map[protocol.NodeID]bool // told, by node
}

// Node is one member: its current incarnation, if alive, and its stable
// storage, which survives crashes.
type Node struct {
	ID    protocol.NodeID
	Proc  protocol.Process
	Env   *Env
	Alive bool
	Gen   int // incarnations booted so far
	Store protocol.Store
}

// NoteRec is a trace note with when and where it was made.
type NoteRec struct {
	At   time.Duration
	Node protocol.NodeID
	Gen  int
	protocol.Note
}

// Frame is a frame in flight or a timer.
type Frame struct {
	At    time.Duration
	seq   uint64
	To    protocol.NodeID
	From  protocol.NodeID
	Msg   protocol.Message // nil for a timer or a neighbour event
	Hops  int
	Ev    protocol.Event // NeighborUp or NeighborDown (radio)
	timer protocol.TimerID
	name  string
	arg   int64
	gen   int // the incarnation that set the timer (radio: that a frame is for)
}

type events []Frame

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	if q[i].At != q[j].At {
		return q[i].At < q[j].At
	}
	return q[i].seq < q[j].seq
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(Frame)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Env is one incarnation's protocol.Env. Frames sent during a step wait
// in Out until the step is over; a test stepping a node by hand may clear
// Out to drop them.
type Env struct {
	net  *Network
	node *Node
	gen  int
	rng  *rand.Rand
	Out  []Frame
}

// Now implements protocol.Env.
func (e *Env) Now() time.Duration { return e.net.Now }

// Send sends m one hop to a neighbour on a radio network; without Radio
// it fails the test: the protocols run there use Deliver.
func (e *Env) Send(to protocol.NodeID, m protocol.Message) {
	if e.net.radio == nil {
		e.net.T.Fatalf("node %d: %s sends with Deliver, not Send", e.node.ID, e.net.Alg)
	}
	e.Out = append(e.Out, Frame{To: to, From: e.node.ID, Msg: m, Hops: -1})
}

// Broadcast fails the test.
func (e *Env) Broadcast(protocol.Message) {
	e.net.T.Fatalf("node %d: %s does not Broadcast", e.node.ID, e.net.Alg)
}

// Flood fails the test.
func (e *Env) Flood(protocol.Message) {
	e.net.T.Fatalf("node %d: %s does not Flood", e.node.ID, e.net.Alg)
}

// Deliver implements protocol.Env.
func (e *Env) Deliver(to protocol.NodeID, m protocol.Message) {
	if to == e.node.ID {
		e.net.T.Fatalf("node %d delivers %s to itself", to, m.Kind())
	}
	if e.net.SendOnly {
		e.net.T.Fatalf("node %d: one-hop reach uses Deliver", e.node.ID)
	}
	e.Out = append(e.Out, Frame{To: to, From: e.node.ID, Msg: m})
}

// SetTimer implements protocol.Env.
func (e *Env) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	n := e.net
	n.nextID++
	n.timers[n.nextID] = true
	n.push(Frame{At: n.Now + max(after, 0), To: e.node.ID, timer: n.nextID, name: name, arg: arg, gen: e.gen})
	return n.nextID
}

// CancelTimer implements protocol.Env.
func (e *Env) CancelTimer(id protocol.TimerID) { delete(e.net.timers, id) }

// Rand implements protocol.Env.
func (e *Env) Rand() *rand.Rand { return e.rng }

// Note implements protocol.Env.
func (e *Env) Note(nt protocol.Note) {
	e.net.Notes = append(e.net.Notes, NoteRec{At: e.net.Now, Node: e.node.ID, Gen: e.gen, Note: nt})
}

// Logf implements protocol.Env.
func (e *Env) Logf(format string, args ...any) {
	e.net.T.Logf("%v node %d: %s", e.net.Now, e.node.ID, fmt.Sprintf(format, args...))
}

// New builds and boots every member of alg at time 0; opts adjust the
// network before the boot.
func New(t testing.TB, alg string, members []protocol.NodeID, params protocol.Params, seed uint64, opts ...func(*Network)) *Network {
	t.Helper()
	spec, err := protocol.Lookup(alg)
	if err != nil {
		t.Fatal(err)
	}
	n := &Network{
		T: t, Alg: alg, Spec: spec, Members: members, Params: params, Seed: seed,
		timers: map[protocol.TimerID]bool{}, Nodes: map[protocol.NodeID]*Node{},
		Rng:  rand.New(rand.NewPCG(seed, 0x6e6574)),
		Sent: map[string]int{},
	}
	for _, id := range members {
		n.Nodes[id] = &Node{ID: id, Store: &protocol.MemStore{}}
	}
	for _, o := range opts {
		o(n)
	}
	for _, id := range members {
		n.boot(id)
	}
	return n
}

func (n *Network) push(e Frame) {
	n.seq++
	e.seq = n.seq
	heap.Push(&n.queue, e)
}

func (n *Network) boot(id protocol.NodeID) {
	sn := n.Nodes[id]
	sn.Gen++
	sn.Alive = true
	sn.Env = &Env{net: n, node: sn, gen: sn.Gen, rng: rand.New(rand.NewPCG(n.Seed, uint64(id)<<32|uint64(sn.Gen)))}
	p, err := n.Spec.New(protocol.Config{ID: id, Members: n.Members, Params: n.Params, Seed: n.Seed, Env: sn.Env, Store: sn.Store})
	if err != nil {
		n.T.Fatalf("node %d: %v", id, err)
	}
	sn.Proc = p
	n.step(sn, protocol.Start{})
	if n.radio != nil {
		n.radio.nbrs[id] = map[protocol.NodeID]bool{}
		n.neighbours()
	}
}

// Crash stops a node: it loses its state (not its stable storage), and
// frames and timers for it are dropped.
func (n *Network) Crash(id protocol.NodeID) {
	sn := n.Nodes[id]
	sn.Alive = false
	sn.Proc, sn.Env = nil, nil
	n.neighbours()
}

// Recover boots a crashed node as a fresh process with its stable storage.
func (n *Network) Recover(id protocol.NodeID) {
	if n.Nodes[id].Alive {
		n.T.Fatalf("node %d recovers but never crashed", id)
	}
	n.boot(id)
}

// Cut drops every frame between a node of a and a node of b, both ways,
// from now on (frames in flight included, but on a radio network, where
// a frame's path is fixed when it is sent): a partition.
func (n *Network) Cut(a, b []protocol.NodeID) { n.Partition(a, b) }

// Partition cuts every link between nodes of different groups (nodes not
// listed keep their links).
func (n *Network) Partition(groups ...[]protocol.NodeID) {
	if n.cut == nil {
		n.cut = map[[2]protocol.NodeID]bool{}
	}
	for i, g := range groups {
		for _, h := range groups[i+1:] {
			for _, x := range g {
				for _, y := range h {
					n.cut[[2]protocol.NodeID{x, y}] = true
					n.cut[[2]protocol.NodeID{y, x}] = true
				}
			}
		}
	}
	n.neighbours()
}

// Heal restores every link cut.
func (n *Network) Heal() {
	n.cut = nil
	n.neighbours()
}

// Radio makes the network a radio network: linked says which pairs are in
// range at all (nil: every pair), and Cut, Partition and Heal take links
// down and up. Send reaches a live neighbour in range, one hop; Deliver
// reaches a node along the shortest path of live nodes and links when it
// is sent (Hops its length, one latency per hop, random jitter up to 5ms
// added), and a frame goes to the incarnation live when it was sent; a
// frame nobody can reach is counted and dropped. Every live node is told,
// 10ms later, of the neighbours it gains and loses (NeighborUp,
// NeighborDown), at its boot too.
func Radio(linked func(a, b protocol.NodeID) bool) func(*Network) {
	return func(n *Network) {
		n.radio = &radio{linked: linked, nbrs: map[protocol.NodeID]map[protocol.NodeID]bool{}}
	}
}

// Link reports whether a and b are in radio range now (without Radio:
// whether frames from a reach b).
func (n *Network) Link(a, b protocol.NodeID) bool {
	if n.radio == nil {
		return n.Connected(a, b)
	}
	return a != b && !n.cut[[2]protocol.NodeID{a, b}] && (n.radio.linked == nil || n.radio.linked(a, b))
}

// Hops is the length of the shortest path of live nodes and links from a
// to b, 0 if there is none.
func (n *Network) Hops(a, b protocol.NodeID) int {
	dist := map[protocol.NodeID]int{a: 0}
	frontier := []protocol.NodeID{a}
	for len(frontier) > 0 {
		var next []protocol.NodeID
		for _, u := range frontier {
			for _, v := range n.Members {
				if _, ok := dist[v]; ok || !n.Nodes[v].Alive || !n.Link(u, v) {
					continue
				}
				dist[v] = dist[u] + 1
				if v == b {
					return dist[v]
				}
				next = append(next, v)
			}
		}
		frontier = next
	}
	return 0
}

// Components are the sets of live nodes joined by live links (multi-hop),
// each in the members' order.
func (n *Network) Components() [][]protocol.NodeID {
	var out [][]protocol.NodeID
	done := map[protocol.NodeID]bool{}
	for _, a := range n.Members {
		if done[a] || !n.Nodes[a].Alive {
			continue
		}
		c := []protocol.NodeID{a}
		done[a] = true
		for _, b := range n.Members {
			if !done[b] && n.Nodes[b].Alive && n.Hops(a, b) > 0 {
				c = append(c, b)
				done[b] = true
			}
		}
		out = append(out, c)
	}
	return out
}

// neighbours tells every live node of a radio network, after 10ms, of
// the neighbours it gained and lost, in the members' order.
func (n *Network) neighbours() {
	if n.radio == nil {
		return
	}
	for _, a := range n.Members {
		sa := n.Nodes[a]
		if !sa.Alive {
			continue
		}
		told := n.radio.nbrs[a]
		for _, b := range n.Members {
			up := n.Nodes[b].Alive && n.Link(a, b)
			if up == told[b] {
				continue
			}
			var ev protocol.Event = protocol.NeighborDown{ID: b}
			if up {
				told[b] = true
				ev = protocol.NeighborUp{ID: b}
			} else {
				delete(told, b)
			}
			n.push(Frame{At: n.Now + 10*time.Millisecond, To: a, Ev: ev, gen: sa.Gen})
		}
	}
}

// Connected reports whether frames from a reach b (no cut between them).
func (n *Network) Connected(a, b protocol.NodeID) bool { return !n.cut[[2]protocol.NodeID{a, b}] }

func (n *Network) latency(hops int) time.Duration {
	if n.radio != nil {
		per := time.Millisecond
		if n.Latency > 0 {
			per = n.Latency
		}
		lat := time.Duration(hops) * per
		if n.Jitter {
			lat += time.Duration(n.Rng.Int64N(int64(5 * time.Millisecond)))
		}
		return lat
	}
	if n.Jitter {
		return 100*time.Microsecond + time.Duration(n.Rng.Int64N(int64(20*time.Millisecond)))
	}
	if n.Latency > 0 {
		return n.Latency
	}
	return time.Millisecond
}

// step hands ev to a node and then sends what it delivered, counting each
// frame by kind as a driver's send event would.
func (n *Network) step(sn *Node, ev protocol.Event) {
	n.Steps++
	crash := n.CrashAfter != nil && n.CrashAfter(sn.ID, ev)
	env := sn.Env
	sn.Proc.Step(ev)
	out := env.Out
	env.Out = nil
	for _, f := range out {
		if crash && !n.CrashKeeps && f.Msg.Kind() != "transport-ack" {
			continue
		}
		n.Sent[f.Msg.Kind()]++
		if n.radio != nil && !n.route(&f) {
			continue // nobody in range, no path: the link layer gives up
		}
		if n.Loss > 0 && n.Rng.Float64() < n.Loss {
			continue
		}
		f.At = n.Now + n.latency(f.Hops)
		n.push(f)
	}
	if n.AfterStep != nil {
		n.AfterStep(sn)
	}
	if crash {
		n.Crash(sn.ID)
	}
}

// route fixes a frame's path on a radio network now: one hop to a live
// neighbour for Send (Hops -1), the shortest path for Deliver. It reports
// false if there is none.
func (n *Network) route(f *Frame) bool {
	to := n.Nodes[f.To]
	if f.Hops < 0 {
		f.Hops = 1
		if !n.Link(f.From, f.To) || !to.Alive {
			return false
		}
	} else if f.Hops = n.Hops(f.From, f.To); f.Hops == 0 {
		return false
	}
	f.gen = to.Gen
	return true
}

// Action is something done at virtual time At (a fault or a command).
type Action struct {
	At time.Duration
	Fn func()
}

// Run pumps frames and timers until nothing is pending or the virtual time
// passes until, running the actions at their times.
func (n *Network) Run(until time.Duration, actions ...Action) {
	n.T.Helper()
	limit := n.MaxSteps
	if limit == 0 {
		limit = 5_000_000
	}
	actions = slices.Clone(actions)
	slices.SortStableFunc(actions, func(a, b Action) int { return int(a.At - b.At) })
	for {
		if n.Steps > limit {
			n.T.Fatalf("%s: more than %d steps by %v: a livelock?", n.Alg, limit, n.Now)
		}
		next := until + 1
		if len(n.queue) > 0 {
			next = n.queue[0].At
		}
		if len(actions) > 0 && actions[0].At <= next && actions[0].At <= until {
			n.Now = max(n.Now, actions[0].At)
			actions[0].Fn()
			actions = actions[1:]
			continue
		}
		if len(n.queue) == 0 || next > until {
			return
		}
		e := heap.Pop(&n.queue).(Frame)
		n.Now = e.At
		sn := n.Nodes[e.To]
		if sn == nil || !sn.Alive {
			continue
		}
		if n.radio != nil && e.gen != sn.Gen {
			continue
		}
		if e.Ev != nil {
			n.step(sn, e.Ev)
			continue
		}
		if e.Msg == nil {
			if !n.timers[e.timer] || e.gen != sn.Gen {
				continue
			}
			delete(n.timers, e.timer)
			n.step(sn, protocol.Timeout{ID: e.timer, Name: e.name, Arg: e.arg})
			continue
		}
		if n.radio != nil {
			n.step(sn, protocol.Receive{From: e.From, Hops: e.Hops, Msg: e.Msg})
			continue
		}
		if n.cut[[2]protocol.NodeID{e.From, e.To}] {
			continue
		}
		n.step(sn, protocol.Receive{From: e.From, Hops: 1, Msg: e.Msg})
	}
}

// Command issues a workload command to a live node now.
func (n *Network) Command(id protocol.NodeID, name protocol.CommandName) {
	if sn := n.Nodes[id]; sn.Alive {
		n.step(sn, protocol.Command{Name: name})
	}
}

// Step hands ev to a live node now, as the driver would.
func (n *Network) Step(id protocol.NodeID, ev protocol.Event) {
	if sn := n.Nodes[id]; sn.Alive {
		n.step(sn, ev)
	}
}

// Counts splits the frames sent into the election's, the announcement's,
// the control messages and the transport's, as trace/analysis does with
// the protocol's Complexity.
func (n *Network) Counts() (election, announce, control, transport int) {
	cls := map[string]int{}
	if c := n.Spec.Complexity; c != nil {
		for _, k := range c.Announce {
			cls[k] = 1
		}
		for _, k := range c.Control {
			cls[k] = 2
		}
	}
	for k, c := range n.Sent {
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

// AlgorithmKinds is the count by kind of everything but transport.
func (n *Network) AlgorithmKinds() map[string]int {
	m := map[string]int{}
	for k, c := range n.Sent {
		if !protocol.IsTransport(k) {
			m[k] = c
		}
	}
	return m
}

// Live lists the live members, ascending.
func (n *Network) Live() []protocol.NodeID {
	var ids []protocol.NodeID
	for _, id := range n.Members {
		if n.Nodes[id].Alive {
			ids = append(ids, id)
		}
	}
	return ids
}

// Follows is what a live node follows: its current incarnation's last
// leader note (ok false if it has none).
func (n *Network) Follows(id protocol.NodeID) (leader protocol.NodeID, epoch string, ok bool) {
	sn := n.Nodes[id]
	for i := len(n.Notes) - 1; i >= 0; i-- {
		r := n.Notes[i]
		if r.Node == id && r.Gen == sn.Gen && r.Kind == protocol.NoteLeader {
			return r.Leader, r.Epoch, true
		}
	}
	return 0, "", false
}

// CheckSafety fails the test if an epoch has two leaders.
func (n *Network) CheckSafety() {
	n.T.Helper()
	leaders := map[string]protocol.NodeID{}
	for _, r := range n.Notes {
		if r.Kind != protocol.NoteLeader || r.Leader == protocol.None {
			continue
		}
		if l, ok := leaders[r.Epoch]; ok && l != r.Leader {
			n.T.Fatalf("%s: epoch %s has two leaders, %d and %d (node %d at %v)", n.Alg, r.Epoch, l, r.Leader, r.Node, r.At)
		}
		leaders[r.Epoch] = r.Leader
	}
}

// CheckElected fails the test unless every live node follows the highest
// live ID in one epoch, and returns that epoch.
func (n *Network) CheckElected() string {
	n.T.Helper()
	return n.CheckGroup(n.Live())
}

// CheckGroup fails the test unless every node of group (live nodes that
// can all reach each other) follows the group's highest ID in one epoch,
// and returns that epoch. It checks safety first.
func (n *Network) CheckGroup(group []protocol.NodeID) string {
	n.T.Helper()
	n.CheckSafety()
	if len(group) == 0 {
		return ""
	}
	want := slices.Max(group)
	var epoch string
	for _, id := range group {
		l, e, ok := n.Follows(id)
		if !ok {
			n.T.Fatalf("%s: node %d follows nobody (group %v)", n.Alg, id, group)
		}
		if l != want {
			n.T.Fatalf("%s: node %d follows %d in epoch %s, want %d (group %v)", n.Alg, id, l, e, want, group)
		}
		if epoch == "" {
			epoch = e
		} else if e != epoch {
			n.T.Fatalf("%s: node %d follows %d in epoch %s, others in epoch %s", n.Alg, id, l, e, epoch)
		}
	}
	return epoch
}

// IDs returns n distinct member IDs, ascending, spread out (3, 10, 17...)
// so that IDs and positions are never confused.
func IDs(n int) []protocol.NodeID {
	out := make([]protocol.NodeID, n)
	for i := range out {
		out[i] = protocol.NodeID(3 + 7*i)
	}
	return out
}

// Shuffled randomises the delivery order with its own seed.
func Shuffled(seed uint64) func(*Network) {
	return func(n *Network) {
		n.Jitter = true
		n.Rng = rand.New(rand.NewPCG(seed, 0x6a6974))
	}
}

// Lossy drops a fraction of the frames, drawn from seed.
func Lossy(p float64, seed uint64) func(*Network) {
	return func(n *Network) {
		n.Loss = p
		n.Rng = rand.New(rand.NewPCG(seed, 0x6c6f73))
	}
}

// NewEnv returns an Env for node id on a network of its own that never
// runs: for building a Process to inspect (its parameters, its first
// steps) without a network. Its frames stay in Out and its timers never
// fire.
func NewEnv(t testing.TB, id protocol.NodeID) *Env {
	n := &Network{T: t, timers: map[protocol.TimerID]bool{}, Nodes: map[protocol.NodeID]*Node{}, Sent: map[string]int{},
		Rng: rand.New(rand.NewPCG(0, 0))}
	sn := &Node{ID: id, Alive: true, Gen: 1, Store: &protocol.MemStore{}}
	n.Nodes[id] = sn
	sn.Env = &Env{net: n, node: sn, gen: 1, rng: rand.New(rand.NewPCG(0, uint64(id)))}
	return sn.Env
}
