package invitation

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"manetlab/protocol"
)

// network is an in-memory network in virtual time, in the manner of
// etcd-raft's tests: radio links that the test cuts and heals (partitions),
// multi-hop delivery along live links (Deliver reaches a node if a path
// of live nodes and links joins them when it is sent, after one latency
// per hop), one-hop Send to neighbours only, neighbour events when links
// or nodes come and go, seeded loss, crashes that keep the node's stable
// storage, timers, and a check of the invariants after every step. Every
// random choice comes from one seeded source.
type network struct {
	t       testing.TB
	members []protocol.NodeID
	params  protocol.Params
	seed    uint64

	now    time.Duration
	seq    uint64
	queue  events
	timers map[protocol.TimerID]bool // pending, not cancelled
	nextID protocol.TimerID
	nodes  map[protocol.NodeID]*simNode
	cut    map[[2]protocol.NodeID]bool // links down (lower ID first)
	// linked, when set, says which pairs are in radio range at all
	// (default: every pair): a line, say.
	linked func(a, b protocol.NodeID) bool

	rng    *rand.Rand
	jitter bool    // random latencies
	loss   float64 // fraction of messages dropped

	sent   map[string]int // messages sent, by kind
	notes  []noteRec
	groups map[Group]bool // every group named (election-start of its coordinator)
	steps  int
}

type simNode struct {
	id    protocol.NodeID
	proc  *Node
	env   *simEnv
	store protocol.Store
	alive bool
	gen   int
	nbrs  map[protocol.NodeID]bool // the neighbours it was told about
}

type noteRec struct {
	at   time.Duration
	node protocol.NodeID
	gen  int
	protocol.Note
}

// event is a message in flight, a timer or a neighbour event.
type event struct {
	at    time.Duration
	seq   uint64
	to    protocol.NodeID
	from  protocol.NodeID
	msg   protocol.Message // a message, unless ev or timer
	hops  int
	ev    protocol.Event // NeighborUp or NeighborDown
	timer protocol.TimerID
	name  string
	arg   int64
	gen   int // the incarnation it is for
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

// simEnv is one incarnation's protocol.Env.
type simEnv struct {
	net  *network
	node *simNode
	gen  int
	rng  *rand.Rand
}

func (e *simEnv) Now() time.Duration { return e.net.now }
func (e *simEnv) Send(to protocol.NodeID, m protocol.Message) {
	n := e.net
	if !n.link(e.node.id, to) || !n.nodes[to].alive {
		n.count(m)
		return // the link layer gives up: nobody in range
	}
	n.transmit(e.node.id, to, m, 1)
}
func (e *simEnv) Broadcast(protocol.Message) {
	e.net.t.Fatalf("node %d: invitation does not Broadcast", e.node.id)
}
func (e *simEnv) Flood(protocol.Message) {
	e.net.t.Fatalf("node %d: invitation does not Flood", e.node.id)
}
func (e *simEnv) Deliver(to protocol.NodeID, m protocol.Message) {
	n := e.net
	if to == e.node.id {
		n.t.Fatalf("node %d delivers %s to itself", to, m.Kind())
	}
	if n.nodes[e.node.id].proc.set.reach == ReachOneHop {
		n.t.Fatalf("node %d: one-hop reach uses Deliver", e.node.id)
	}
	hops := n.hops(e.node.id, to)
	if hops == 0 {
		n.count(m)
		return // no path now
	}
	n.transmit(e.node.id, to, m, hops)
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
	n := e.net
	n.notes = append(n.notes, noteRec{at: n.now, node: e.node.id, gen: e.gen, Note: nt})
	if nt.Kind == protocol.NoteElectionStart {
		var g Group
		if _, err := fmt.Sscanf(nt.Epoch, "%d.%d", &g.Coord, &g.Counter); err != nil {
			n.t.Fatalf("node %d: election-start with epoch %q: %v", e.node.id, nt.Epoch, err)
		}
		if g.Coord == e.node.id {
			if n.groups[g] {
				n.t.Fatalf("%v: node %d names group %s a second time", n.now, e.node.id, g)
			}
			n.groups[g] = true
		}
	}
}
func (e *simEnv) Logf(format string, args ...any) {
	e.net.t.Logf("%v node %d: %s", e.net.now, e.node.id, fmt.Sprintf(format, args...))
}

// newNetwork builds the members (every pair in range unless an option
// says otherwise) and boots them at time 0; opts adjust the network first.
func newNetwork(t testing.TB, members []protocol.NodeID, params protocol.Params, seed uint64, opts ...func(*network)) *network {
	t.Helper()
	n := &network{
		t: t, members: members, params: params, seed: seed,
		timers: map[protocol.TimerID]bool{}, nodes: map[protocol.NodeID]*simNode{}, cut: map[[2]protocol.NodeID]bool{},
		rng: rand.New(rand.NewPCG(seed, 0x6e6574)), sent: map[string]int{}, groups: map[Group]bool{},
	}
	for _, id := range members {
		n.nodes[id] = &simNode{id: id, store: &protocol.MemStore{}}
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

func key(a, b protocol.NodeID) [2]protocol.NodeID {
	if a > b {
		a, b = b, a
	}
	return [2]protocol.NodeID{a, b}
}

// link reports whether a and b are in radio range now.
func (n *network) link(a, b protocol.NodeID) bool {
	return a != b && !n.cut[key(a, b)] && (n.linked == nil || n.linked(a, b))
}

// hops is the length of the shortest path of live nodes and links from a
// to b, 0 if there is none.
func (n *network) hops(a, b protocol.NodeID) int {
	dist := map[protocol.NodeID]int{a: 0}
	frontier := []protocol.NodeID{a}
	for len(frontier) > 0 {
		var next []protocol.NodeID
		for _, u := range frontier {
			for _, v := range n.members {
				if _, ok := dist[v]; ok || !n.nodes[v].alive || !n.link(u, v) {
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

func (n *network) count(m protocol.Message) { n.sent[m.Kind()]++ }

// transmit counts m as a driver's send event would and queues it, unless
// it is lost.
func (n *network) transmit(from, to protocol.NodeID, m protocol.Message, hops int) {
	n.count(m)
	if n.loss > 0 && n.rng.Float64() < n.loss {
		return
	}
	lat := time.Duration(hops) * time.Millisecond
	if n.jitter {
		lat += time.Duration(n.rng.Int64N(int64(5 * time.Millisecond)))
	}
	n.push(event{at: n.now + lat, to: to, from: from, msg: m, hops: hops, gen: n.nodes[to].gen})
}

func (n *network) boot(id protocol.NodeID) {
	sn := n.nodes[id]
	sn.gen++
	sn.alive = true
	sn.nbrs = map[protocol.NodeID]bool{}
	sn.env = &simEnv{net: n, node: sn, gen: sn.gen, rng: rand.New(rand.NewPCG(n.seed, uint64(id)<<32|uint64(sn.gen)))}
	p, err := newNode(protocol.Config{ID: id, Members: n.members, Params: n.params, Seed: n.seed, Env: sn.env, Store: sn.store})
	if err != nil {
		n.t.Fatalf("node %d: %v", id, err)
	}
	sn.proc = p
	n.step(sn, protocol.Start{})
	n.neighbours()
}

// neighbours tells every live node, after a short delay, of the
// neighbours it gained and lost, as neighbour discovery would.
func (n *network) neighbours() {
	for _, a := range n.members {
		sa := n.nodes[a]
		if !sa.alive {
			continue
		}
		for _, b := range n.members {
			up := n.nodes[b].alive && n.link(a, b)
			if up == sa.nbrs[b] {
				continue
			}
			if up {
				sa.nbrs[b] = true
				n.push(event{at: n.now + 10*time.Millisecond, to: a, ev: protocol.NeighborUp{ID: b}, gen: sa.gen})
			} else {
				delete(sa.nbrs, b)
				n.push(event{at: n.now + 10*time.Millisecond, to: a, ev: protocol.NeighborDown{ID: b}, gen: sa.gen})
			}
		}
	}
}

// crash stops a node: it loses its state but not its stable storage.
func (n *network) crash(id protocol.NodeID) {
	sn := n.nodes[id]
	sn.alive = false
	sn.proc, sn.env = nil, nil
	n.neighbours()
}

// recover boots a crashed node as a fresh process over its storage.
func (n *network) recover(id protocol.NodeID) {
	if n.nodes[id].alive {
		n.t.Fatalf("node %d recovers but never crashed", id)
	}
	n.boot(id)
}

// partition cuts every link between the groups given (nodes not listed
// keep their links).
func (n *network) partition(groups ...[]protocol.NodeID) {
	for i, g := range groups {
		for _, h := range groups[i+1:] {
			for _, a := range g {
				for _, b := range h {
					n.cut[key(a, b)] = true
				}
			}
		}
	}
	n.neighbours()
}

// heal restores every link.
func (n *network) heal() {
	clear(n.cut)
	n.neighbours()
}

func (n *network) step(sn *simNode, ev protocol.Event) {
	n.steps++
	sn.proc.Step(ev)
	n.invariants(sn)
}

// invariants checks what must hold after every step: a node in
// Reorganization or Normal is in a group named by its coordinator
// (Assertion 3: nodes in one group share the coordinator), a coordinator
// of a group is its own coordinator, and the counter in stable storage is
// the one the node last used.
func (n *network) invariants(sn *simNode) {
	p := sn.proc
	if p.status == Reorganization || p.status == Normal {
		if p.coord == protocol.None || p.coord != p.group.Coord {
			n.t.Fatalf("%v: node %d in %v has coordinator %d in group %s", n.now, sn.id, p.status, p.coord, p.group)
		}
		if p.coord == sn.id && p.group.Counter > p.counter {
			n.t.Fatalf("%v: node %d coordinates group %s beyond its counter %d", n.now, sn.id, p.group, p.counter)
		}
	}
	if b, ok := sn.store.Get(StoreKey); ok && string(b) != strconv.FormatUint(p.counter, 10) {
		n.t.Fatalf("%v: node %d has counter %d, its storage %s", n.now, sn.id, p.counter, b)
	}
}

type action struct {
	at time.Duration
	fn func()
}

// run pumps messages, neighbour events and timers until the virtual time
// passes until, running the actions at their times.
func (n *network) run(until time.Duration, actions ...action) {
	n.t.Helper()
	slices.SortStableFunc(actions, func(a, b action) int { return int(a.at - b.at) })
	for {
		if n.steps > 3_000_000 {
			n.t.Fatalf("more than 3M steps by %v: a livelock?", n.now)
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
			n.now = max(n.now, until)
			return
		}
		e := heap.Pop(&n.queue).(event)
		n.now = e.at
		sn := n.nodes[e.to]
		if !sn.alive || e.gen != sn.gen {
			continue
		}
		switch {
		case e.ev != nil:
			n.step(sn, e.ev)
		case e.msg == nil:
			if !n.timers[e.timer] {
				continue
			}
			delete(n.timers, e.timer)
			n.step(sn, protocol.Timeout{ID: e.timer, Name: e.name, Arg: e.arg})
		default:
			n.step(sn, protocol.Receive{From: e.from, Hops: e.hops, Msg: e.msg})
		}
	}
}

// counts splits the messages sent as trace/analysis does: the election's,
// the announcement's, control and transport.
func (n *network) counts() (election, announce, control, transport int) {
	spec, err := protocol.Lookup(Name)
	if err != nil {
		n.t.Fatal(err)
	}
	cls := map[string]int{}
	for _, k := range spec.Complexity.Announce {
		cls[k] = 1
	}
	for _, k := range spec.Complexity.Control {
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

// components are the sets of live nodes joined by live links (multi-hop).
func (n *network) components() [][]protocol.NodeID {
	var out [][]protocol.NodeID
	done := map[protocol.NodeID]bool{}
	for _, a := range n.members {
		if done[a] || !n.nodes[a].alive {
			continue
		}
		c := []protocol.NodeID{a}
		done[a] = true
		for _, b := range n.members {
			if !done[b] && n.nodes[b].alive && n.hops(a, b) > 0 {
				c = append(c, b)
				done[b] = true
			}
		}
		out = append(out, c)
	}
	return out
}

// checkGroups fails unless every component is one group in Normal led by
// its highest live ID, and returns the groups by component.
func (n *network) checkGroups() []Group {
	n.t.Helper()
	var gs []Group
	for _, c := range n.components() {
		want := slices.Max(c)
		var g Group
		for _, id := range c {
			p := n.nodes[id].proc
			if p.status != Normal || p.coord != want || g != (Group{}) && p.group != g {
				n.t.Fatalf("%v: component %v: node %d is %v in group %s under %d; want Normal under %d (in one group)\n%s",
					n.now, c, id, p.status, p.group, p.coord, want, n.describe())
			}
			g = p.group
		}
		// The leader notes agree with the state.
		for _, id := range c {
			l, e := n.follows(id)
			if l != want || e != g.String() {
				n.t.Fatalf("node %d last noted leader %d in %q; its state says %d in %s", id, l, e, want, g)
			}
		}
		gs = append(gs, g)
	}
	return gs
}

// follows is a live node's current incarnation's last leader note.
func (n *network) follows(id protocol.NodeID) (protocol.NodeID, string) {
	sn := n.nodes[id]
	for i := len(n.notes) - 1; i >= 0; i-- {
		r := n.notes[i]
		if r.node == id && r.gen == sn.gen && r.Kind == protocol.NoteLeader {
			return r.Leader, r.Epoch
		}
	}
	return protocol.None, ""
}

func (n *network) describe() string {
	s := ""
	for _, id := range n.members {
		sn := n.nodes[id]
		if !sn.alive {
			s += fmt.Sprintf("  %d: down\n", id)
			continue
		}
		p := sn.proc
		s += fmt.Sprintf("  %d: %v coord %d group %s up %v counter %d\n", id, p.status, p.coord, p.group, p.up, p.counter)
	}
	return s
}

func ids(k int) []protocol.NodeID {
	out := make([]protocol.NodeID, k)
	for i := range out {
		out[i] = protocol.NodeID(i + 1)
	}
	return out
}

// lossy drops a fraction of the messages and randomises latencies, with
// its own seed.
func lossy(p float64, seed uint64) func(*network) {
	return func(n *network) {
		n.loss, n.jitter = p, true
		n.rng = rand.New(rand.NewPCG(seed, 0x6c6f73))
	}
}

// line puts the members on a line: only consecutive IDs are in range.
func line(n *network) {
	n.linked = func(a, b protocol.NodeID) bool { return a+1 == b || b+1 == a }
}

// failingStore is stable storage whose writes fail while broken is set.
type failingStore struct {
	protocol.MemStore
	broken bool
}

func (s *failingStore) Put(key string, value []byte) error {
	if s.broken {
		return errors.New("disk full")
	}
	return s.MemStore.Put(key, value)
}
