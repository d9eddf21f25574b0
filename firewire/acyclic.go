package firewire

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"manetlab/protocol"
)

// CheckAcyclic refuses a topology that tree identify cannot handle: it
// returns an error naming a cycle of radio links, or nil when the links
// form a forest (a tree per connected component). members are the run's
// nodes; links are the radio links at the start, each pair once in either
// order (duplicates and self-links are ignored).
//
// A process cannot see the topology (it learns its neighbours, never the
// network), so the refusal belongs to the driver: before the run it
// computes the links at time 0 from the scenario's radio model (the
// ground truth's deterministic range) and calls this through the protocol's
// Spec, naming the scenario file in the error. At run time the protocol
// only notes "cyclic topology: no tree identify possible" on the nodes
// that stall.
func CheckAcyclic(members []protocol.NodeID, links [][2]protocol.NodeID) error {
	adj := map[protocol.NodeID][]protocol.NodeID{} // the forest so far
	uf := map[protocol.NodeID]protocol.NodeID{}
	var find func(protocol.NodeID) protocol.NodeID
	find = func(x protocol.NodeID) protocol.NodeID {
		p, ok := uf[x]
		if !ok || p == x {
			return x
		}
		r := find(p)
		uf[x] = r
		return r
	}
	member := make(map[protocol.NodeID]bool, len(members))
	for _, id := range members {
		member[id] = true
	}
	ls := make([][2]protocol.NodeID, 0, len(links))
	for _, l := range links {
		a, b := min(l[0], l[1]), max(l[0], l[1])
		if !member[a] || !member[b] {
			return fmt.Errorf("radio link %d-%d: not between members of the run %v", l[0], l[1], members)
		}
		if a != b {
			ls = append(ls, [2]protocol.NodeID{a, b})
		}
	}
	// In order, so that the cycle named does not depend on the caller's.
	slices.SortFunc(ls, func(x, y [2]protocol.NodeID) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	ls = slices.Compact(ls)
	for _, l := range ls {
		a, b := l[0], l[1]
		ra, rb := find(a), find(b)
		if ra == rb {
			cycle := canonical(forestPath(adj, a, b))
			hops := make([]string, len(cycle)+1)
			for i, id := range append(cycle, cycle[0]) {
				hops[i] = fmt.Sprint(id)
			}
			return fmt.Errorf("cyclic topology: the radio links %s form a cycle of %d nodes; %s needs an acyclic topology "+
				"(a tree in every connected component, as IEEE 1394 needs a bus without loops): move or remove a node of the cycle",
				strings.Join(hops, "-"), len(cycle), Name)
		}
		uf[ra] = rb
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	return nil
}

// forestPath is the path from a to b in the forest adj, both ends
// included (they are connected).
func forestPath(adj map[protocol.NodeID][]protocol.NodeID, a, b protocol.NodeID) []protocol.NodeID {
	prev := map[protocol.NodeID]protocol.NodeID{a: a}
	queue := []protocol.NodeID{a}
	for len(queue) > 0 && prev[b] == 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range adj[x] {
			if _, seen := prev[y]; !seen {
				prev[y] = x
				queue = append(queue, y)
			}
		}
	}
	var path []protocol.NodeID
	for x := b; ; x = prev[x] {
		path = append(path, x)
		if x == a {
			break
		}
	}
	slices.Reverse(path)
	return path
}

// canonical rotates a cycle to begin at its lowest ID and go on towards
// the lower of that node's two neighbours on it.
func canonical(cycle []protocol.NodeID) []protocol.NodeID {
	i := slices.Index(cycle, slices.Min(cycle))
	out := append(slices.Clone(cycle[i:]), cycle[:i]...)
	if len(out) > 2 && out[len(out)-1] < out[1] {
		slices.Reverse(out[1:])
	}
	return out
}
