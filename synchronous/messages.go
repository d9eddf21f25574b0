package synchronous

import "manetlab/protocol"

// MsgType says which of the package's messages a Msg is.
type MsgType uint8

// The message types. The numbers travel on the wire: append only.
const (
	TypeToken   MsgType = iota + 1 // TimeSlice: the elected node's token, once round the ring
	TypeFast                       // slow-fast: a candidate's ID moving one edge per round
	TypeSlow                       // slow-fast: a candidate's ID moving one edge every 2^ID rounds
	TypeElected                    // slow-fast: the leader's announcement, once round the ring
	TypeInvite                     // BFS: an invitation to join the tree
)

// The message kinds, as traces and summaries count them.
const (
	KindToken   = "token"
	KindFast    = "fast"
	KindSlow    = "slow"
	KindElected = "elected"
	KindInvite  = "invite"
)

var kinds = [...]string{
	TypeToken:   KindToken,
	TypeFast:    KindFast,
	TypeSlow:    KindSlow,
	TypeElected: KindElected,
	TypeInvite:  KindInvite,
}

// Msg is every message of the package's algorithms: one concrete struct of
// scalars (the synchronizers' envelopes carry it over the wire, which never
// decodes into an interface). Type says which message it is; each type
// sets only the fields listed beside them.
type Msg struct {
	Type MsgType
	// ID is the leader (token, elected), the candidate (fast, slow) or the
	// tree's root (invite).
	ID protocol.NodeID `msgpack:",omitempty"`
	// Depth is, on an invite, the depth the receiver takes if it adopts the
	// sender as its parent: the sender's depth plus one.
	Depth uint32 `msgpack:",omitempty"`
}

// Kind implements protocol.Message; an unknown type (a damaged or hostile
// message, which every algorithm ignores) is "unknown".
func (m Msg) Kind() string {
	if int(m.Type) < len(kinds) && kinds[m.Type] != "" {
		return kinds[m.Type]
	}
	return "unknown"
}
