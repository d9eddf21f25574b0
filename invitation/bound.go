package invitation

import (
	"fmt"

	"manetlab/protocol"
)

// MergeCounts is the theory of one Merge whose groups total n nodes (the
// merging coordinator's own group and the k-1 groups of the coordinators
// it invites, any sizes), when every invited node is in Normal, reachable
// and accepts within the window: every node but the coordinator gets one
// invitation (from the coordinator if it was a coordinator or the
// coordinator's member, else forwarded by its own coordinator), sends one
// accept and gets one accept reply — 3(n-1) election messages — and then
// one Ready, n-1 announcement messages. The count depends on n only, not on
// k or the sizes.
func MergeCounts(n int) (election, announce int) {
	if n <= 1 {
		return 0, 0
	}
	return 3 * (n - 1), n - 1
}

// Bound is the Complexity bound of a run: one merge of all n members, the
// fewest election messages with which n singleton groups (every node's
// group at start) become one, and the count of a static connected run
// without faults in which the highest ID merges everyone at its first
// Check (the usual case: every node checks first at the same time and the
// lower ones wait). It is no exact count: a run with partitions, crashes
// or merges that overlap holds several merges, each counted by MergeCounts
// for its own n.
func Bound(members []protocol.NodeID, params protocol.Params, _ uint64) (protocol.Bound, error) {
	if _, err := parse(params); err != nil {
		return protocol.Bound{}, err
	}
	e, _ := MergeCounts(len(members))
	return protocol.Bound{
		Name:    fmt.Sprintf("one merge of groups totalling n=%d nodes: n-1 invitations, accepts and accept replies (and n-1 ready)", len(members)),
		Formula: "3(n-1)",
		Value:   float64(e),
	}, nil
}
