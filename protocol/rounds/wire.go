package rounds

import (
	"strings"

	"manetlab/protocol"
)

// The kinds of the synchronizers' own messages. Every one begins with
// SyncPrefix; the spanning tree of beta's kinds begin with TreePrefix, so
// that the tree is counted apart. Algorithm messages keep their own kinds.
const (
	SyncPrefix = "sync-"
	TreePrefix = "sync-tree-"

	KindNull     = "sync-null"      // simple: a round with no message for this neighbour
	KindAck      = "sync-ack"       // alpha, beta: a round's envelope arrived
	KindSafe     = "sync-safe"      // alpha: to neighbours; beta: the subtree is safe, to the parent
	KindPulse    = "sync-pulse"     // beta: start the next round, down the tree
	KindStart    = "sync-start"     // abd: the start flood
	KindTreeJoin = "sync-tree-join" // beta: join my tree (a BFS-like flood from the root)
	KindTreeAck  = "sync-tree-ack"  // beta: the answer to a join: child or not
	KindTreeDone = "sync-tree-done" // beta: my subtree is built
	KindHello    = "sync-hello"     // radio graph: I count you as a neighbour (before round 1)
	// KindBatch is an envelope carrying more than one algorithm message:
	// it counts as one frame; the algorithm's messages are counted from
	// the round notes (see Note).
	KindBatch = "rounds-batch"
)

// IsSync reports whether kind is a synchronizer's own message (tree
// construction included).
func IsSync(kind string) bool { return strings.HasPrefix(kind, SyncPrefix) }

// IsTree reports whether kind belongs to beta's spanning tree construction.
func IsTree(kind string) bool { return strings.HasPrefix(kind, TreePrefix) }

// wireType says what a Wire carries.
type wireType uint8

const (
	wBatch wireType = iota + 1
	wAck
	wSafe
	wPulse
	wStart
	wTreeJoin
	wTreeAck
	wTreeDone
	wHello
)

// Wire is every message a synchronizer sends, over the reliable channel
// (reliable.Data[Wire[T]]). T is the algorithm's concrete message type.
type Wire[T protocol.Message] struct {
	Type uint8
	// Round is the round the envelope's messages were sent in (wBatch),
	// the round acknowledged (wAck), safe (wSafe) or started (wPulse).
	Round uint32
	// Halted: wBatch (simple) and wSafe (alpha): the sender's algorithm
	// halted in this round; wSafe (beta): every algorithm of the sender's
	// subtree halted. wTreeAck: the sender is a child of the receiver.
	Halted bool
	// Msgs are the algorithm's messages to the receiver (wBatch), in the
	// order the algorithm returned them.
	Msgs []T
}

// Kind is the inner message's kind for an envelope with exactly one
// algorithm message, KindNull for an empty one, KindBatch for several, and
// the sync-* kind of the synchronizer's own messages.
func (w Wire[T]) Kind() string {
	switch wireType(w.Type) {
	case wBatch:
		switch len(w.Msgs) {
		case 0:
			return KindNull
		case 1:
			return w.Msgs[0].Kind()
		}
		return KindBatch
	case wAck:
		return KindAck
	case wSafe:
		return KindSafe
	case wPulse:
		return KindPulse
	case wStart:
		return KindStart
	case wTreeJoin:
		return KindTreeJoin
	case wTreeAck:
		return KindTreeAck
	case wTreeDone:
		return KindTreeDone
	case wHello:
		return KindHello
	}
	return "sync-unknown"
}
