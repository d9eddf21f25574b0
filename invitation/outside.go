package invitation

import (
	"fmt"

	"manetlab/protocol"
)

// Outside is Spec.Outside: with reach one-hop a node talks only to its
// radio neighbours, and Garcia-Molina's algorithm assumes that the nodes
// of a component all talk to each other (Assertion A4 is about maximal
// sets of nodes that do). A component at the start that is not a clique
// of radio neighbours is outside that assumption: Stoller's observation
// (configs/invitation-stoller.yaml) is the algorithm working as designed
// there, not a bug. Multi-hop reach assumes nothing of the topology.
func Outside(members []protocol.NodeID, links [][2]protocol.NodeID, params protocol.Params) string {
	if params.Reader().String("reach", ReachMultiHop, ReachMultiHop, ReachOneHop) != ReachOneHop {
		return ""
	}
	linked := map[[2]protocol.NodeID]bool{}
	comp := map[protocol.NodeID]protocol.NodeID{} // union-find parent
	var find func(protocol.NodeID) protocol.NodeID
	find = func(x protocol.NodeID) protocol.NodeID {
		if p, ok := comp[x]; ok && p != x {
			r := find(p)
			comp[x] = r
			return r
		}
		return x
	}
	for _, l := range links {
		linked[l], linked[[2]protocol.NodeID{l[1], l[0]}] = true, true
		comp[find(l[0])] = find(l[1])
	}
	for i, a := range members {
		for _, b := range members[i+1:] {
			if find(a) == find(b) && !linked[[2]protocol.NodeID{a, b}] {
				return fmt.Sprintf("outside the algorithm's assumptions: %s with reach %s assumes the nodes of a component all hear each other (Assertion A4), and at the start %d and %d share a component without hearing each other", Name, ReachOneHop, a, b)
			}
		}
	}
	return ""
}
