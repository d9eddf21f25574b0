package reliable

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
)

// network pumps frames between channels in virtual time through a seeded
// filter that drops, duplicates and delays (hence reorders) them.
type network struct {
	rng      *rand.Rand
	now      time.Duration
	queue    events
	order    int // tie-break: events at one instant run in the order queued
	drop     float64
	dup      float64
	maxDelay time.Duration
	nodes    map[protocol.NodeID]*netNode
}

type netNode struct {
	id     protocol.NodeID
	ch     *Channel[msg]
	env    *netEnv
	got    map[protocol.NodeID][]int // delivered, per sender
	failed map[protocol.NodeID][]int // reported unacked, per peer
	nextN  map[protocol.NodeID]int   // the next message number, per peer
}

type event struct {
	at    time.Duration
	order int
	node  protocol.NodeID
	ev    protocol.Event // nil: the test's send action
	to    protocol.NodeID
}

type events []event

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].order < q[j].order
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(event)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (n *network) at(after time.Duration, e event) {
	n.order++
	e.at, e.order = n.now+after, n.order
	heap.Push(&n.queue, e)
}

// netEnv is one node's Env on the network.
type netEnv struct {
	n      *network
	id     protocol.NodeID
	nextID protocol.TimerID
	active map[protocol.TimerID]bool
}

func (e *netEnv) Now() time.Duration                     { return e.n.now }
func (e *netEnv) Send(protocol.NodeID, protocol.Message) { panic("reliable uses Deliver only") }
func (e *netEnv) Broadcast(protocol.Message)             { panic("reliable uses Deliver only") }
func (e *netEnv) Flood(protocol.Message)                 { panic("reliable uses Deliver only") }
func (e *netEnv) Rand() *rand.Rand                       { panic("reliable draws no randomness") }
func (e *netEnv) Note(protocol.Note)                     {}
func (e *netEnv) Logf(string, ...any)                    {}
func (e *netEnv) CancelTimer(id protocol.TimerID)        { delete(e.active, id) }

func (e *netEnv) Deliver(to protocol.NodeID, m protocol.Message) {
	n := e.n
	copies := 1
	if n.rng.Float64() < n.dup {
		copies = 2
	}
	for range copies {
		if n.rng.Float64() < n.drop {
			continue
		}
		delay := time.Millisecond + time.Duration(n.rng.Int64N(int64(n.maxDelay)))
		n.at(delay, event{node: to, ev: protocol.Receive{From: e.id, Hops: 1, Msg: m}})
	}
}

func (e *netEnv) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	e.nextID++
	e.active[e.nextID] = true
	e.n.at(after, event{node: e.id, ev: protocol.Timeout{ID: e.nextID, Name: name, Arg: arg}})
	return e.nextID
}

func newNetwork(seed uint64, ids []protocol.NodeID, cfg Config) *network {
	n := &network{
		rng:      rand.New(rand.NewPCG(seed, 0x6e6574)),
		nodes:    map[protocol.NodeID]*netNode{},
		maxDelay: 50 * time.Millisecond,
	}
	for _, id := range ids {
		env := &netEnv{n: n, id: id, active: map[protocol.TimerID]bool{}}
		nd := &netNode{id: id, env: env, ch: New[msg](env, id, cfg),
			got: map[protocol.NodeID][]int{}, failed: map[protocol.NodeID][]int{}, nextN: map[protocol.NodeID]int{}}
		nd.ch.Start()
		n.nodes[id] = nd
	}
	return n
}

// run processes events until none is left (every timer stops once all is
// acknowledged or declared unreachable).
func (n *network) run(t *testing.T) {
	for n.queue.Len() > 0 {
		e := heap.Pop(&n.queue).(event)
		n.now = e.at
		nd := n.nodes[e.node]
		if e.ev == nil {
			nd.ch.Send(e.to, msg{nd.nextN[e.to]})
			nd.nextN[e.to]++
			continue
		}
		if to, ok := e.ev.(protocol.Timeout); ok {
			if !nd.env.active[to.ID] {
				continue
			}
			delete(nd.env.active, to.ID)
		}
		out, ok := nd.ch.Step(e.ev)
		if !ok {
			t.Fatalf("node %d did not claim %#v", nd.id, e.ev)
		}
		for _, d := range out.Delivered {
			nd.got[d.From] = append(nd.got[d.From], d.Msg.N)
		}
		for _, f := range out.Unreachable {
			for _, m := range f.Unacked {
				nd.failed[f.Peer] = append(nd.failed[f.Peer], m.N)
			}
		}
	}
}

// traffic schedules count sends from every node to every other, at random
// instants over the first few seconds.
func (n *network) traffic(ids []protocol.NodeID, count int) {
	for _, from := range ids {
		for _, to := range ids {
			if from == to {
				continue
			}
			for range count {
				n.at(time.Duration(n.rng.Int64N(int64(3*time.Second))), event{node: from, to: to})
			}
		}
	}
}

func upTo(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestExactlyOnceInOrderOverALossyNetwork: 30% loss, 10% duplication and
// up to 50ms of jitter, with retries enough that no peer is declared
// unreachable: every message arrives once, in order.
func TestExactlyOnceInOrderOverALossyNetwork(t *testing.T) {
	ids := []protocol.NodeID{1, 2, 3}
	const count = 40
	for seed := uint64(1); seed <= 200; seed++ {
		n := newNetwork(seed, ids, Config{Retries: 30})
		n.drop, n.dup = 0.3, 0.1
		n.traffic(ids, count)
		n.run(t)
		for _, to := range ids {
			for _, from := range ids {
				if from == to {
					continue
				}
				if got := n.nodes[to].got[from]; !slices.Equal(got, upTo(count)) {
					t.Fatalf("seed %d: %d got from %d %v, want 0..%d in order", seed, to, from, got, count-1)
				}
				if f := n.nodes[from].failed[to]; len(f) != 0 {
					t.Fatalf("seed %d: %d declared %d unreachable with %v", seed, from, to, f)
				}
			}
		}
	}
}

// TestLossyNetworkWithFailures: with 60% loss and one retry peers are
// declared unreachable now and then. Per pair, delivery stays in order and
// without duplicates, and every message is delivered or reported unacked.
func TestLossyNetworkWithFailures(t *testing.T) {
	ids := []protocol.NodeID{1, 2, 3}
	const count = 40
	failures := 0
	for seed := uint64(1); seed <= 200; seed++ {
		n := newNetwork(seed, ids, Config{Retries: 1})
		n.drop, n.dup = 0.6, 0.2
		n.traffic(ids, count)
		n.run(t)
		for _, to := range ids {
			for _, from := range ids {
				if from == to {
					continue
				}
				got, failed := n.nodes[to].got[from], n.nodes[from].failed[to]
				failures += len(failed)
				if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
					t.Fatalf("seed %d: %d got from %d out of order or twice: %v", seed, to, from, got)
				}
				for _, m := range upTo(count) {
					if !slices.Contains(got, m) && !slices.Contains(failed, m) {
						t.Fatalf("seed %d: message %d from %d to %d neither delivered nor reported (got %v, failed %v)", seed, m, from, to, got, failed)
					}
				}
			}
		}
	}
	if failures == 0 {
		t.Fatal("no peer was ever declared unreachable: the test tests nothing")
	}
}

// TestRunsAreReproducible: the same seed gives the same run.
func TestRunsAreReproducible(t *testing.T) {
	ids := []protocol.NodeID{1, 2, 3}
	trace := func(seed uint64) string {
		n := newNetwork(seed, ids, Config{Retries: 2})
		n.drop, n.dup = 0.4, 0.1
		n.traffic(ids, 20)
		n.run(t)
		s := fmt.Sprint(n.now)
		for _, id := range ids {
			s += fmt.Sprint(n.nodes[id].got, n.nodes[id].failed)
		}
		return s
	}
	if a, b := trace(7), trace(7); a != b {
		t.Fatalf("seed 7 twice:\n%s\n%s", a, b)
	}
}
