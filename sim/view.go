package sim

import (
	"math/rand/v2"

	"manetlab/netstack"
	"manetlab/protocol"
)

// NodeView is one node's whole state as an explorer fingerprints it
// (package explore): its process, its network stack, its pending
// protocol timers and its stable storage. The pointers are the live
// state: read it, never change it.
type NodeView struct {
	ID    protocol.NodeID
	Alive bool
	Inc   uint32 // the incarnation: 1 in the first life
	Value float64
	Proc  protocol.Process // nil while crashed
	Stack *netstack.Stack
	// Timers are the pending protocol timers, in the order they were set.
	Timers []TimerView
	Store  *protocol.MemStore
	// Rand is the process's random stream (Env.Rand); nil while crashed.
	Rand *rand.Rand
	// Touch counts the events that may have changed the node, when the
	// Controller counts them (CountTouches; else 0): two runs of one
	// scenario with the same choices have the same counts at the same
	// step, and a node whose count did not move between two steps of a
	// run has the state it had (for the explorer's incremental
	// fingerprint).
	Touch uint64
}

// TimerView is one pending protocol timer.
type TimerView struct {
	ID   protocol.TimerID
	Name string
	Arg  int64
}

// View returns every node's state now, in member order.
func (c *Controller) View() []NodeView {
	out := make([]NodeView, len(c.w.nodes))
	for i, n := range c.w.nodes {
		v := NodeView{ID: n.id, Alive: n.alive, Inc: n.inc, Value: n.value, Proc: n.proc, Stack: &n.stack, Store: &n.store, Touch: n.touch}
		if n.alive {
			v.Rand = n.env.rng
			v.Timers = make([]TimerView, len(n.timers))
			for k, t := range n.timers {
				v.Timers[k] = TimerView{ID: protocol.TimerID(t.id), Name: t.name, Arg: t.arg}
			}
		}
		out[i] = v
	}
	return out
}
