package firewire

import "manetlab/protocol"

// The message kinds, as traces and summaries count them.
const (
	KindRequest    = "request"    // a parent request (IEEE 1394: PARENT_NOTIFY)
	KindAck        = "ack"        // "I am your parent" (IEEE 1394: CHILD_NOTIFY)
	KindContention = "contention" // a parent request sent again after a root contention
	KindRoot       = "root"       // the root announcement, down the tree
)

// Request asks the receiver to be the sender's parent. A node sends one, to
// the only neighbour that has not asked it, once every other neighbour has.
type Request struct{}

// Kind implements protocol.Message.
func (Request) Kind() string { return KindRequest }

// Ack accepts a parent request: the receiver's parent is the sender.
type Ack struct{}

// Kind implements protocol.Message.
func (Ack) Kind() string { return KindAck }

// Contention is a parent request sent again after root contention round
// Round (1 for the first): the sender drew the short wait, or drew the
// same as its peer, and heard no request from the peer meanwhile. It is a
// kind of its own so that sweeps count the contention apart (its receiver
// treats it exactly as a Request).
type Contention struct {
	Round uint32
}

// Kind implements protocol.Message.
func (Contention) Kind() string { return KindContention }

// Root announces the root of the tree, from the root to its children and
// on from every node to its own children.
type Root struct {
	Root  protocol.NodeID
	Value float64 // the root's value, for the leader notes
}

// Kind implements protocol.Message.
func (Root) Kind() string { return KindRoot }
