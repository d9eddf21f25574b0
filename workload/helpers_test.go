package workload

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"time"

	"manetlab/protocol"
)

// loop is a one-node driver in virtual time: a fake Env whose timers fire
// in time order (equal times in the order set), stepping the wrapped
// process.
type loop struct {
	t      testing.TB
	now    time.Duration
	seq    uint64
	timers timerHeap
	live   map[protocol.TimerID]bool
	proc   protocol.Process // what the driver steps
	notes  []stamped        // every note, in order
	rands  int              // calls of Rand
	do     []func()         // actions scheduled with at
}

type stamped struct {
	at   time.Duration
	kind protocol.NoteKind
}

type pending struct {
	at   time.Duration
	seq  uint64
	id   protocol.TimerID
	name string
	arg  int64
}

type timerHeap []pending

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(pending)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (l *loop) Now() time.Duration                     { return l.now }
func (l *loop) Send(protocol.NodeID, protocol.Message) {}
func (l *loop) Broadcast(protocol.Message)             {}
func (l *loop) Deliver(protocol.NodeID, protocol.Message) {
}
func (l *loop) Flood(protocol.Message) {}
func (l *loop) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	l.seq++
	id := protocol.TimerID(l.seq)
	heap.Push(&l.timers, pending{at: l.now + max(after, 0), seq: l.seq, id: id, name: name, arg: arg})
	l.live[id] = true
	return id
}
func (l *loop) CancelTimer(id protocol.TimerID) { delete(l.live, id) }
func (l *loop) Rand() *rand.Rand {
	l.rands++
	return rand.New(rand.NewPCG(1, 2))
}
func (l *loop) Note(n protocol.Note) { l.notes = append(l.notes, stamped{l.now, n.Kind}) }
func (l *loop) Logf(string, ...any)  {}

// at runs f at instant d, as a driver's explicit command would.
func (l *loop) at(d time.Duration, f func()) {
	l.SetTimer(d-l.now, "test/do", int64(len(l.do)))
	l.do = append(l.do, f)
}

// run steps Start at time begin and then every timer up to end.
func (l *loop) run(begin, end time.Duration) {
	l.now = begin
	l.proc.Step(protocol.Start{})
	for l.timers.Len() > 0 && l.timers[0].at <= end {
		p := heap.Pop(&l.timers).(pending)
		if !l.live[p.id] {
			continue
		}
		delete(l.live, p.id)
		l.now = p.at
		if p.name == "test/do" {
			l.do[p.arg]()
			continue
		}
		l.proc.Step(protocol.Timeout{ID: p.id, Name: p.name, Arg: p.arg})
	}
	l.now = end
}

// lock is a one-node stand-in for a mutual exclusion protocol: a request
// while idle is granted grant later (its own timer), requests while
// wanting or holding are queued, a release leaves and takes the next
// queued one. It records every event it is stepped with.
type lock struct {
	env    protocol.Env
	grant  time.Duration
	state  string // idle, wanting, holding
	queued int
	seen   []protocol.Event
	cmds   []stampedCmd
}

type stampedCmd struct {
	at   time.Duration
	name protocol.CommandName
}

func (p *lock) Step(ev protocol.Event) {
	p.seen = append(p.seen, ev)
	switch e := ev.(type) {
	case protocol.Command:
		p.cmds = append(p.cmds, stampedCmd{p.env.Now(), e.Name})
		switch e.Name {
		case protocol.Request:
			p.env.Note(protocol.Note{Kind: protocol.NoteCSRequest})
			if p.state != "idle" {
				p.queued++
				return
			}
			p.ask()
		case protocol.Release:
			if p.state != "holding" {
				return
			}
			p.env.Note(protocol.Note{Kind: protocol.NoteCSExit})
			p.state = "idle"
			if p.queued > 0 {
				p.queued--
				p.ask()
			}
		}
	case protocol.Timeout:
		if e.Name == "lock/grant" && p.state == "wanting" {
			p.state = "holding"
			p.env.Note(protocol.Note{Kind: protocol.NoteCSEnter})
		}
	}
}

func (p *lock) ask() {
	p.state = "wanting"
	p.env.SetTimer(p.grant, "lock/grant", 0)
}

// setup builds a loop with node id's generator around a lock.
func setup(t testing.TB, cfg Config, id protocol.NodeID, seed uint64) (*loop, *lock, *Generator) {
	l := &loop{t: t, live: map[protocol.TimerID]bool{}}
	g := New(cfg, id, seed)
	p := &lock{env: g.Env(l), grant: 10 * time.Millisecond, state: "idle"}
	l.proc = g.Wrap(p)
	return l, p, g
}

// times lists the instants of p's commands named name.
func (p *lock) times(name protocol.CommandName) []time.Duration {
	var out []time.Duration
	for _, c := range p.cmds {
		if c.name == name {
			out = append(out, c.at)
		}
	}
	return out
}

// noteTimes lists the instants of l's notes of kind k.
func (l *loop) noteTimes(k protocol.NoteKind) []time.Duration {
	var out []time.Duration
	for _, n := range l.notes {
		if n.kind == k {
			out = append(out, n.at)
		}
	}
	return out
}
