package node

import (
	"fmt"
	"math/rand/v2"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// env is a hosted node's protocol.Env. Its methods run on the loop (the
// protocol calls them from Step); after the Host stops they do nothing.
type env struct {
	h *Host
	n *hosted
}

func (e *env) live() bool { return e.n.alive && !e.h.stopped }

func (e *env) Now() time.Duration { return e.h.now() }

// The sending methods hand the message to the node's network stack.

func (e *env) Send(to protocol.NodeID, m protocol.Message) {
	if e.live() {
		e.n.stack.Send(to, m)
	}
}

func (e *env) Broadcast(m protocol.Message) {
	if e.live() {
		e.n.stack.Broadcast(m)
	}
}

func (e *env) Deliver(to protocol.NodeID, m protocol.Message) {
	if e.live() {
		e.n.stack.Deliver(to, m)
	}
}

func (e *env) Flood(m protocol.Message) {
	if e.live() {
		e.n.stack.Flood(m)
	}
}

func (e *env) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	after = max(after, 0)
	e.h.timerID++
	id := e.h.timerID
	if e.live() {
		e.n.timers[id] = pendingTimer{name: name, arg: arg}
		e.h.sched.push(task{at: e.h.now() + after, kind: taskTimer, n: e.n, inc: e.n.inc, id: id})
	}
	return protocol.TimerID(id)
}

func (e *env) CancelTimer(id protocol.TimerID) {
	if e.n.timers != nil {
		delete(e.n.timers, uint64(id))
	}
}

func (e *env) Rand() *rand.Rand { return e.n.rng }

func (e *env) Note(n protocol.Note) {
	if !e.live() {
		return
	}
	ev := trace.Event{Ev: string(n.Kind), Leader: n.Leader, Epoch: n.Epoch, Text: n.Text}
	if n.Kind == protocol.NoteLeader {
		v := n.Value
		ev.Value = &v
		e.n.leader = n.Leader
	}
	e.h.emitLocal(e.n, &ev)
}

func (e *env) Logf(format string, args ...any) {
	if e.h.opt.Debug && e.h.opt.Log != nil {
		fmt.Fprintf(e.h.opt.Log, "%s node %d: %s\n", e.h.now().Round(time.Millisecond), e.n.id, fmt.Sprintf(format, args...))
	}
}
