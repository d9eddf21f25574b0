package rounds

import (
	"fmt"

	"manetlab/protocol"
)

// Describe implements protocol.Describer: the synchronizer's round, then
// the algorithm's own line when it describes itself.
func (p *proc[T]) Describe() string {
	var s string
	switch {
	case !p.settled:
		s = "settling (learning the neighbours)"
	case p.halted:
		s = fmt.Sprintf("round %d, halted in round %d", p.round, p.haltRound)
	case p.round == 0:
		s = "settled, before round 1"
	case p.awake:
		s = fmt.Sprintf("round %d", p.round)
	default:
		s = fmt.Sprintf("round %d, asleep", p.round)
	}
	if d, ok := p.alg.(protocol.Describer); ok && p.alg != nil {
		if a := d.Describe(); a != "" {
			s += ", " + a
		}
	}
	return s
}
