package mutex

import (
	"fmt"

	"manetlab/protocol"
)

// centralType says which of the centralized algorithm's messages a
// centralMsg is.
type centralType uint8

// The centralized algorithm's message types. The numbers travel on the
// wire: append only.
const (
	centralRequest  centralType = iota + 1 // client -> coordinator: may I enter?
	centralGrant                           // coordinator -> client: enter
	centralRelease                         // client -> coordinator: I left (or: I do not hold what you granted or checked)
	centralInquire                         // new coordinator -> every member: what is your state? (rebuilds the queue)
	centralReport                          // member -> coordinator: idle, wanting (its outstanding request) or holding
	centralOutdated                        // member -> coordinator: your term is older than the one I follow
	centralCheck                           // coordinator -> holder: do you still hold it? (the acknowledgement answers yes)
)

// The centralized algorithm's message kinds, as traces count them. One
// entry by a client that is not the coordinator costs exactly one
// request, one grant and one release.
const (
	centralKindRequest  = "request"
	centralKindGrant    = "grant"
	centralKindRelease  = "release"
	centralKindInquire  = "inquire"
	centralKindReport   = "report"
	centralKindOutdated = "outdated"
	centralKindCheck    = "check"
)

var centralKinds = [...]string{
	centralRequest:  centralKindRequest,
	centralGrant:    centralKindGrant,
	centralRelease:  centralKindRelease,
	centralInquire:  centralKindInquire,
	centralReport:   centralKindReport,
	centralOutdated: centralKindOutdated,
	centralCheck:    centralKindCheck,
}

// centralState is a member's state in a report.
type centralState uint8

const (
	centralReportIdle    centralState = iota // neither wants nor holds the section
	centralReportWanting                     // its request Inc.Seq is outstanding
	centralReportHolding                     // it holds the section by request Inc.Seq
)

// centralMsg is every message of the centralized algorithm, one struct of
// scalars because the reliable channel carries one concrete type.
type centralMsg struct {
	Type centralType
	// Term is the coordinator's term number (with Coord, the term): every
	// coordinator takes a number above every one it has seen, so a
	// member tells the newest coordinator from a stale one.
	Term  uint64          `msgpack:",omitempty"`
	Coord protocol.NodeID `msgpack:",omitempty"`
	// Inc and Seq name a request: the client's incarnation (Env.Now at
	// its Start, in nanoseconds) and its request counter. Grants,
	// releases, reports and checks name the request they concern.
	Inc uint64 `msgpack:",omitempty"`
	Seq uint64 `msgpack:",omitempty"`
	// State is a report's state.
	State centralState `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m centralMsg) Kind() string {
	if int(m.Type) < len(centralKinds) && centralKinds[m.Type] != "" {
		return centralKinds[m.Type]
	}
	return "unknown"
}

// centralTerm is a coordinator's term: its number, ties to the higher
// coordinator ID. None of both is "no term yet".
type centralTerm struct {
	Num   uint64
	Coord protocol.NodeID
}

// after orders terms by number, ties to the higher coordinator.
func (t centralTerm) after(o centralTerm) bool {
	if t.Num != o.Num {
		return t.Num > o.Num
	}
	return t.Coord > o.Coord
}

func (t centralTerm) String() string { return fmt.Sprintf("%d.%d", t.Coord, t.Num) }

// centralTermOf is the term a message names.
func centralTermOf(m centralMsg) centralTerm { return centralTerm{Num: m.Term, Coord: m.Coord} }

// centralEntry is a request as the coordinator keeps it.
type centralEntry struct {
	from     protocol.NodeID
	inc, seq uint64
}

func (e centralEntry) String() string { return fmt.Sprintf("%d (request %d)", e.from, e.seq) }
