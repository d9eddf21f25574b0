package mutex

import (
	"math/rand/v2"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// coordEnv is an Env that records what a process does, for stepping one
// process by hand.
type coordEnv struct {
	t     *testing.T
	now   time.Duration
	out   []coordSent
	notes []protocol.Note
	timer protocol.TimerID
	rng   *rand.Rand
}

type coordSent struct {
	to protocol.NodeID
	m  protocol.Message
}

func newCoordEnv(t *testing.T) *coordEnv { return &coordEnv{t: t, rng: rand.New(rand.NewPCG(1, 2))} }

func (e *coordEnv) Now() time.Duration { return e.now }
func (e *coordEnv) Send(to protocol.NodeID, m protocol.Message) {
	e.out = append(e.out, coordSent{to, m})
}
func (e *coordEnv) Broadcast(m protocol.Message) { e.out = append(e.out, coordSent{0, m}) }
func (e *coordEnv) Deliver(to protocol.NodeID, m protocol.Message) {
	e.out = append(e.out, coordSent{to, m})
}
func (e *coordEnv) Flood(m protocol.Message) { e.out = append(e.out, coordSent{0, m}) }
func (e *coordEnv) SetTimer(time.Duration, string, int64) protocol.TimerID {
	e.timer++
	return e.timer
}
func (e *coordEnv) CancelTimer(protocol.TimerID)    {}
func (e *coordEnv) Rand() *rand.Rand                { return e.rng }
func (e *coordEnv) Note(n protocol.Note)            { e.notes = append(e.notes, n) }
func (e *coordEnv) Logf(format string, args ...any) { e.t.Logf(format, args...) }

// count counts notes of kind k.
func (e *coordEnv) count(k protocol.NoteKind) int {
	n := 0
	for _, x := range e.notes {
		if x.Kind == k {
			n++
		}
	}
	return n
}

// coordAlgorithm returns the algorithm messages coordSent (inside the channel's
// Data) since the last call.
func coordAlgorithm[T protocol.Message](e *coordEnv) []coordSent {
	var out []coordSent
	for _, s := range e.out {
		if d, ok := s.m.(reliable.Data[T]); ok {
			out = append(out, coordSent{s.to, d.Msg})
		}
	}
	e.out = nil
	return out
}

// coordDeliverer hands a process messages from one peer as that peer's channel
// would: one session, sequence numbers from 1.
type coordDeliverer[T protocol.Message] struct {
	from protocol.NodeID
	seq  uint32
}

func (d *coordDeliverer[T]) data(m T) protocol.Receive {
	d.seq++
	return protocol.Receive{From: d.from, Hops: 1, Msg: reliable.Data[T]{Inc: 1, Conn: 1, Seq: d.seq, Base: d.seq, Msg: m}}
}

// TestCentralizedForgedGrant: a grant node 1 never asked for is handed
// back, not entered; a duplicate of the grant it holds is ignored (not
// handed back, which would free the section it is in); messages outside
// the channel and of unknown types are ignored.
func TestCentralizedForgedGrant(t *testing.T) {
	env := newCoordEnv(t)
	p, err := NewCentralized(protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2}, Env: env, Params: protocol.Params{"election": "bully/textbook"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Step(protocol.Start{})
	coordAlgorithm[centralMsg](env)
	from2 := &coordDeliverer[centralMsg]{from: 2}
	p.Step(from2.data(centralMsg{Type: centralGrant, Term: 1, Coord: 2, Inc: 0, Seq: 1}))
	out := coordAlgorithm[centralMsg](env)
	if env.count(protocol.NoteCSEnter) != 0 || len(out) != 1 || out[0].m.(centralMsg).Type != centralRelease || out[0].to != 2 {
		t.Fatalf("unasked grant: %d entries, coordSent %+v; want none and a release to 2", env.count(protocol.NoteCSEnter), out)
	}
	// The coordinator 2 inquires; node 1 asks and is granted.
	p.Step(from2.data(centralMsg{Type: centralInquire, Term: 1, Coord: 2}))
	p.Step(protocol.Command{Name: protocol.Request})
	out = coordAlgorithm[centralMsg](env)
	if len(out) != 2 || out[0].m.(centralMsg).Type != centralReport || out[1].m.(centralMsg).Type != centralRequest {
		t.Fatalf("after inquire and request, coordSent %+v; want a report and a request", out)
	}
	req := out[1].m.(centralMsg)
	grant := centralMsg{Type: centralGrant, Term: 1, Coord: 2, Inc: req.Inc, Seq: req.Seq}
	p.Step(from2.data(grant))
	p.Step(from2.data(grant))
	if env.count(protocol.NoteCSEnter) != 1 || len(coordAlgorithm[centralMsg](env)) != 0 {
		t.Fatalf("grant and its duplicate: %d entries; want 1 and nothing coordSent", env.count(protocol.NoteCSEnter))
	}
	// A grant from a stale term while holding: handed back, still held.
	p.Step(from2.data(centralMsg{Type: centralGrant, Term: 0, Coord: 2, Inc: req.Inc, Seq: req.Seq + 5}))
	p.Step(protocol.Receive{From: 2, Hops: 1, Msg: centralMsg{Type: centralGrant}})
	p.Step(from2.data(centralMsg{Type: 99}))
	p.Step(from2.data(centralMsg{Type: centralInquire, Term: 1 << 63, Coord: 2}))
	if env.count(protocol.NoteCSExit) != 0 {
		t.Fatal("left the section without a release")
	}
	p.Step(protocol.Command{Name: protocol.Release})
	out = coordAlgorithm[centralMsg](env)
	last := out[len(out)-1].m.(centralMsg)
	if env.count(protocol.NoteCSExit) != 1 || last.Type != centralRelease || last.Seq != req.Seq {
		t.Fatalf("release: coordSent %+v", out)
	}
}

// TestCentralizedCoordinatorWaitsForReports: a new coordinator grants
// nothing until every member reported; a holder's report keeps others
// out until it releases.
func TestCentralizedCoordinatorWaitsForReports(t *testing.T) {
	env := newCoordEnv(t)
	proc, err := NewCentralized(protocol.Config{ID: 3, Members: []protocol.NodeID{1, 2, 3}, Env: env, Params: protocol.Params{}})
	if err != nil {
		t.Fatal(err)
	}
	p := proc.(*centralized)
	p.Step(protocol.Start{})
	p.news = append(p.news, 3) // the election names node 3
	p.afterElection()
	out := coordAlgorithm[centralMsg](env)
	if len(out) != 2 || out[0].m.(centralMsg).Type != centralInquire {
		t.Fatalf("new coordinator coordSent %+v; want an inquire to 1 and 2", out)
	}
	term := out[0].m.(centralMsg).Term
	d1, d2 := &coordDeliverer[centralMsg]{from: 1}, &coordDeliverer[centralMsg]{from: 2}
	p.Step(d2.data(centralMsg{Type: centralReport, Term: term, Coord: 3, State: centralReportWanting, Inc: 7, Seq: 1}))
	if out := coordAlgorithm[centralMsg](env); len(out) != 0 {
		t.Fatalf("granted before node 1 reported: %+v", out)
	}
	p.Step(d1.data(centralMsg{Type: centralReport, Term: term, Coord: 3, State: centralReportHolding, Inc: 5, Seq: 4}))
	if out := coordAlgorithm[centralMsg](env); len(out) != 0 {
		t.Fatalf("granted while node 1 holds: %+v", out)
	}
	p.Step(d1.data(centralMsg{Type: centralRelease, Term: term, Coord: 3, Inc: 5, Seq: 3})) // not the one held
	if out := coordAlgorithm[centralMsg](env); len(out) != 0 {
		t.Fatalf("granted on a release of another request: %+v", out)
	}
	p.Step(d1.data(centralMsg{Type: centralRelease, Term: term, Coord: 3, Inc: 5, Seq: 4}))
	out = coordAlgorithm[centralMsg](env)
	if len(out) != 1 || out[0].to != 2 || out[0].m.(centralMsg).Type != centralGrant || out[0].m.(centralMsg).Seq != 1 {
		t.Fatalf("after node 1 released: coordSent %+v; want the grant to node 2", out)
	}
}
