package protocol

import (
	"strings"
	"time"
)

// Goal is what a protocol sets out to achieve, so that the checker judges
// each protocol by its own goal.
type Goal string

const (
	// GoalBestValue: after stabilisation every connected component follows
	// exactly one leader, its best-valued node (ties to the higher ID).
	GoalBestValue Goal = ""
	// GoalHighestID: one leader per election epoch, the highest live ID of
	// the membership, followed by every live member (ring elections).
	GoalHighestID Goal = "highest-id"
	// GoalTree: exactly one root per connected component and every other
	// node with exactly one parent, the parent edges forming a spanning
	// tree of the component (IEEE 1394 tree identify). Nodes report their
	// parent with NoteParent; the root is also noted as leader.
	GoalTree Goal = "tree"
	// GoalMutex: mutual exclusion. The checker judges that no two nodes
	// are ever in the critical section concurrently (by happened-before)
	// and measures the sections; leadership is judged only where the
	// protocol composes an election (the centralized algorithm's
	// coordinator), by that election's goal.
	GoalMutex Goal = "mutex"
	// GoalLowestID: one leader per election epoch, the lowest ID of the
	// membership (or of its candidates), followed by every member: the
	// synchronous ring elections of seed 001 (TimeSlice, slow-fast).
	GoalLowestID Goal = "lowest-id"
	// GoalNone: nothing to elect or to grant; a traffic generator, run to
	// measure the network (package traffic). The checker judges no
	// leadership and the summary's components follow no one.
	GoalNone Goal = "none"
)

// Complexity ties a protocol's message counts to theory.
type Complexity struct {
	// Announce lists the message kinds that announce the result; they are
	// counted apart from the election's messages.
	Announce []string
	// Control lists the kinds that are neither the election's nor the
	// announcement's (liveness checks of the coordinator); every other
	// kind that is not transport counts as an election message.
	Control []string
	// Bound is the theoretical count for this run: the members in their
	// arrangement, the protocol parameters and the run's seed.
	Bound func(members []NodeID, params Params, seed uint64) (Bound, error)
	// Assumes names the failure model the algorithm assumes ("no
	// failures"), so that a run with crashes is reported as outside it
	// rather than as a protocol bug. Empty: it tolerates crashes.
	Assumes string
}

// Bound is a theoretical message count.
type Bound struct {
	Name    string  `json:"name"`            // "n(n+1)/2 worst case"
	Formula string  `json:"formula"`         // "n(n+1)/2"
	Value   float64 `json:"value"`           // the formula for this n
	Exact   *int    `json:"exact,omitempty"` // the exact count for this arrangement, where theory gives one
	// Best and Worst bracket the count over all arrangements, where known.
	Best  *int `json:"best,omitempty"`
	Worst *int `json:"worst,omitempty"`
	// EveryOrder says that Worst bounds the count in every order of the
	// run's events (the algorithm's assumptions held), not only in the
	// situation the bound describes: `manetlab explore` reports a count
	// above it as a violation (docs/explore.md).
	EveryOrder bool `json:"-"`
	// ExactIf and WorstIf are the conditions under which Exact is the
	// count and Worst bounds it, as the protocol guarantees them: a run
	// that meets them and counts more is judged invalid (trace/judge).
	// Nil: the figure describes a situation, not a guarantee, and is
	// not judged.
	ExactIf *Conditions `json:"-"`
	WorstIf *Conditions `json:"-"`
}

// Conditions are what a run must show for a message bound to hold
// (trace/judge decides them from the trace).
type Conditions struct {
	NoFaults bool // no crash and no recovery
	Static   bool // no node moves
	Lossless bool // no message of the protocol lost for good by the network
	// Together: every initiator starts at the same instant, before any
	// message can reach it (the simulator's start; real processes start
	// at their own times).
	Together bool
}

// Clean is the situation of an exact count: a static, lossless run
// without faults in which the initiators start together.
var Clean = &Conditions{NoFaults: true, Static: true, Lossless: true, Together: true}

// NoFaults is the condition of a count that only a crash or a recovery
// can raise (a synchronous algorithm's messages, counted by round).
var NoFaults = &Conditions{NoFaults: true}

// Faultless is the usual condition of a worst case that holds in every
// order of a run's events: no crash or recovery, no message lost for good.
var Faultless = &Conditions{NoFaults: true, Lossless: true}

// TransportPrefix begins the kind of every message that a protocol-side
// transport (the reliable channel) sends for itself: acknowledgements and
// retransmissions. Such messages are counted apart from the algorithm's.
const TransportPrefix = "transport-"

// IsTransport reports whether a message kind is transport overhead rather
// than an algorithm message.
func IsTransport(kind string) bool { return strings.HasPrefix(kind, TransportPrefix) }

// Better reports whether node a (value va) is a better leader than node b
// (value vb) under the goal: the higher value, ties to the higher ID, for
// GoalBestValue; the higher ID for GoalHighestID; the lower ID for
// GoalLowestID.
func (g Goal) Better(a NodeID, va float64, b NodeID, vb float64) bool {
	switch g {
	case GoalHighestID:
		return a > b
	case GoalLowestID:
		return a < b
	}
	return Better(a, va, b, vb)
}

// GoalOf returns the goal of the named protocol; an unknown name (traces
// of a protocol this binary lacks) gets the default goal.
func GoalOf(name string) Goal {
	s, err := Lookup(name)
	if err != nil {
		return GoalBestValue
	}
	return s.Goal
}

// GoalFor returns the goal of the named protocol for a run with params
// (Spec.Resolve); an unknown name gets the default goal.
func GoalFor(name string, params Params) Goal {
	s, err := LookupFor(name, params)
	if err != nil {
		return GoalBestValue
	}
	return s.Goal
}

// SettleOf returns the named protocol's Spec.Settle for params, or false
// when the protocol is unknown or declares none.
func SettleOf(name string, params Params) (time.Duration, bool) {
	s, err := LookupFor(name, params)
	if err != nil || s.Settle == nil {
		return 0, false
	}
	return s.Settle(params), true
}

// CandidatesOf returns the members of a run of the named protocol that can
// win (Spec.Candidates), or nil when every member can (or the protocol is
// unknown, or its parameters are bad: the run itself reports those).
func CandidatesOf(name string, members []NodeID, params Params, seed uint64) map[NodeID]bool {
	s, err := LookupFor(name, params)
	if err != nil || s.Candidates == nil {
		return nil
	}
	c, err := s.Candidates(members, params, seed)
	if err != nil {
		return nil
	}
	set := make(map[NodeID]bool, len(c))
	for _, id := range c {
		set[id] = true
	}
	return set
}
