package netstack

import (
	"time"

	"manetlab/protocol"
)

// Unreachable is a destination a route error reports, with its
// destination sequence number.
type Unreachable struct {
	Dest protocol.NodeID
	Seq  uint32
}

// Type is the kind of a frame on the air.
type Type uint8

// Frame types.
const (
	Hello     Type = iota + 1 // neighbour discovery, no body
	Broadcast                 // one hop to every node in range, no acknowledgement
	Unicast                   // one hop to one neighbour, acknowledged
	Ack                       // acknowledges a unicast frame
	Flood                     // one hop of a multi-hop message
	Data                      // one hop of a routed multi-hop message (AODV), acknowledged
	RREQ                      // an AODV route request, broadcast and relayed
	RREP                      // an AODV route reply, unicast hop by hop, acknowledged
	RERR                      // an AODV route error, broadcast to the neighbours
	AODVHello                 // an AODV hello: a route reply for the sender itself, broadcast one hop (RFC 3561 6.9)
	RTS                       // DCF: asks To to clear the medium for the frame Seq (Lifetime: the NAV it sets)
	CTS                       // DCF: answers an RTS from To (AckSeq: its Seq; Lifetime: the NAV it sets)
	RREPAck                   // an AODV route reply acknowledgement (RREP-ACK, RFC 3561 5.4), unicast to the reply's sender, acknowledged
)

// Acknowledged reports whether frames of type t go through a link queue
// and are acknowledged by their receiver.
func (t Type) Acknowledged() bool { return t == Unicast || t == Data || t == RREP || t == RREPAck }

// String returns the type's name.
func (t Type) String() string {
	switch t {
	case Hello:
		return "hello"
	case Broadcast:
		return "broadcast"
	case Unicast:
		return "unicast"
	case Ack:
		return "ack"
	case Flood:
		return "flood"
	case Data:
		return "data"
	case RREQ:
		return "rreq"
	case RREP:
		return "rrep"
	case RERR:
		return "rerr"
	case AODVHello:
		return "aodv-hello"
	case RTS:
		return "rts"
	case CTS:
		return "cts"
	case RREPAck:
		return "rrep-ack"
	}
	return "frame"
}

// HasBody reports whether frames of type t carry a protocol message.
func (t Type) HasBody() bool { return t == Broadcast || t == Unicast || t == Flood || t == Data }

// Frame is one transmission. Nodes are named by member index (the
// mobility model's node number), as the radio names them; Final, a
// protocol-level destination, is an ID.
type Frame struct {
	Type Type
	From int32  // the transmitter
	To   int32  // Unicast and Ack: the receiver; -1 otherwise
	Seq  uint64 // the transmitter's frame sequence number (a retransmission keeps it)
	// AckSeq is, in an Ack, the Seq of the unicast frame acknowledged.
	AckSeq uint64

	// Flood: the originator and its sequence number (duplicate
	// suppression), the hops travelled before this transmission (0 from
	// the origin), the most it may travel, and its destination (None:
	// every node).
	Origin   int32
	OSeq     uint64
	Hops     uint8
	HopLimit uint8
	Final    protocol.NodeID

	// AODV (docs/routing.md). A Data frame uses the flood's fields: its
	// originator, originator's message number, hops, hop limit and
	// destination. A RREQ: Origin and OSeq (the RREQ ID), OrigSeq, Final
	// (the destination sought), DestSeq (0: unknown), Hops (hop count)
	// and TTL. A RREP: Origin (the originator of the request, where the
	// reply goes), Final (the destination), DestSeq, Hops and Lifetime.
	// A RREP's AckRequired is RFC 3561's A flag: its receiver answers
	// with a RREPAck. A RERR: Unreachable. An AODVHello: Final (the sender's ID),
	// DestSeq (its sequence number) and Lifetime. An RTS or a CTS:
	// Lifetime is the duration it announces (the NAV).
	TTL         uint8
	AckRequired bool
	OrigSeq     uint32
	DestSeq     uint32
	Lifetime    time.Duration
	Unreachable []Unreachable

	// Msg is the protocol message of a Broadcast, Unicast or Flood frame.
	// On a frame heard it may be nil until Driver.Decode sets it.
	Msg protocol.Message
	// Bytes is the size of Msg's encoding (Driver.Encode sets it).
	Bytes int
	// Airtime is, on the DCF medium, how long this transmission occupies
	// the air (set when it starts); 0 on the ideal medium.
	Airtime time.Duration
	// Code and Body are a driver's encoding of Msg, kept so that a
	// retransmission or a relay is not encoded again; the simulator
	// leaves them empty.
	Code uint16
	Body []byte
}

// Says is what f's message carries (protocol.DescribeMessage), written
// as the Text of its send and relay events; "" when it does not say.
func (f *Frame) Says() string {
	if f.Msg == nil {
		return ""
	}
	return protocol.DescribeMessage(f.Msg)
}

// Kind is the trace's kind of f: its message's kind, or "hello".
func (f *Frame) Kind() string {
	if f.Msg == nil {
		return f.Type.String()
	}
	return f.Msg.Kind()
}
