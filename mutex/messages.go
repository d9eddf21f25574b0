package mutex

import "manetlab/protocol"

// The message types of Ricart-Agrawala, Lamport and Suzuki-Kasami. Each
// algorithm has its own message struct, carried by its own reliable
// channel; the numbers travel on the wire: append only.

// KindResend is the kind of an algorithm message sent again, in a new
// session of the reliable channel, after the channel gave up on its peer:
// a transport repeat (protocol.IsTransport holds), counted apart from the
// algorithm's messages like the channel's own retransmissions.
const KindResend = protocol.TransportPrefix + "resend"

// RAType says which Ricart-Agrawala message an RAMsg is.
type RAType uint8

// The Ricart-Agrawala message types.
const (
	RARequest RAType = iota + 1 // "request": asks every other member for the section
	RAReply                     // "reply": permission, at once or deferred until exit
)

// RAMsg is a Ricart-Agrawala message.
type RAMsg struct {
	Type RAType
	// TS is the request's Lamport timestamp on a request; the sender's
	// clock on a reply.
	TS uint64 `msgpack:",omitempty"`
	// For is, on a reply, the timestamp of the request it answers, so that
	// a stale or duplicate reply is told from a current one.
	For uint64 `msgpack:",omitempty"`
	// Resent marks a message sent again after its peer was unreachable.
	Resent bool `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m RAMsg) Kind() string {
	switch {
	case m.Resent:
		return KindResend
	case m.Type == RARequest:
		return "request"
	case m.Type == RAReply:
		return "reply"
	}
	return "unknown"
}

func (m RAMsg) resent() RAMsg { m.Resent = true; return m }

// LamportType says which message of Lamport's algorithm a LamportMsg is.
type LamportType uint8

// The message types of Lamport's algorithm.
const (
	LamportRequest LamportType = iota + 1 // "request": queue my request
	LamportReply                          // "reply": the acknowledgement of a request
	LamportRelease                        // "release": remove my request, I left
)

// LamportMsg is a message of Lamport's algorithm.
type LamportMsg struct {
	Type LamportType
	// TS is the sender's Lamport clock when it sent the message (on a
	// request, the request's timestamp).
	TS uint64 `msgpack:",omitempty"`
	// For is, on a reply or a release, the timestamp of the request it
	// acknowledges or releases.
	For uint64 `msgpack:",omitempty"`
	// Resent marks a message sent again after its peer was unreachable.
	Resent bool `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m LamportMsg) Kind() string {
	switch {
	case m.Resent:
		return KindResend
	case m.Type == LamportRequest:
		return "request"
	case m.Type == LamportReply:
		return "reply"
	case m.Type == LamportRelease:
		return "release"
	}
	return "unknown"
}

func (m LamportMsg) resent() LamportMsg { m.Resent = true; return m }

// SKType says which Suzuki-Kasami message an SKMsg is.
type SKType uint8

// The Suzuki-Kasami message types.
const (
	SKRequest SKType = iota + 1 // "request": the sender's n-th request, to every other member
	SKToken                     // "token": the privilege, with LN and the queue
)

// SKMsg is a Suzuki-Kasami message. Values are immutable once sent: the
// holder copies LN and Queue into every token it sends.
type SKMsg struct {
	Type SKType
	// Seq is, on a request, the requester's request number RN[i].
	Seq uint64 `msgpack:",omitempty"`
	// Pass counts the token's passes since it was created, so that a
	// duplicate of a token already held is told from the token.
	Pass uint64 `msgpack:",omitempty"`
	// LN is, on the token, the number of each member's last granted
	// request, in the order of the members (ascending IDs).
	LN []uint64 `msgpack:",omitempty"`
	// Queue is, on the token, the members waiting for it, first first.
	Queue []protocol.NodeID `msgpack:",omitempty"`
	// Resent marks a message sent again after its peer was unreachable.
	Resent bool `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m SKMsg) Kind() string {
	switch {
	case m.Resent:
		return KindResend
	case m.Type == SKRequest:
		return "request"
	case m.Type == SKToken:
		return "token"
	}
	return "unknown"
}

func (m SKMsg) resent() SKMsg { m.Resent = true; return m }
