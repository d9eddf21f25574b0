package reliable

import (
	"fmt"
	"reflect"

	"manetlab/protocol"
)

// The kinds of the channel's own messages, counted apart from the
// algorithm's (protocol.IsTransport holds for both).
const (
	KindAck  = protocol.TransportPrefix + "ack"
	KindRetx = protocol.TransportPrefix + "retx"
)

// Data carries one algorithm message of type T. T must be a concrete type
// (a struct), not an interface: the wire codec refuses to decode network
// bytes into an interface, so a protocol with several messages puts them in
// one struct.
type Data[T protocol.Message] struct {
	// Inc is the sender's incarnation: Env.Now in nanoseconds when its
	// channel started. A recovered node has a larger one.
	Inc uint64
	// Conn is the session with this peer: the sender starts a new one after
	// declaring the peer unreachable.
	Conn uint32
	// Seq is 1, 2, 3... per sender, receiver, Inc and Conn.
	Seq uint32
	// Base is the sender's oldest unacknowledged Seq when it sent this
	// frame: where a receiver with no state for the session (it recovered
	// from a crash since acknowledging earlier ones) starts delivering.
	Base uint32
	// Retx is set on retransmissions.
	Retx bool
	Msg  T
}

// Kind is the algorithm message's kind on the first transmission and
// KindRetx on retransmissions, so that traces and summaries count
// retransmissions apart.
func (d Data[T]) Kind() string {
	if d.Retx {
		return KindRetx
	}
	return d.Msg.Kind()
}

// Ack acknowledges cumulatively every Data up to Seq of the session (Inc,
// Conn), which is the sender's session: the receiver echoes it.
type Ack struct {
	// Chan is the acknowledging channel's Config.Timer name, so that two
	// channels composed in one protocol (a mutual exclusion algorithm over
	// an election) each take only their own acknowledgements.
	Chan string
	Inc  uint64
	Conn uint32
	Seq  uint32
}

// Kind is KindAck.
func (Ack) Kind() string { return KindAck }

// Messages returns the zero values a protocol lists in
// protocol.Spec.Messages for a channel of T: Data[T]{} and Ack{}. It panics
// if T is an interface type, which the wire could not carry.
func Messages[T protocol.Message]() []protocol.Message {
	if t := reflect.TypeFor[T](); t.Kind() == reflect.Interface {
		panic(fmt.Sprintf("reliable: Data[%v]: the message type must be concrete, not an interface", t))
	}
	return []protocol.Message{Data[T]{}, Ack{}}
}

// ChannelSeq is d's place in its channel: the sender's incarnation, the
// session and the sequence number. A driver that lets a person reorder
// deliveries (the simulator's Controller) reads it to keep each
// session's FIFO order, without knowing T.
func (d Data[T]) ChannelSeq() (inc uint64, conn, seq uint32) { return d.Inc, d.Conn, d.Seq }
