package ring

import "manetlab/protocol"

// MsgType says which of the family's messages a Msg is.
type MsgType uint8

// The message types. The numbers travel on the wire: append only.
const (
	TypeToken       MsgType = iota + 1 // LeLann, Chang-Roberts: a candidate's ID going round
	TypeElected                        // LeLann, Chang-Roberts, Hirschberg-Sinclair: the announcement
	TypeProbe                          // Hirschberg-Sinclair: a candidate probing its 2^k-neighbourhood
	TypeReply                          // Hirschberg-Sinclair: a probe's answer from distance 2^k
	TypeElection                       // Tanenbaum: the election message collecting live IDs
	TypeCoordinator                    // Tanenbaum: the announcement
	TypeCheck                          // Tanenbaum: a member checks that its coordinator is alive
	TypeOutdated                       // Tanenbaum: "your election or check is out of date"
)

// The message kinds, as traces and summaries count them.
const (
	KindToken       = "token"
	KindElected     = "elected"
	KindProbe       = "probe"
	KindReply       = "reply"
	KindElection    = "election"
	KindCoordinator = "coordinator"
	KindCheck       = "check"
	KindOutdated    = "outdated"
)

var kinds = [...]string{
	TypeToken:       KindToken,
	TypeElected:     KindElected,
	TypeProbe:       KindProbe,
	TypeReply:       KindReply,
	TypeElection:    KindElection,
	TypeCoordinator: KindCoordinator,
	TypeCheck:       KindCheck,
	TypeOutdated:    KindOutdated,
}

// Msg is every message of the ring family. The reliable channel carries one
// concrete type (the wire never decodes into an interface), so the messages
// share a struct: Type says which one it is, and each type sets only the
// fields listed beside them. Msg values are immutable once sent: Live is
// copied, never appended to in place.
type Msg struct {
	Type MsgType
	// Epoch is the election's number: 1 for the first, the highest seen
	// plus one for every later one.
	Epoch uint64 `msgpack:",omitempty"`
	// ID is the candidate (token, probe, reply), the leader (elected,
	// coordinator, check) or the initiator (election).
	ID protocol.NodeID `msgpack:",omitempty"`
	// Origin is the initiator whose election a coordinator concludes; on
	// a check, the sender's leader in Epoch once its coordinator passed.
	Origin protocol.NodeID `msgpack:",omitempty"`
	// Phase is a probe's or reply's phase k.
	Phase uint8 `msgpack:",omitempty"`
	// Hops is the distance a probe has travelled (1 at the first hop).
	Hops uint32 `msgpack:",omitempty"`
	// Back is set on a probe or reply travelling towards predecessors.
	Back bool `msgpack:",omitempty"`
	// Live lists the members an election message has passed, initiator
	// first.
	Live []protocol.NodeID `msgpack:",omitempty"`
	// Reached is set on a coordinator once it has passed the leader.
	Reached bool `msgpack:",omitempty"`
	// Done is set on an outdated reply when the sender's election Epoch
	// has finished (its coordinator went round).
	Done bool `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m Msg) Kind() string {
	if int(m.Type) < len(kinds) && kinds[m.Type] != "" {
		return kinds[m.Type]
	}
	return "unknown"
}
