package firewire

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

// sent is one Env.Send.
type sent struct {
	to protocol.NodeID
	m  protocol.Message
}

// timer is one Env.SetTimer.
type timer struct {
	id    protocol.TimerID
	after time.Duration
	name  string
	arg   int64
}

// fakeEnv records what a process does.
type fakeEnv struct {
	now    time.Duration
	sends  []sent
	notes  []protocol.Note
	timers []timer
	rng    *rand.Rand
}

func (e *fakeEnv) Now() time.Duration { return e.now }
func (e *fakeEnv) Send(to protocol.NodeID, m protocol.Message) {
	e.sends = append(e.sends, sent{to, m})
}
func (e *fakeEnv) Broadcast(protocol.Message)                { panic("tree identify broadcasts nothing") }
func (e *fakeEnv) Deliver(protocol.NodeID, protocol.Message) { panic("tree identify is one hop") }
func (e *fakeEnv) Flood(protocol.Message)                    { panic("tree identify is one hop") }
func (e *fakeEnv) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	id := protocol.TimerID(len(e.timers) + 1)
	e.timers = append(e.timers, timer{id, after, name, arg})
	return id
}
func (e *fakeEnv) CancelTimer(protocol.TimerID) {}
func (e *fakeEnv) Rand() *rand.Rand             { return e.rng }
func (e *fakeEnv) Note(n protocol.Note)         { e.notes = append(e.notes, n) }
func (e *fakeEnv) Logf(string, ...any)          {}

// takeSends returns the sends since the last call.
func (e *fakeEnv) takeSends() []sent {
	s := e.sends
	e.sends = nil
	return s
}

// takeNotes returns the notes since the last call.
func (e *fakeEnv) takeNotes() []protocol.Note {
	n := e.notes
	e.notes = nil
	return n
}

// lastTimer returns the latest timer named name.
func (e *fakeEnv) lastTimer(t *testing.T, name string) timer {
	t.Helper()
	for i := len(e.timers) - 1; i >= 0; i-- {
		if e.timers[i].name == name {
			return e.timers[i]
		}
	}
	t.Fatalf("no %s timer in %+v", name, e.timers)
	return timer{}
}

// newNode starts node id with the given neighbours and ends its settle
// period.
func newNode(t *testing.T, id protocol.NodeID, seed uint64, nbrs ...protocol.NodeID) (*Tree, *fakeEnv) {
	t.Helper()
	env := &fakeEnv{rng: rand.New(rand.NewPCG(seed, uint64(id)))}
	p, err := New(protocol.Config{ID: id, Value: float64(id) / 10, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	tr := p.(*Tree)
	tr.Step(protocol.Start{})
	if tm := env.lastTimer(t, "settle"); tm.after != DefaultSettle {
		t.Fatalf("settle timer %v, want %v", tm.after, DefaultSettle)
	}
	for _, n := range nbrs {
		tr.Step(protocol.NeighborUp{ID: n})
	}
	if len(env.sends) != 0 {
		t.Fatalf("sent %+v before settle", env.sends)
	}
	env.now = DefaultSettle
	tr.Step(protocol.Timeout{ID: env.lastTimer(t, "settle").id, Name: "settle"})
	return tr, env
}

// fire fires the latest timer named name.
func fire(t *testing.T, tr *Tree, env *fakeEnv, name string) {
	t.Helper()
	tm := env.lastTimer(t, name)
	env.now += tm.after
	tr.Step(protocol.Timeout{ID: tm.id, Name: name, Arg: tm.arg})
}

func wantSends(t *testing.T, what string, got []sent, want ...sent) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: sent %+v, want %+v", what, got, want)
	}
}

// noteOf returns the notes of kind k.
func notesOf(notes []protocol.Note, k protocol.NoteKind) []protocol.Note {
	var out []protocol.Note
	for _, n := range notes {
		if n.Kind == k {
			out = append(out, n)
		}
	}
	return out
}

func wantParent(t *testing.T, what string, notes []protocol.Note, parent protocol.NodeID) {
	t.Helper()
	ps := notesOf(notes, protocol.NoteParent)
	if len(ps) != 1 || ps[0].Leader != parent {
		t.Fatalf("%s: parent notes %+v, want one naming %d", what, ps, parent)
	}
}

func wantLeader(t *testing.T, what string, notes []protocol.Note, leader protocol.NodeID) {
	t.Helper()
	ls := notesOf(notes, protocol.NoteLeader)
	if len(ls) != 1 || ls[0].Leader != leader || ls[0].Epoch != Epoch(leader) || ls[0].Value != float64(leader)/10 {
		t.Fatalf("%s: leader notes %+v, want one naming %d in epoch %s with value %g", what, ls, leader, Epoch(leader), float64(leader)/10)
	}
}

// TestLeaf: a leaf asks its only neighbour at the end of settle, notes it
// as parent on its ack, and the root on the announcement, which it passes
// to nobody.
func TestLeaf(t *testing.T) {
	tr, env := newNode(t, 1, 1, 2)
	if n := notesOf(env.takeNotes(), protocol.NoteElectionStart); len(n) != 1 {
		t.Fatalf("election-start notes %+v", n)
	}
	wantSends(t, "at settle", env.takeSends())
	fire(t, tr, env, "decide")
	wantSends(t, "at the decision", env.takeSends(), sent{2, Request{}})
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Ack{}})
	wantParent(t, "after the ack", env.takeNotes(), 2)
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Root{Root: 7, Value: 0.7}})
	wantLeader(t, "after the announcement", env.takeNotes(), 7)
	wantSends(t, "after the announcement", env.takeSends())
	// A second announcement, or one from a non-parent, changes nothing.
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Root{Root: 8, Value: 0.8}})
	tr.Step(protocol.Receive{From: 3, Hops: 1, Msg: Root{Root: 9, Value: 0.9}})
	if n := env.takeNotes(); len(n) != 0 {
		t.Fatalf("notes after a repeated or foreign announcement: %+v", n)
	}
}

// TestInnerNode: a node with three neighbours acknowledges each request
// at once, asks the last neighbour when two have asked, and passes the
// root down to its children in ID order.
func TestInnerNode(t *testing.T) {
	tr, env := newNode(t, 5, 1, 2, 3, 4)
	wantSends(t, "at settle", env.takeSends())
	tr.Step(protocol.Receive{From: 4, Hops: 1, Msg: Request{}})
	wantSends(t, "first request", env.takeSends(), sent{4, Ack{}})
	tr.Step(protocol.Receive{From: 4, Hops: 1, Msg: Request{}})
	wantSends(t, "a duplicate request", env.takeSends())
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Request{}})
	wantSends(t, "second request", env.takeSends(), sent{2, Ack{}})
	fire(t, tr, env, "decide")
	wantSends(t, "the decision", env.takeSends(), sent{3, Request{}})
	tr.Step(protocol.Receive{From: 3, Hops: 1, Msg: Ack{}})
	wantParent(t, "after the ack", env.takeNotes(), 3)
	tr.Step(protocol.Receive{From: 3, Hops: 1, Msg: Root{Root: 9, Value: 0.9}})
	wantLeader(t, "after the announcement", env.takeNotes(), 9)
	wantSends(t, "after the announcement", env.takeSends(), sent{2, Root{9, 0.9}}, sent{4, Root{9, 0.9}})
	// A neighbour heard late asks: it is a child, told the root at once.
	tr.Step(protocol.Receive{From: 6, Hops: 1, Msg: Request{}})
	wantSends(t, "a late child", env.takeSends(), sent{6, Ack{}}, sent{6, Root{9, 0.9}})
	if n := notesOf(env.takeNotes(), protocol.NoteInfo); len(n) != 1 || !strings.Contains(n[0].Text, "topology changed") {
		t.Fatalf("late neighbour: info notes %+v", n)
	}
}

// TestRequestsBeforeSettle: requests from neighbours whose settle ended
// first are acknowledged at once and count at this node's settle.
func TestRequestsBeforeSettle(t *testing.T) {
	env := &fakeEnv{rng: rand.New(rand.NewPCG(1, 1))}
	p, err := New(protocol.Config{ID: 1, Value: 0.1, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	p.Step(protocol.Start{})
	p.Step(protocol.NeighborUp{ID: 2})
	p.Step(protocol.NeighborUp{ID: 3})
	p.Step(protocol.Receive{From: 2, Hops: 1, Msg: Request{}})
	p.Step(protocol.NeighborDown{ID: 2}) // a lost hello: it asked, so it stays
	wantSends(t, "a request before settle", env.takeSends(), sent{2, Ack{}})
	p.Step(protocol.Timeout{ID: env.lastTimer(t, "settle").id, Name: "settle"})
	fire(t, p.(*Tree), env, "decide")
	wantSends(t, "at settle", env.takeSends(), sent{3, Request{}})
}

// TestRoot: requests from every neighbour, the last two at one instant
// (before the decision at the end of it), make a node root: it notes no
// parent, itself as leader, and announces itself to every child.
func TestRoot(t *testing.T) {
	tr, env := newNode(t, 3, 1, 1, 2)
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Request{}})
	tr.Step(protocol.Receive{From: 1, Hops: 1, Msg: Request{}})
	wantSends(t, "two requests", env.takeSends(), sent{2, Ack{}}, sent{1, Ack{}})
	if d := env.lastTimer(t, "decide"); d.after != 0 || len(env.timers) != 3 {
		t.Fatalf("decision timers: %+v, want one of 0 after settle and stall", env.timers)
	}
	fire(t, tr, env, "decide")
	wantSends(t, "the decision", env.takeSends(), sent{1, Root{3, 0.3}}, sent{2, Root{3, 0.3}})
	notes := env.takeNotes()
	wantParent(t, "root", notes, protocol.None)
	wantLeader(t, "root", notes, 3)
	// An isolated node is the root of its own tree at settle.
	tr, env = newNode(t, 4, 1)
	fire(t, tr, env, "decide")
	notes = env.takeNotes()
	wantParent(t, "isolated", notes, protocol.None)
	wantLeader(t, "isolated", notes, 4)
	wantSends(t, "isolated", env.takeSends())
}

// contendingPair puts node 1 (child 3, neighbour 2) in root contention
// with node 2 and returns the wait it drew.
func contendingPair(t *testing.T, seed uint64) (*Tree, *fakeEnv, timer) {
	t.Helper()
	tr, env := newNode(t, 1, seed, 2, 3)
	tr.Step(protocol.Receive{From: 3, Hops: 1, Msg: Request{}})
	fire(t, tr, env, "decide")
	wantSends(t, "child's request", env.takeSends(), sent{3, Ack{}}, sent{2, Request{}})
	env.takeNotes()
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Request{}})
	wantSends(t, "the peer's request", env.takeSends()) // withdrawn: no ack
	n := env.takeNotes()
	if len(n) != 1 || n[0].Kind != protocol.NoteInfo || n[0].Text != "contention round 1" {
		t.Fatalf("contention: notes %+v", n)
	}
	w := env.lastTimer(t, "wait")
	if w.after != DefaultShort && w.after != DefaultLong {
		t.Fatalf("contention wait %v, want %v or %v", w.after, DefaultShort, DefaultLong)
	}
	return tr, env, w
}

// TestContentionPeerAsksDuringWait: the peer's request arrives during
// the wait; at its end this node accepts it and is root (the seed: "if
// there is an incoming parent request ... accept it and are elected
// root").
func TestContentionPeerAsksDuringWait(t *testing.T) {
	tr, env, w := contendingPair(t, 1)
	env.now += w.after / 2
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Contention{Round: 1}})
	wantSends(t, "the peer's request during the wait", env.takeSends())
	if n := env.takeNotes(); len(n) != 0 {
		t.Fatalf("notes before the wait ends: %+v", n)
	}
	env.now += w.after / 2
	tr.Step(protocol.Timeout{ID: w.id, Name: "wait", Arg: 1})
	wantSends(t, "the end of the wait", env.takeSends(), sent{2, Ack{}}, sent{2, Root{1, 0.1}}, sent{3, Root{1, 0.1}})
	notes := env.takeNotes()
	wantParent(t, "accepting", notes, protocol.None)
	wantLeader(t, "accepting", notes, 1)
}

// TestContentionAgain: nothing from the peer during the wait: the
// request goes out again as a contention message; the peer's crossing
// request is round 2; then the peer accepts.
func TestContentionAgain(t *testing.T) {
	tr, env, w := contendingPair(t, 1)
	tr.Step(protocol.Timeout{ID: w.id, Name: "wait", Arg: 1})
	wantSends(t, "the end of a quiet wait", env.takeSends(), sent{2, Contention{Round: 1}})
	tr.Step(protocol.Timeout{ID: w.id, Name: "wait", Arg: 1}) // stale: ignored
	wantSends(t, "a stale wait timer", env.takeSends())
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Contention{Round: 1}})
	if n := env.takeNotes(); len(n) != 1 || n[0].Text != "contention round 2" {
		t.Fatalf("second crossing: notes %+v", n)
	}
	w2 := env.lastTimer(t, "wait")
	tr.Step(protocol.Timeout{ID: w2.id, Name: "wait", Arg: 2})
	wantSends(t, "round 2 quiet", env.takeSends(), sent{2, Contention{Round: 2}})
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Ack{}})
	wantParent(t, "the peer accepted", env.takeNotes(), 2)
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Root{2, 0.2}})
	wantSends(t, "announcement", env.takeSends(), sent{3, Root{2, 0.2}})
}

// TestCoinIsFair: over many contentions the waits are short and long
// about equally often.
func TestCoinIsFair(t *testing.T) {
	long := 0
	const n = 400
	for seed := uint64(1); seed <= n; seed++ {
		_, _, w := contendingPair(t, seed)
		if w.after == DefaultLong {
			long++
		}
	}
	// Binomial(400, 1/2): sd 10; 4 sd either way.
	if long < n/2-40 || long > n/2+40 {
		t.Fatalf("%d long waits of %d", long, n)
	}
}

// TestStall: a node on a cycle never gets down to one missing neighbour;
// at stall it says so.
func TestStall(t *testing.T) {
	tr, env := newNode(t, 1, 1, 2, 3)
	env.takeNotes()
	st := env.lastTimer(t, "stall")
	if st.after != DefaultStall {
		t.Fatalf("stall timer %v", st.after)
	}
	tr.Step(protocol.Timeout{ID: st.id, Name: "stall"})
	n := env.takeNotes()
	if len(n) != 1 || n[0].Kind != protocol.NoteInfo || !strings.HasPrefix(n[0].Text, "cyclic topology: no tree identify possible") ||
		!strings.Contains(n[0].Text, "none from {2,3}") {
		t.Fatalf("stall: notes %+v", n)
	}
	// A finished node says nothing at stall.
	tr, env = newNode(t, 1, 1, 2)
	fire(t, tr, env, "decide")
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Ack{}})
	tr.Step(protocol.Receive{From: 2, Hops: 1, Msg: Root{2, 0.2}})
	env.takeNotes()
	tr.Step(protocol.Timeout{ID: env.lastTimer(t, "stall").id, Name: "stall"})
	if n := env.takeNotes(); len(n) != 0 {
		t.Fatalf("finished node at stall: %+v", n)
	}
}

func TestParams(t *testing.T) {
	p, err := New(protocol.Config{ID: 1, Env: &fakeEnv{}, Params: protocol.Params{"settle": "5s", "stall": 20, "short": "10ms", "long": "30ms"}})
	if err != nil {
		t.Fatal(err)
	}
	if tr := p.(*Tree); tr.settle != 5*time.Second || tr.stall != 20*time.Second || tr.short != 10*time.Millisecond || tr.long != 30*time.Millisecond {
		t.Fatalf("params read as %+v", tr)
	}
	for _, c := range []struct {
		p    protocol.Params
		want string
	}{
		{protocol.Params{"long": "50ms"}, "protocol.params.long: 50ms is not longer than short (100ms)"},
		{protocol.Params{"short": "1s", "long": "1s"}, "protocol.params.long: 1s is not longer than short"},
		{protocol.Params{"settle": 0}, "protocol.params.settle: 0s is not a positive duration"},
		{protocol.Params{"short": "-1s"}, "protocol.params.short: -1s is not a non-negative duration"},
		{protocol.Params{"setle": "1s"}, "protocol.params.setle: unknown parameter"},
	} {
		if _, err := New(protocol.Config{ID: 1, Env: &fakeEnv{}, Params: c.p}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.p, err, c.want)
		}
	}
}
