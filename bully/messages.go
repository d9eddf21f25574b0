package bully

import (
	"fmt"

	"manetlab/protocol"
)

// MsgType says which of the family's messages a Msg is.
type MsgType uint8

// The message types of both forms. The numbers travel on the wire: append
// only.
const (
	TypeElection       MsgType = iota + 1 // textbook: "I want to be the leader", to every higher ID
	TypeOK                                // textbook: the answer of a live higher ID ("reply" in seed 000)
	TypeCoordinator                       // textbook: "I am the leader", to every lower ID
	TypeCheck                             // textbook: a member checks its coordinator; a coordinator probes the higher IDs
	TypeOutdated                          // textbook: "your announcement or check is out of date"
	TypeAreYouThere                       // Garcia-Molina: an election asks the higher IDs
	TypeHalt                              // Garcia-Molina: the new coordinator stops the lower IDs
	TypeNewCoordinator                    // Garcia-Molina: to the halted nodes that answered
	TypeReady                             // Garcia-Molina: the new task (the epoch); the group is Normal
	TypeAreYouNormal                      // Garcia-Molina: the coordinator's periodic Check
	TypeNotNormal                         // Garcia-Molina: the answer "no" to AreYouNormal or to a probe
	TypeProbe                             // Garcia-Molina: a member's Timeout asks its coordinator (AreYouThere as a probe)
)

// The message kinds, as traces and summaries count them.
const (
	KindElection       = "election"
	KindOK             = "ok"
	KindCoordinator    = "coordinator"
	KindCheck          = "check"
	KindOutdated       = "outdated"
	KindAreYouThere    = "are-you-there"
	KindHalt           = "halt"
	KindNewCoordinator = "new-coordinator"
	KindReady          = "ready"
	KindAreYouNormal   = "are-you-normal"
	KindNotNormal      = "not-normal"
	KindProbe          = "probe"
)

var kinds = [...]string{
	TypeElection:       KindElection,
	TypeOK:             KindOK,
	TypeCoordinator:    KindCoordinator,
	TypeCheck:          KindCheck,
	TypeOutdated:       KindOutdated,
	TypeAreYouThere:    KindAreYouThere,
	TypeHalt:           KindHalt,
	TypeNewCoordinator: KindNewCoordinator,
	TypeReady:          KindReady,
	TypeAreYouNormal:   KindAreYouNormal,
	TypeNotNormal:      KindNotNormal,
	TypeProbe:          KindProbe,
}

// Msg is every message of the family. The reliable channel carries one
// concrete type (the wire never decodes into an interface), so the
// messages share a struct of scalars: Type says which one it is.
type Msg struct {
	Type MsgType
	// Num is an election number. On coordinator, halt, new-coordinator,
	// ready and are-you-normal it is the number of the epoch announced or
	// checked; on check and election, the number of the epoch the sender
	// followed last; on every other message, the highest number the
	// sender has seen. Receivers remember the highest number seen, so that
	// the next coordinator numbers its epoch above it.
	Num uint64 `msgpack:",omitempty"`
	// Leader is, on check and election, the leader of the epoch the
	// sender followed last (None: none yet); a coordinator probing the
	// higher IDs names itself.
	Leader protocol.NodeID `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m Msg) Kind() string {
	if int(m.Type) < len(kinds) && kinds[m.Type] != "" {
		return kinds[m.Type]
	}
	return "unknown"
}

// Epoch names an election's outcome: its coordinator and the number the
// coordinator gave it. A coordinator's numbers never repeat (the highest is
// in stable storage), so no two epochs share a name, even across crashes.
type Epoch struct {
	Num    uint64
	Leader protocol.NodeID
}

// String is the epoch as leader notes carry it: "leader.num", as the
// invitation algorithm names its groups.
func (e Epoch) String() string {
	if e.Leader == protocol.None {
		return ""
	}
	return fmt.Sprintf("%d.%d", e.Leader, e.Num)
}

// After orders epochs by number, ties to the higher leader.
func (e Epoch) After(o Epoch) bool {
	if e.Num != o.Num {
		return e.Num > o.Num
	}
	return e.Leader > o.Leader
}
