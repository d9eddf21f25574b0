package reliable

import (
	"fmt"

	"manetlab/protocol"
)

// Window bounds how far ahead of the next expected Seq a receiver holds an
// early Data; a sender keeps at most Window messages per peer in flight and
// queues the rest until acknowledgements make room.
const Window = 1024

// Channel is one node's end of the reliable channels to every other node.
// Like the Process that embeds it, it is driven from one goroutine.
type Channel[T protocol.Message] struct {
	env     protocol.Env
	self    protocol.NodeID
	cfg     Config // with defaults filled in
	inc     uint64
	started bool
	out     map[protocol.NodeID]*outbound[T]
	in      map[protocol.NodeID]*inbound[T]
}

// Output is what one Step made happen.
type Output[T protocol.Message] struct {
	// Delivered lists the messages now deliverable, in per-sender FIFO
	// order, each exactly once.
	Delivered []Delivery[T]
	// Unreachable lists the peers that did not acknowledge after
	// Config.Retries retransmissions.
	Unreachable []Failure[T]
}

// Delivery is one message delivered in order.
type Delivery[T protocol.Message] struct {
	From protocol.NodeID
	Msg  T
}

// Failure reports a peer declared unreachable, with the messages it never
// acknowledged in the order they were sent, so that the protocol can
// redirect them (to the next live successor, say). Some of them may have
// arrived: only their acknowledgements may have been lost.
type Failure[T protocol.Message] struct {
	Peer    protocol.NodeID
	Unacked []T
}

// New returns self's channel over env. Zero fields of cfg take their
// defaults.
func New[T protocol.Message](env protocol.Env, self protocol.NodeID, cfg Config) *Channel[T] {
	return &Channel[T]{
		env:  env,
		self: self,
		cfg:  cfg.withDefaults(),
		out:  map[protocol.NodeID]*outbound[T]{},
		in:   map[protocol.NodeID]*inbound[T]{},
	}
}

// Start begins this incarnation: call it on protocol.Start, before the
// first Send. The incarnation is Env.Now in nanoseconds, so a node that
// recovers (a fresh Process, started later) has a larger one.
func (c *Channel[T]) Start() {
	c.inc = uint64(c.env.Now())
	c.started = true
}

// Step handles the channel's own events: a protocol.Receive whose Msg is a
// Data[T] or an Ack, and a protocol.Timeout named Config.Timer. It returns
// ok=false for every other event, which the embedding protocol handles
// itself.
func (c *Channel[T]) Step(ev protocol.Event) (out Output[T], ok bool) {
	switch e := ev.(type) {
	case protocol.Receive:
		switch m := e.Msg.(type) {
		case Data[T]:
			c.receiveData(e.From, m, &out)
			return out, true
		case Ack:
			if m.Chan != c.cfg.Timer {
				return out, false // another channel's, in a composed protocol
			}
			c.receiveAck(e.From, m)
			return out, true
		}
	case protocol.Timeout:
		if e.Name == c.cfg.Timer {
			c.timeout(e, &out)
			return out, true
		}
	}
	return out, false
}

// Send queues m for to: messages to one peer arrive in the order sent.
// Sending to self, or before Start, is a programming error and panics.
func (c *Channel[T]) Send(to protocol.NodeID, m T) {
	if to == c.self {
		panic(fmt.Sprintf("reliable: node %d sends %s to itself", c.self, m.Kind()))
	}
	if !c.started {
		panic("reliable: Send before Start")
	}
	c.send(to, m)
}

// Unacked returns how many messages to peer are queued or in flight in the
// current session, not yet acknowledged.
func (c *Channel[T]) Unacked(peer protocol.NodeID) int {
	if o := c.out[peer]; o != nil {
		return len(o.queue)
	}
	return 0
}
