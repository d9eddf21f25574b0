package reliable

import (
	"math/rand/v2"
	"time"

	"manetlab/protocol"
)

// msg is the algorithm message of the tests.
type msg struct{ N int }

func (msg) Kind() string { return "msg" }

// other is a message the channel must leave to the embedding protocol.
type other struct{}

func (other) Kind() string { return "other" }

// frame is one Deliver call.
type frame struct {
	to protocol.NodeID
	m  protocol.Message
}

// fakeTimer is one SetTimer call.
type fakeTimer struct {
	id    protocol.TimerID
	at    time.Duration // when it fires
	after time.Duration
	name  string
	arg   int64
}

// fakeEnv records Deliver calls and timers, with a clock the test moves.
type fakeEnv struct {
	now    time.Duration
	frames []frame
	timers []fakeTimer // pending, in the order set
	set    []fakeTimer // every timer ever set
	nextID protocol.TimerID
}

func (e *fakeEnv) Now() time.Duration                     { return e.now }
func (e *fakeEnv) Send(protocol.NodeID, protocol.Message) { panic("reliable uses Deliver only") }
func (e *fakeEnv) Broadcast(protocol.Message)             { panic("reliable uses Deliver only") }
func (e *fakeEnv) Flood(protocol.Message)                 { panic("reliable uses Deliver only") }
func (e *fakeEnv) Deliver(to protocol.NodeID, m protocol.Message) {
	e.frames = append(e.frames, frame{to, m})
}
func (e *fakeEnv) Rand() *rand.Rand    { panic("reliable draws no randomness") }
func (e *fakeEnv) Note(protocol.Note)  {}
func (e *fakeEnv) Logf(string, ...any) {}

func (e *fakeEnv) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	e.nextID++
	t := fakeTimer{id: e.nextID, at: e.now + after, after: after, name: name, arg: arg}
	e.timers = append(e.timers, t)
	e.set = append(e.set, t)
	return t.id
}

func (e *fakeEnv) CancelTimer(id protocol.TimerID) {
	for i, t := range e.timers {
		if t.id == id {
			e.timers = append(e.timers[:i], e.timers[i+1:]...)
			return
		}
	}
}

// fire moves the clock to the earliest pending timer and returns its
// Timeout, or false if none is pending.
func (e *fakeEnv) fire() (protocol.Timeout, bool) {
	if len(e.timers) == 0 {
		return protocol.Timeout{}, false
	}
	first := 0
	for i, t := range e.timers {
		if t.at < e.timers[first].at {
			first = i
		}
	}
	t := e.timers[first]
	e.timers = append(e.timers[:first], e.timers[first+1:]...)
	e.now = t.at
	return protocol.Timeout{ID: t.id, Name: t.name, Arg: t.arg}, true
}

// take returns the frames delivered since the last call.
func (e *fakeEnv) take() []frame {
	f := e.frames
	e.frames = nil
	return f
}
