package adhoc

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"manetlab/protocol"
)

// Describe implements protocol.Describer: the node's phase in the
// diffusing computation and what it waits for.
func (n *Node) Describe() string {
	switch n.phase {
	case awaiting:
		s := fmt.Sprintf("in election %s", n.idx)
		if n.parent != protocol.None {
			s += fmt.Sprintf(", parent %d", n.parent)
		} else {
			s += ", its source"
		}
		if len(n.waiting) > 0 {
			s += ", waiting for acks from " + sortedIDs(n.waiting)
		}
		return s + fmt.Sprintf(", best so far %d", n.best)
	case acked:
		return fmt.Sprintf("acked election %s to parent %d, waiting for the leader", n.idx, n.parent)
	}
	switch n.leader {
	case protocol.None:
		return "idle, no leader"
	case n.id:
		return fmt.Sprintf("leader (election %s), beaconing", n.epoch)
	}
	return fmt.Sprintf("follower of %d (election %s)", n.leader, n.epoch)
}

func sortedIDs(m map[protocol.NodeID]bool) string {
	var s []string
	for _, id := range slices.Sorted(maps.Keys(m)) {
		s = append(s, fmt.Sprint(id))
	}
	return strings.Join(s, ", ")
}
