package logicalring

import (
	"fmt"
	"slices"

	"manetlab/protocol"
)

// Ring is a logical ring: an order of nodes, each followed by the next and
// the last by the first. It is immutable.
type Ring struct {
	order []protocol.NodeID
	index map[protocol.NodeID]int
}

// New returns the ring of order (from Resolve). An ID listed twice is a
// programming error and panics.
func New(order []protocol.NodeID) *Ring {
	r := &Ring{order: slices.Clone(order), index: make(map[protocol.NodeID]int, len(order))}
	for i, id := range r.order {
		if _, dup := r.index[id]; dup {
			panic(fmt.Sprintf("logicalring: node %d twice in %v", id, order))
		}
		r.index[id] = i
	}
	return r
}

// Order returns the nodes in ring order, a copy.
func (r *Ring) Order() []protocol.NodeID { return slices.Clone(r.order) }

// Len is the number of nodes on the ring.
func (r *Ring) Len() int { return len(r.order) }

// Index returns id's position in Order, or false if id is not on the ring.
func (r *Ring) Index(id protocol.NodeID) (int, bool) {
	i, ok := r.index[id]
	return i, ok
}

// Successor returns the node after id; the last node's successor is the
// first, and a 1-node ring's node is its own. It returns protocol.None for
// an id not on the ring, which may come from the network: it never panics.
func (r *Ring) Successor(id protocol.NodeID) protocol.NodeID { return r.Next(id, false, nil) }

// Predecessor returns the node before id, the first node's being the last;
// protocol.None for an id not on the ring.
func (r *Ring) Predecessor(id protocol.NodeID) protocol.NodeID { return r.Next(id, true, nil) }

// Next returns the first node after id, in successor direction or in
// predecessor direction when backward, for which skip is false (a nil skip
// skips nothing); id itself if every other node is skipped; protocol.None
// for an id not on the ring. skip is never asked about id.
func (r *Ring) Next(id protocol.NodeID, backward bool, skip func(protocol.NodeID) bool) protocol.NodeID {
	i, ok := r.index[id]
	if !ok {
		return protocol.None
	}
	n := len(r.order)
	step := 1
	if backward {
		step = n - 1
	}
	for k := 1; k < n; k++ {
		i = (i + step) % n
		if skip == nil || !skip(r.order[i]) {
			return r.order[i]
		}
	}
	return id
}
