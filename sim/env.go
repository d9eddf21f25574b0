package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// env is a node's protocol.Env in the simulator.
type env struct {
	w   *world
	n   *node
	rng *rand.Rand
}

func (e *env) Now() time.Duration { return e.w.now }

// The sending methods hand the message to the node's network stack,
// which does nothing once the node has crashed.

func (e *env) Send(to protocol.NodeID, m protocol.Message) { e.n.stack.Send(to, m) }

func (e *env) Broadcast(m protocol.Message) { e.n.stack.Broadcast(m) }

func (e *env) Deliver(to protocol.NodeID, m protocol.Message) { e.n.stack.Deliver(to, m) }

func (e *env) Flood(m protocol.Message) { e.n.stack.Flood(m) }

func (e *env) SetTimer(after time.Duration, name string, arg int64) protocol.TimerID {
	if after < 0 {
		after = 0
	}
	e.w.timerID++
	id := e.w.timerID
	if e.n.alive {
		e.n.timers = append(e.n.timers, pendingTimer{id: id, name: name, arg: arg})
		e.w.q.push(item{at: e.w.now + after, kind: itemTimer, node: int32(e.n.index), gen: e.n.gen, ref: id})
	}
	return protocol.TimerID(id)
}

func (e *env) CancelTimer(id protocol.TimerID) {
	e.n.timer(uint64(id))
}

func (e *env) Rand() *rand.Rand { return e.rng }

func (e *env) Note(n protocol.Note) {
	if !e.n.alive {
		return
	}
	ev := trace.Event{T: int64(e.w.now), Node: e.n.id, Ev: string(n.Kind), Leader: n.Leader, Epoch: n.Epoch, Text: n.Text}
	if n.Kind == protocol.NoteLeader {
		v := n.Value
		ev.Value = &v
	}
	e.w.out.node(e.n.index, &ev)
}

func (e *env) Logf(format string, args ...any) {
	if e.w.opt.Debug != nil {
		fmt.Fprintf(e.w.opt.Debug, "%s node %d: %s\n", e.w.now, e.n.id, fmt.Sprintf(format, args...))
	}
}
