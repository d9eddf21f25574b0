package ring

import (
	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

func init() {
	protocol.Register(protocol.Spec{
		Name:        HirschbergSinclair,
		Summary:     "Hirschberg and Sinclair's bidirectional ring election: candidates probe 2^k both ways in phase k; O(n log n) messages",
		New:         NewHirschbergSinclair,
		Messages:    reliable.Messages[Msg](),
		Goal:        protocol.GoalHighestID,
		LogicalRing: true,
		Complexity: &protocol.Complexity{
			Announce: []string{KindElected},
			Bound:    boundFunc(HirschbergSinclair),
			Assumes:  "no failures",
		},
	})
}

// maxPhase bounds the phase a probe may carry (2^k must fit 64 bits); a
// probe beyond it comes from a confused or hostile peer and is dropped.
const maxPhase = 62

// hirschbergSinclair is Hirschberg and Sinclair's election (seed 001) on a
// bidirectional ring. In phase k a candidate sends a probe (ID, k, hops)
// both ways; a process with a larger ID swallows it; one with a smaller ID
// forwards it while hops < 2^k and at 2^k sends a reply back the way it
// came. A candidate with both replies of phase k starts phase k+1; a
// candidate that receives its own probe (it went round: 2^k >= n) is
// elected. Every process takes part: it wakes up spontaneously (the
// initiators) or on its first message.
type hirschbergSinclair struct {
	*node
	candidate bool
	phase     uint8
	replies   [2]bool // this phase's replies: [0] to the successor-ward probe, [1] to the other
	won       bool
	relays    func(hops uint32, phase uint8) bool // HSRelays, or a broken variant's rule
}

// NewHirschbergSinclair builds a Hirschberg-Sinclair process.
func NewHirschbergSinclair(cfg protocol.Config) (protocol.Process, error) {
	return NewHirschbergSinclairRule(cfg, HSRelays)
}

// HSRelays is Hirschberg and Sinclair's rule: a probe of phase k that has
// travelled hops is relayed while hops < 2^k, and answered at 2^k.
func HSRelays(hops uint32, phase uint8) bool { return uint64(hops) < 1<<phase }

// NewHirschbergSinclairRule builds a Hirschberg-Sinclair process that
// relays a probe when relays says so (NewHirschbergSinclair: HSRelays) and
// replies otherwise: a seam for the test-only broken variants of package
// explore/brokentest.
func NewHirschbergSinclairRule(cfg protocol.Config, relays func(hops uint32, phase uint8) bool) (protocol.Process, error) {
	n, err := newNode(HirschbergSinclair, cfg)
	if _, ok := protocol.Warned(err); !ok {
		return nil, err
	}
	p := &hirschbergSinclair{node: n, relays: relays}
	n.rules = p
	return p, err // nil, or a warning
}

func (p *hirschbergSinclair) boot() {
	if p.set.initiator(p.id) {
		p.armStart()
	}
}

// begin wakes this node, spontaneously or by a message: phase 0.
func (p *hirschbergSinclair) begin(bool) {
	p.candidate, p.won, p.phase = true, false, 0
	p.probe()
}

func (p *hirschbergSinclair) probe() {
	p.replies = [2]bool{}
	p.send(p.successor, Msg{Type: TypeProbe, Epoch: p.epoch, ID: p.id, Phase: p.phase, Hops: 1})
	p.send(p.predecessor, Msg{Type: TypeProbe, Epoch: p.epoch, ID: p.id, Phase: p.phase, Hops: 1, Back: true})
}

// next is the neighbour in a message's direction of travel.
func (p *hirschbergSinclair) next(back bool) protocol.NodeID {
	if back {
		return p.predecessor
	}
	return p.successor
}

func (p *hirschbergSinclair) receive(_ protocol.NodeID, m Msg) {
	if !p.current(m) {
		return
	}
	switch m.Type {
	case TypeProbe:
		switch {
		case m.ID == p.id:
			// The probe went round: nobody is larger. The second one,
			// from the other direction, changes nothing.
			if !p.won {
				p.won, p.candidate = true, false
				p.follow(p.id)
				p.announce(p.id)
			}
		case m.ID < p.id || m.Phase > maxPhase:
			// Swallowed.
		case p.relays(m.Hops, m.Phase):
			fwd := m
			fwd.Hops++
			p.send(p.next(m.Back), fwd)
		default:
			p.send(p.next(!m.Back), Msg{Type: TypeReply, Epoch: m.Epoch, ID: m.ID, Phase: m.Phase, Back: !m.Back})
		}
	case TypeReply:
		if m.ID != p.id {
			p.send(p.next(m.Back), m)
			return
		}
		if !p.candidate || m.Phase != p.phase {
			return
		}
		// A reply travelling back answers the successor-ward probe.
		if m.Back {
			p.replies[0] = true
		} else {
			p.replies[1] = true
		}
		if p.replies[0] && p.replies[1] && p.phase < maxPhase {
			p.phase++
			p.probe()
		}
	case TypeElected:
		p.elected(m)
	}
}

func (p *hirschbergSinclair) unreachable(f reliable.Failure[Msg]) { p.giveUp(f) }

func (p *hirschbergSinclair) timer(protocol.Timeout) {}
