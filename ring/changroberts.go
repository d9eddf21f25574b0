package ring

import (
	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

func init() {
	protocol.Register(protocol.Spec{
		Name:        ChangRoberts,
		Summary:     "Chang and Roberts' ring election: a token is dropped by the first larger process; 2n-1 to n(n+1)/2 tokens, then n to announce",
		New:         NewChangRoberts,
		Messages:    reliable.Messages[Msg](),
		Goal:        protocol.GoalHighestID,
		LogicalRing: true,
		Complexity: &protocol.Complexity{
			Announce: []string{KindElected},
			Bound:    boundFunc(ChangRoberts),
			Assumes:  "no failures",
		},
	})
}

// changRoberts is Chang and Roberts' election (seeds 000, 001, 004), for
// the highest ID: a process forwards a token larger than its ID, drops a
// smaller one, and is elected when its own token returns. A process that
// has not taken part yet (seed 001's participant flag; seed 000's red and
// black) wakes up on its first token: a smaller one it drops and sends its
// own token instead; a larger one it forwards and has lost.
type changRoberts struct {
	*node
	participant bool // this node's token is out, or it has forwarded a larger one
	forwards    func(self, token protocol.NodeID) bool
}

// NewChangRoberts builds a Chang-Roberts process.
func NewChangRoberts(cfg protocol.Config) (protocol.Process, error) {
	return NewChangRobertsRule(cfg, Forwards)
}

// Forwards is Chang and Roberts' rule: a process forwards another's token
// when it is larger than its own ID.
func Forwards(self, token protocol.NodeID) bool { return token > self }

// NewChangRobertsRule builds a Chang-Roberts process that forwards
// another's token when forwards says so (NewChangRoberts: Forwards) and
// otherwise drops it: a seam for the test-only broken variants of package
// explore/brokentest, which show that the checker and the search catch a
// wrong rule.
func NewChangRobertsRule(cfg protocol.Config, forwards func(self, token protocol.NodeID) bool) (protocol.Process, error) {
	n, err := newNode(ChangRoberts, cfg)
	if _, ok := protocol.Warned(err); !ok {
		return nil, err
	}
	p := &changRoberts{node: n, forwards: forwards}
	n.rules = p
	return p, err // nil, or a warning
}

func (p *changRoberts) boot() {
	if p.set.initiator(p.id) {
		p.armStart()
	}
}

// begin sends this node's token if it initiates. An initiator whose first
// token arrives before its start timer initiates first (as if its timer
// had fired just before), so that the count does not depend on timing; a
// non-initiator waits for receive's wake-up rule.
func (p *changRoberts) begin(byMessage bool) {
	p.participant = false
	if byMessage && !p.set.initiator(p.id) {
		return
	}
	p.participant = true
	p.send(p.successor, Msg{Type: TypeToken, Epoch: p.epoch, ID: p.id})
}

func (p *changRoberts) receive(_ protocol.NodeID, m Msg) {
	if !p.current(m) {
		return
	}
	switch m.Type {
	case TypeToken:
		switch {
		case m.ID == p.id:
			if p.participant { // our token went round: no larger process
				p.follow(p.id)
				p.announce(p.id)
			}
		case p.forwards(p.id, m.ID):
			p.participant = true
			p.send(p.successor, m)
		case !p.participant:
			// A smaller token wakes a process that has not taken part:
			// it drops the token and sends its own.
			p.participant = true
			p.send(p.successor, Msg{Type: TypeToken, Epoch: p.epoch, ID: p.id})
		}
	case TypeElected:
		p.elected(m)
	}
}

func (p *changRoberts) unreachable(f reliable.Failure[Msg]) { p.giveUp(f) }

func (p *changRoberts) timer(protocol.Timeout) {}
