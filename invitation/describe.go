package invitation

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"manetlab/protocol"
)

// Describe implements protocol.Describer: the seed's state (status,
// coordinator, group) and what the node waits for.
func (n *Node) Describe() string {
	s := n.status.String()
	if n.group.Coord != protocol.None {
		s += ", group " + n.group.String()
	}
	switch {
	case n.coord == n.id:
		s += fmt.Sprintf(", coordinator of %d member(s)", max(len(n.up), 1))
	case n.coord != protocol.None:
		s += fmt.Sprintf(", coordinator %d", n.coord)
	default:
		s += ", no coordinator"
	}
	if len(n.asked) > 0 {
		var w []string
		for _, id := range slices.Sorted(maps.Keys(n.asked)) {
			w = append(w, fmt.Sprint(id))
		}
		s += ", waiting for answers from " + strings.Join(w, ", ")
	}
	if n.window != 0 {
		s += ", merging (collecting accepts)"
	}
	if n.wait != 0 {
		s += ", invited (waiting for Ready)"
	}
	return s
}
