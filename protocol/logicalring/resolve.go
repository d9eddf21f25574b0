package logicalring

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"manetlab/protocol"
)

// randomStream is the PCG stream of the random ring, fixed so that every
// node, and the scenario placing nodes, draws the same ring from a seed.
const randomStream = 0x6c6f676963616c72 // "logicalr"

// Resolve turns the value of protocol.params.ring into an order of members
// (distinct IDs, ascending, as in protocol.Config.Members):
//   - nil or "random" (the default): a permutation drawn from seed, the
//     same on every node and every call;
//   - "ascending" or "descending";
//   - an explicit list of every member once: []any of integers as YAML
//     decodes it, []int or []protocol.NodeID.
//
// Errors name the field and what is allowed.
func Resolve(spec any, members []protocol.NodeID, seed uint64) ([]protocol.NodeID, error) {
	order := slices.Clone(members)
	switch s := spec.(type) {
	case nil:
		return random(order, seed), nil
	case string:
		switch s {
		case "random":
			return random(order, seed), nil
		case "ascending":
			return order, nil
		case "descending":
			slices.Reverse(order)
			return order, nil
		}
		return nil, fmt.Errorf("protocol.params.ring: %q is not random, ascending, descending or a list of node IDs", s)
	case []protocol.NodeID:
		return explicit(s, members)
	case []int:
		return fromInts(len(s), func(i int) any { return s[i] }, members)
	case []any:
		return fromInts(len(s), func(i int) any { return s[i] }, members)
	}
	return nil, fmt.Errorf("protocol.params.ring: %v is not random, ascending, descending or a list of node IDs", spec)
}

func random(order []protocol.NodeID, seed uint64) []protocol.NodeID {
	rng := rand.New(rand.NewPCG(seed, randomStream))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// fromInts converts n entries to node IDs.
func fromInts(n int, entry func(i int) any, members []protocol.NodeID) ([]protocol.NodeID, error) {
	ids := make([]protocol.NodeID, n)
	for i := range n {
		id, ok := protocol.NodeIDOf(entry(i))
		if !ok {
			return nil, fmt.Errorf("protocol.params.ring: entry %d (%v) is not a node ID (members: %s)", i+1, entry(i), Describe(members))
		}
		ids[i] = id
	}
	return explicit(ids, members)
}

// explicit checks that ids lists every member exactly once.
func explicit(ids, members []protocol.NodeID) ([]protocol.NodeID, error) {
	seen := make(map[protocol.NodeID]bool, len(ids))
	for _, id := range ids {
		if _, ok := slices.BinarySearch(members, id); !ok {
			return nil, fmt.Errorf("protocol.params.ring: node %d is not a member (members: %s)", id, Describe(members))
		}
		if seen[id] {
			return nil, fmt.Errorf("protocol.params.ring: node %d appears twice (a ring must list every member once)", id)
		}
		seen[id] = true
	}
	for _, m := range members {
		if !seen[m] {
			return nil, fmt.Errorf("protocol.params.ring: leaves out member %d (a ring must list every member once)", m)
		}
	}
	return slices.Clone(ids), nil
}

// Describe prints ascending IDs compactly (protocol.DescribeIDs).
func Describe(ids []protocol.NodeID) string { return protocol.DescribeIDs(ids) }
