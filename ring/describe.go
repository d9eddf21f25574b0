package ring

import (
	"fmt"
	"strings"

	"manetlab/protocol"
)

// The algorithms' protocol.Describer lines: what a student follows
// message by message.

// base is what every ring node can say: the election it is in, its
// successor, and its leader once it has one.
func (n *node) base(role string) string {
	var b strings.Builder
	if n.epoch == 0 {
		fmt.Fprintf(&b, "idle, successor %d", n.successor)
		return b.String()
	}
	fmt.Fprintf(&b, "%s, election %d, successor %d", role, n.epoch, n.successor)
	if n.noted == n.epoch && n.leader != protocol.None {
		fmt.Fprintf(&b, ", leader %d", n.leader)
	}
	return b.String()
}

// Describe implements protocol.Describer.
func (p *changRoberts) Describe() string {
	role := "asleep (not participating)"
	switch {
	case p.noted == p.epoch && p.leader == p.id:
		role = "leader"
	case p.noted == p.epoch && p.leader != protocol.None:
		role = "follower"
	case p.participant:
		role = "participant"
	}
	return p.base(role)
}

// Describe implements protocol.Describer.
func (p *leLann) Describe() string {
	role := "relaying"
	if p.initiated {
		role = "initiator"
	}
	s := p.base(role)
	if p.best != protocol.None && p.epoch != 0 {
		s += fmt.Sprintf(", highest seen %d", p.best)
	}
	return s
}

// Describe implements protocol.Describer.
func (p *hirschbergSinclair) Describe() string {
	switch {
	case p.won:
		return p.base("won")
	case p.candidate:
		var waiting []string
		for i, got := range p.replies {
			if !got {
				waiting = append(waiting, [2]string{"successor side", "predecessor side"}[i])
			}
		}
		s := p.base(fmt.Sprintf("candidate, phase %d (probes reach %d)", p.phase, 1<<p.phase))
		if len(waiting) > 0 {
			s += ", waiting for the reply from the " + strings.Join(waiting, " and ")
		}
		return s
	}
	return p.base("relaying (lost)")
}

// Describe implements protocol.Describer.
func (p *tanenbaum) Describe() string {
	role := "relaying"
	switch {
	case p.done:
		role = "done"
	case p.initiator && p.ownBack:
		role = "initiator, its election message is back"
	case p.initiator:
		role = "initiator"
	}
	s := p.base(role)
	if len(p.skip) > 0 {
		s += fmt.Sprintf(", skipping %d dead successor(s)", len(p.skip))
	}
	return s
}
