package adhoc

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

// recEnv is a bare Env that records what one Node does, for tests that
// drive a single Node event by event.
type recEnv struct {
	now    time.Duration
	out    []sent
	timers map[protocol.TimerID]protocol.Timeout
	next   protocol.TimerID
	notes  []protocol.Note
}

type sent struct {
	to  protocol.NodeID // None for a broadcast
	msg protocol.Message
}

func newRecEnv() *recEnv { return &recEnv{timers: map[protocol.TimerID]protocol.Timeout{}} }

func (e *recEnv) Now() time.Duration                          { return e.now }
func (e *recEnv) Send(to protocol.NodeID, m protocol.Message) { e.out = append(e.out, sent{to, m}) }
func (e *recEnv) Broadcast(m protocol.Message)                { e.out = append(e.out, sent{protocol.None, m}) }
func (e *recEnv) Deliver(protocol.NodeID, protocol.Message) {
	panic("adhoc must not use Deliver")
}
func (e *recEnv) Flood(protocol.Message) { panic("adhoc must not use Flood") }
func (e *recEnv) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	e.next++
	e.timers[e.next] = protocol.Timeout{ID: e.next, Name: name, Arg: arg}
	return e.next
}
func (e *recEnv) CancelTimer(id protocol.TimerID) { delete(e.timers, id) }
func (e *recEnv) Rand() *rand.Rand                { return rand.New(rand.NewPCG(1, 2)) }
func (e *recEnv) Note(n protocol.Note)            { e.notes = append(e.notes, n) }
func (e *recEnv) Logf(format string, args ...any) {}

// fire delivers the pending timer named name, failing if there is none.
func (e *recEnv) fire(t *testing.T, n *Node, name string) {
	t.Helper()
	for id, to := range e.timers {
		if to.Name == name {
			delete(e.timers, id)
			n.Step(to)
			return
		}
	}
	t.Fatalf("no %s timer pending", name)
}

// take returns and clears the recorded messages.
func (e *recEnv) take() []sent {
	out := e.out
	e.out = nil
	return out
}

// awaitingNode returns node 1 (value 1) as the source of a unicast
// election that awaits neighbours 2 and 3.
func awaitingNode(t *testing.T) (*Node, *recEnv) {
	t.Helper()
	env := newRecEnv()
	p, err := New(protocol.Config{ID: 1, Value: 1, Params: protocol.Params{"variant": Unicast}, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	n := p.(*Node)
	n.Step(protocol.Start{})
	n.Step(protocol.NeighborUp{ID: 2})
	n.Step(protocol.NeighborUp{ID: 3})
	env.take()
	env.now = time.Minute
	n.Step(protocol.Command{Name: protocol.Elect})
	if n.phase != awaiting || !n.waiting[2] || !n.waiting[3] {
		t.Fatalf("after Elect: phase %d waiting %v", n.phase, n.waiting)
	}
	var to []protocol.NodeID
	for _, s := range env.take() {
		if _, ok := s.msg.(Election); ok {
			to = append(to, s.to)
		}
	}
	if len(to) != 2 || to[0] != 2 || to[1] != 3 {
		t.Fatalf("unicast Election sent to %v, want [2 3]", to)
	}
	return n, env
}

func TestAwaitingNodeAcceptsLeader(t *testing.T) {
	cases := []struct {
		name   string
		leader Leader
		accept bool
	}{
		// The subtree's best so far is node 3 with value 4.
		{"own computation's result, worse than the best so far", Leader{Leader: 7, Value: 2, Num: 60000000, Src: 1, TTL: time.Second}, true},
		{"better leader of an older computation", Leader{Leader: 7, Value: 9, Num: 3, Src: 7, TTL: time.Second}, true},
		{"worse leader of an older computation", Leader{Leader: 7, Value: 2, Num: 3, Src: 7, TTL: time.Second}, false},
		{"better leader whose lease ran out", Leader{Leader: 7, Value: 9, Num: 3, Src: 7}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, env := awaitingNode(t)
			if n.idx != (Index{Num: 60000000, ID: 1}) {
				t.Fatalf("index %v, want 60000000.1 (µs of the run)", n.idx)
			}
			n.Step(protocol.Receive{From: 3, Hops: 1, Msg: Ack{Num: 60000000, Src: 1, Best: 3, Value: 4}})
			if n.phase != awaiting || n.best != 3 {
				t.Fatalf("after Ack from 3: phase %d best %d", n.phase, n.best)
			}
			n.Step(protocol.Receive{From: 2, Hops: 1, Msg: c.leader})
			if got := n.phase == idle; got != c.accept {
				t.Fatalf("left the election: %v, want %v", got, c.accept)
			}
			if !c.accept {
				return
			}
			if n.leader != 7 {
				t.Errorf("leader %d, want 7", n.leader)
			}
			forwarded := false
			for _, s := range env.take() {
				if l, ok := s.msg.(Leader); ok && s.to == protocol.None && l.Leader == 7 {
					forwarded = true
				}
			}
			if !forwarded {
				t.Errorf("Leader not flooded on")
			}
			if _, on := n.timers[tProbe]; on {
				t.Errorf("probe timer still running after the election ended")
			}
		})
	}
}

func TestProbeDropsSilentChild(t *testing.T) {
	n, env := awaitingNode(t)
	n.Step(protocol.Receive{From: 3, Hops: 1, Msg: Ack{Num: n.idx.Num, Src: 1, Best: 3, Value: 4}})
	env.fire(t, n, tProbe)
	probes := 0
	for _, s := range env.take() {
		if _, ok := s.msg.(Probe); ok && s.to == 2 {
			probes++
		}
	}
	if probes != 1 || n.phase != awaiting {
		t.Fatalf("first probe round: %d probes to 2, phase %d", probes, n.phase)
	}
	// A Reply keeps the child; silence through the next round drops it.
	n.Step(protocol.Receive{From: 2, Hops: 1, Msg: Reply{Num: n.idx.Num, Src: 1}})
	env.fire(t, n, tProbe)
	if n.phase != awaiting || !n.waiting[2] {
		t.Fatalf("child that replied was dropped")
	}
	env.fire(t, n, tProbe)
	if n.phase != idle || n.leader != 3 {
		t.Fatalf("after silent round: phase %d leader %d, want idle and 3 (best Ack)", n.phase, n.leader)
	}
	ls := 0
	for _, s := range env.take() {
		if l, ok := s.msg.(Leader); ok && l.Leader == 3 && l.Num == n.idx.Num {
			ls++
		}
	}
	if ls != 1 {
		t.Errorf("source flooded %d Leader messages, want 1", ls)
	}
}

func TestElectionTimeoutBoundsTheWait(t *testing.T) {
	n, env := awaitingNode(t)
	// Neither neighbour ever answers and probes are never fired: the
	// election timeout alone must end the wait.
	env.fire(t, n, tElection)
	if n.phase != idle || n.leader != 1 {
		t.Fatalf("after election timeout: phase %d leader %d", n.phase, n.leader)
	}
}

func TestParams(t *testing.T) {
	env := newRecEnv()
	if _, err := New(protocol.Config{ID: 1, Env: env, Params: protocol.Params{"variant": "flooding"}}); err == nil || !strings.Contains(err.Error(), "variant") {
		t.Errorf("bad variant: err %v", err)
	}
	if _, err := New(protocol.Config{ID: 1, Env: env, Params: protocol.Params{"beacon_perod": "1s"}}); err == nil || !strings.Contains(err.Error(), "beacon_perod") {
		t.Errorf("misspelt parameter: err %v", err)
	}
	if _, err := New(protocol.Config{ID: 1, Env: env, Params: protocol.Params{"probe_period": "0s"}}); err == nil {
		t.Errorf("zero probe period accepted")
	}
	p, err := New(protocol.Config{ID: 1, Env: env, Params: protocol.Params{"beacon_period": 5, "beacon_loss": 4}})
	if err != nil {
		t.Fatal(err)
	}
	c := p.(*Node).cfg
	if c.variant != Optimised || c.lease() != 20*time.Second {
		t.Errorf("config %+v: want optimised and a 20s lease", c)
	}
}

func TestRegistered(t *testing.T) {
	s, err := protocol.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, m := range s.Messages {
		if kinds[m.Kind()] {
			t.Errorf("message kind %q listed twice", m.Kind())
		}
		kinds[m.Kind()] = true
	}
	for _, k := range []string{"election", "ack", "leader", "probe", "reply", "child", "beacon", "leader-exchange"} {
		if !kinds[k] {
			t.Errorf("message kind %q not registered", k)
		}
	}
}

func TestLeaderRefutesElectionNamingItDeparted(t *testing.T) {
	for _, v := range variants {
		env := newRecEnv()
		p, err := New(protocol.Config{ID: 5, Value: 9, Params: protocol.Params{"variant": v}, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		n := p.(*Node)
		n.Step(protocol.Start{})
		env.fire(t, n, tStart)
		if v != Unicast {
			env.fire(t, n, tChild)
		}
		if n.leader != 5 {
			t.Fatalf("%s: alone, node 5 follows %d", v, n.leader)
		}
		n.Step(protocol.NeighborUp{ID: 2})
		env.take()
		n.Step(protocol.Receive{From: 2, Msg: Election{Num: 5000000, Src: 2, Departed: 5}})
		var acked, beaconed bool
		for _, s := range env.take() {
			switch m := s.msg.(type) {
			case Ack:
				acked = s.to == 2 && m.Best == 5 && m.Num == 5000000 && m.Src == 2
			case Beacon:
				beaconed = m.Leader == 5
			case Election:
				t.Errorf("%s: leader joined an election naming it departed", v)
			}
		}
		if !acked || !beaconed || n.leader != 5 || n.phase != idle {
			t.Errorf("%s: acked %v beaconed %v leader %d phase %v", v, acked, beaconed, n.leader, n.phase)
		}
	}
}

func TestOverdueBeaconRepairedByQuery(t *testing.T) {
	env := newRecEnv()
	p, err := New(protocol.Config{ID: 1, Value: 1, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	n := p.(*Node)
	n.Step(protocol.Start{})
	n.Step(protocol.NeighborUp{ID: 2})
	b := Beacon{Leader: 7, Value: 9, Num: 3, Src: 7, Inc: 11, Seq: 1}
	n.Step(protocol.Receive{From: 2, Msg: b})
	if n.leader != 7 {
		t.Fatalf("follows %d, want 7", n.leader)
	}
	env.take()
	// The next beacon is lost: the query goes out by unicast.
	env.now += 3 * time.Second
	env.fire(t, n, tQuery)
	out := env.take()
	if len(out) != 1 || out[0].to != 2 || out[0].msg != (Query{Leader: 7, Inc: 11, Seq: 1}) {
		t.Fatalf("sent %+v, want one Query to 2", out)
	}
	// The neighbour answers with a beacon it has kept for 1s: the lease
	// runs from when the leader sent it.
	b.Seq, b.Age = 2, time.Second
	n.Step(protocol.Receive{From: 2, Msg: b})
	if want := env.now + n.cfg.lease() - time.Second; n.leaseEnd != want {
		t.Errorf("lease ends at %v, want %v", n.leaseEnd, want)
	}
	// And this node answers a neighbour that missed it, with its age.
	env.take()
	env.now += 500 * time.Millisecond
	n.Step(protocol.Receive{From: 2, Msg: Query{Leader: 7, Inc: 11, Seq: 1}})
	out = env.take()
	if len(out) != 1 || out[0].to != 2 {
		t.Fatalf("answered %+v", out)
	}
	if got := out[0].msg.(Beacon); got.Seq != 2 || got.Age != 1500*time.Millisecond {
		t.Errorf("answer %+v, want seq 2 aged 1.5s", got)
	}
	// A query for a beacon it has no newer copy of goes unanswered.
	n.Step(protocol.Receive{From: 2, Msg: Query{Leader: 7, Inc: 11, Seq: 2}})
	if out := env.take(); len(out) != 0 {
		t.Errorf("answered %+v to an up-to-date neighbour", out)
	}
}

// TestAckedNodeLosingItsParentEndsAtOnce is the regression test of a
// fault found by the per-component check (quickstart seed 10): a node
// that had acknowledged its parent and then lost it waited ack_timeout
// (30 s) for a Leader that could no longer come, leaderless and alone.
// It now ends the computation at once, as a node that loses its parent
// before acknowledging does; losing another neighbour changes nothing.
func TestAckedNodeLosingItsParentEndsAtOnce(t *testing.T) {
	for _, lost := range []protocol.NodeID{9, 5} {
		env := newRecEnv()
		p, err := New(protocol.Config{ID: 4, Value: 5, Params: protocol.Params{"variant": Unicast}, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		n := p.(*Node)
		n.Step(protocol.Start{})
		n.Step(protocol.NeighborUp{ID: 9})
		n.Step(protocol.NeighborUp{ID: 5})
		env.now = 10 * time.Second
		n.Step(protocol.Receive{From: 9, Hops: 1, Msg: Election{Num: 9000000, Src: 9}})
		n.Step(protocol.Receive{From: 5, Hops: 1, Msg: Ack{Num: 9000000, Src: 9, Best: 5, Value: 3}})
		if n.phase != acked || n.parent != 9 {
			t.Fatalf("after the Election from 9 and the Ack from 5: phase %d parent %d, want acked to 9", n.phase, n.parent)
		}
		env.take()
		env.now = 12 * time.Second
		n.Step(protocol.NeighborDown{ID: lost})
		if lost == 5 {
			if n.phase != acked {
				t.Errorf("losing a child that acknowledged: phase %d, want still acked", n.phase)
			}
			continue
		}
		if n.phase != idle || n.leader != 4 {
			t.Fatalf("parent lost after the Ack: phase %d leader %d, want idle, leading itself (its subtree's best)", n.phase, n.leader)
		}
		flooded := false
		for _, s := range env.take() {
			if l, ok := s.msg.(Leader); ok && s.to == protocol.None && l.Leader == 4 && l.Num > 9000000 {
				flooded = true
			}
		}
		if !flooded {
			t.Error("no Leader flooded under a fresh index")
		}
	}
}
