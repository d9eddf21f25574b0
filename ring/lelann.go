package ring

import (
	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

func init() {
	protocol.Register(protocol.Spec{
		Name:        LeLann,
		Summary:     "LeLann's ring election: every initiator's token circles the ring (n² tokens with all initiating), the highest initiator announces",
		New:         NewLeLann,
		Messages:    reliable.Messages[Msg](),
		Goal:        protocol.GoalHighestID,
		LogicalRing: true,
		Candidates:  initiatorsOf(LeLann),
		Complexity: &protocol.Complexity{
			Announce: []string{KindElected},
			Bound:    boundFunc(LeLann),
			Assumes:  "no failures",
		},
	})
}

// leLann is LeLann's election (seed 000): every initiator sends a token
// with its ID to its successor and every process forwards every token but
// its own; an initiator whose token returns has seen the token of every
// initiator (the channels are FIFO) and has won if its ID is the highest
// of them. A process that has received a token before initiating does not
// initiate.
type leLann struct {
	*node
	initiated bool            // this node's token is out in this election
	best      protocol.NodeID // the highest ID seen in this election (List_p's maximum)
}

// NewLeLann builds a LeLann process.
func NewLeLann(cfg protocol.Config) (protocol.Process, error) {
	n, err := newNode(LeLann, cfg)
	if _, ok := protocol.Warned(err); !ok {
		return nil, err
	}
	p := &leLann{node: n}
	n.rules = p
	return p, err // nil, or a warning
}

func (p *leLann) boot() {
	if p.set.initiator(p.id) {
		p.armStart()
	}
}

// begin initiates unless this node joins by a token and is no initiator.
// An initiator whose first token of the election arrives before its start
// timer initiates at that moment, before forwarding the token: the same
// as an execution in which it initiated just before the token arrived, so
// the seed's rule still holds and the count does not depend on timing.
func (p *leLann) begin(byMessage bool) {
	p.initiated, p.best = false, 0
	if byMessage && !p.set.initiator(p.id) {
		return // a non-initiator: it forwards and has lost
	}
	p.initiated, p.best = true, p.id
	p.send(p.successor, Msg{Type: TypeToken, Epoch: p.epoch, ID: p.id})
}

func (p *leLann) receive(_ protocol.NodeID, m Msg) {
	if !p.current(m) {
		return
	}
	switch m.Type {
	case TypeToken:
		if m.ID != p.id {
			p.best = max(p.best, m.ID)
			p.send(p.successor, m)
			return
		}
		if !p.initiated {
			return // not ours in this election: a forged or confused token
		}
		// Our token is back: every initiator's ID has been seen.
		p.follow(p.best)
		if p.best == p.id {
			p.announce(p.id)
		}
	case TypeElected:
		p.elected(m)
	}
}

func (p *leLann) unreachable(f reliable.Failure[Msg]) { p.giveUp(f) }

func (p *leLann) timer(protocol.Timeout) {}
