package hosts

import (
	"fmt"

	"manetlab/protocol"
)

// assign splits ids, in order, into contiguous blocks, one per share,
// sized in proportion to the shares (the remainders to the first
// hosts). Every host gets at least one node.
func assign(ids []protocol.NodeID, shares []int) ([][]protocol.NodeID, error) {
	if len(ids) < len(shares) {
		return nil, fmt.Errorf("%d hosts for %d nodes: every host needs one node at least", len(shares), len(ids))
	}
	total := 0
	for _, s := range shares {
		total += s
	}
	out := make([][]protocol.NodeID, len(shares))
	// Cumulative shares give each host its end: host i ends at
	// len*cum(i)/total, rounded down, so the blocks cover ids exactly.
	cum, from := 0, 0
	for i, s := range shares {
		cum += s
		to := len(ids) * cum / total
		if to <= from {
			to = from + 1
		}
		if rest := len(shares) - 1 - i; to > len(ids)-rest {
			to = len(ids) - rest
		}
		out[i] = ids[from:to]
		from = to
	}
	return out, nil
}
