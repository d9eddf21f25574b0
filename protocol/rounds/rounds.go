// Package rounds is the contract of synchronous algorithms: algorithms that
// see rounds, not time. In round r every awake node receives the messages
// its neighbours sent to it in round r-1 and sends the messages of round r;
// the algorithm knows nothing of timers, acknowledgements or loss.
//
// A synchronizer (simple, alpha, beta, abd) wraps an Algorithm into an
// ordinary protocol.Process that runs over the asynchronous radio; Lockstep
// runs one in perfect rounds with no network at all, the reference that
// every synchronizer must reproduce round for round and message for
// message.
//
// Wake-up is part of the contract: a node wakes spontaneously at the round
// the scenario gives it (protocol.params.wake) or when its first message
// arrives, whichever comes first; Start tells the algorithm which.
//
// Register (register.go) turns a Family into a protocol; the
// synchronizers live in process.go (what they share: the reliable channel,
// the neighbours, the inbox, the round notes), simple.go, alpha.go,
// beta.go, abd.go and none.go; wire.go holds their one message type and
// the sync-* kinds. docs/protocols/synchronizers.md gives each one's cost
// and counting rule.
//
// It sits beneath protocol with the other protocol-side pieces and imports
// only protocol, protocol/logicalring and protocol/reliable.
package rounds

import "manetlab/protocol"

// In is a message received in a round: sent by From in the round before.
type In[T protocol.Message] struct {
	From protocol.NodeID
	Msg  T
}

// Out is a message sent in a round, to a neighbour of the algorithm's
// graph.
type Out[T protocol.Message] struct {
	To  protocol.NodeID
	Msg T
}

// Context is what a synchronous algorithm knows of the world.
type Context struct {
	// ID is this node.
	ID protocol.NodeID
	// Members lists every node of the run in ascending order (n is
	// len(Members), for algorithms that know n).
	Members []protocol.NodeID
	// Neighbors are this node's neighbours in the algorithm's graph, in
	// ascending order: its two ring neighbours (Left, Right) for a ring
	// algorithm, its radio neighbours for a graph algorithm (those heard
	// during the settle period, made symmetric by sync-hello, then fixed).
	Neighbors []protocol.NodeID
	// Left and Right are the ring neighbours (the predecessor and the
	// successor in the logical ring) for a ring algorithm; None otherwise.
	// Ring algorithms send "left" to Right, in the seed's orientation of
	// clockwise message flow; each algorithm's doc says which it uses.
	Left, Right protocol.NodeID
	// Note records a protocol event in the trace (the leader, a parent).
	Note func(protocol.Note)
}

// Algorithm is one node's instance of a synchronous algorithm. Like a
// Process it is a deterministic state machine, driven from one goroutine.
type Algorithm[T protocol.Message] interface {
	// Start wakes the node at round r: spontaneously (its wake round came)
	// or, when spontaneous is false, because messages arrived for round r.
	// It is called once, before the node's first Round.
	Start(r int, spontaneous bool)
	// Round runs round r at an awake node: in holds the messages sent to
	// this node in round r-1, in the order of their senders' IDs (and of
	// sending, per sender); it returns the messages this node sends in
	// round r. Round is called for every round from the wake round on,
	// with or without messages, until Halted.
	Round(r int, in []In[T]) []Out[T]
	// Halted reports that the node has terminated: it sends nothing more
	// and later messages to it are dropped.
	Halted() bool
}

// Graph names the graph an algorithm runs on.
type Graph string

const (
	// GraphRing: the logical ring of protocol.params.ring (package
	// protocol/logicalring); neighbours are the two ring neighbours,
	// reached over a reliable channel across any number of radio hops.
	GraphRing Graph = "ring"
	// GraphRadio: the radio neighbours at the start of the run, reached in
	// one hop.
	GraphRadio Graph = "radio"
)

// Family describes a synchronous algorithm for registration: Register (in
// the synchronizer code) turns it into a protocol.Spec named Name whose
// Process runs the algorithm over the synchronizer chosen with
// protocol.params.synchronizer, and whose messages are the synchronizers'
// envelopes of T.
type Family[T protocol.Message] struct {
	// Name is the protocol name, "sync/<algorithm>".
	Name    string
	Summary string
	// Graph is the graph the algorithm runs on.
	Graph Graph
	// Goal is what the checker judges the result by (GoalHighestID for an
	// election of the highest ID, GoalTree for a BFS tree...).
	Goal protocol.Goal
	// New builds one node's algorithm. p holds the scenario's
	// protocol.params; the framework reads its own keys (synchronizer,
	// wake, ring, d...) before and rejects the unknown ones after, so New
	// reads only the algorithm's keys. On the radio graph New is called
	// twice: from the Spec's New with no Neighbors, to check the
	// parameters (that instance is dropped), and once the neighbours are
	// learnt, before round 1 (an error then is logged and the node stays
	// out). New should therefore not note anything: note in Start and
	// Round.
	New func(ctx Context, p *protocol.ParamReader) (Algorithm[T], error)
	// Theory gives the algorithm's synchronous complexity for a run: the
	// members (in ring order for a ring algorithm), the wake rounds and the
	// parameters. Nil when theory gives nothing exact.
	Theory func(members []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (Theory, error)
	// TheoryGraph, when set, gives the complexity on the graph the run
	// ran on: every member's neighbours as its node fixed them once
	// settled (the analysis reads them from the sync notes). The analysis
	// prefers it to Theory when every member noted its neighbours; Theory
	// stays the figure without the graph (a bound, for a graph algorithm).
	TheoryGraph func(neighbors map[protocol.NodeID][]protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (Theory, error)
	// Candidates, when set, lists the members that can win an election of
	// the run, from the members (in ring order for a ring algorithm), the
	// wake rounds and the parameters (slow-fast: only the nodes that wake
	// spontaneously compete; TimeSlice: only those awake when their phase
	// begins); nil means every member (protocol.Spec.Candidates).
	Candidates func(members []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) []protocol.NodeID
}

// Theory is a synchronous algorithm's complexity for one run: its rounds
// (T_S) and its messages (M_S), each exact where the seed gives an exact
// form and a bound otherwise.
type Theory struct {
	Rounds   protocol.Bound
	Messages protocol.Bound
}
