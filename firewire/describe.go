package firewire

import (
	"fmt"
	"maps"
	"slices"

	"manetlab/protocol"
)

// Describe implements protocol.Describer: the tree identify state, and
// the neighbours whose requests are still awaited.
func (t *Tree) Describe() string {
	s := t.state.String()
	switch t.state {
	case identifying:
		var w []protocol.NodeID
		for _, id := range slices.Sorted(maps.Keys(t.nbrs)) {
			if !t.asked[id] {
				w = append(w, id)
			}
		}
		s += fmt.Sprintf(", %d request(s) in, not yet from %v", len(t.asked), w)
	case requested, child:
		s += fmt.Sprintf(", parent %d", t.parent)
	case contending:
		s += fmt.Sprintf(" with %d, round %d", t.parent, t.round)
	}
	if t.root != protocol.None {
		s += fmt.Sprintf(", root %d", t.root)
	}
	return s
}
