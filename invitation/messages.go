package invitation

import (
	"fmt"

	"manetlab/protocol"
)

// MsgType says which of the algorithm's messages a Msg is.
type MsgType uint8

// The message types. The numbers travel on the wire: append only.
const (
	TypeAreYouCoordinator MsgType = iota + 1 // Check: a coordinator looks for other coordinators
	TypeCoordinatorReply                     // the answer: Yes if the sender is a coordinator in Normal
	TypeAreYouThere                          // Timeout: a member asks its coordinator whether its group lives
	TypeThereReply                           // the answer: Yes if the group and the membership hold
	TypeInvitation                           // Merge: join group (Coord, Counter); forwarded by invited coordinators to their members
	TypeAccept                               // an invited node accepts, to the new coordinator
	TypeAcceptReply                          // the coordinator's answer: Yes if the accept came in time
	TypeReady                                // Reorganization done: the group is formed, go Normal
)

// The message kinds, as traces and summaries count them.
const (
	KindAreYouCoordinator = "are-you-coordinator"
	KindCoordinatorReply  = "coordinator-reply"
	KindAreYouThere       = "are-you-there"
	KindThereReply        = "there-reply"
	KindInvitation        = "invitation"
	KindAccept            = "accept"
	KindAcceptReply       = "accept-reply"
	KindReady             = "ready"
)

var kinds = [...]string{
	TypeAreYouCoordinator: KindAreYouCoordinator,
	TypeCoordinatorReply:  KindCoordinatorReply,
	TypeAreYouThere:       KindAreYouThere,
	TypeThereReply:        KindThereReply,
	TypeInvitation:        KindInvitation,
	TypeAccept:            KindAccept,
	TypeAcceptReply:       KindAcceptReply,
	TypeReady:             KindReady,
}

// Msg is every message of the algorithm. The reliable channel carries one
// concrete type (the wire never decodes into an interface), so the messages
// share a struct of scalars: Type says which one it is.
type Msg struct {
	Type MsgType
	// Coord and Counter name a group: the invitation's, accept's, accept
	// reply's and ready's group; the group an are-you-there asks about and
	// its reply answers for; on a coordinator reply, the replier's own
	// group (for people reading the trace).
	Coord   protocol.NodeID `msgpack:",omitempty"`
	Counter uint64          `msgpack:",omitempty"`
	// Round numbers a coordinator's checks: a coordinator reply echoes the
	// round it answers.
	Round uint64 `msgpack:",omitempty"`
	// Yes is the answer of a reply.
	Yes bool `msgpack:",omitempty"`
	// Size is, on a ready, how many nodes the group has (the coordinator
	// included): the "task" Garcia-Molina's Ready distributes, reduced to
	// what a reader of the trace wants to know.
	Size uint32 `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m Msg) Kind() string {
	if int(m.Type) < len(kinds) && kinds[m.Type] != "" {
		return kinds[m.Type]
	}
	return "unknown"
}

func (m Msg) group() Group { return Group{Coord: m.Coord, Counter: m.Counter} }

// Group names a group: its coordinator and the coordinator's counter when
// it formed the group. The counter is kept in stable storage and never
// repeats, so no two groups share a name, even across crashes.
type Group struct {
	Coord   protocol.NodeID
	Counter uint64
}

// String is the group's name as leader notes carry it in Epoch:
// "coord.counter".
func (g Group) String() string {
	if g.Coord == protocol.None {
		return ""
	}
	return fmt.Sprintf("%d.%d", g.Coord, g.Counter)
}
