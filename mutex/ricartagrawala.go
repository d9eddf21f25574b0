package mutex

import (
	"fmt"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// RicartAgrawala is the registered name of Ricart and Agrawala's algorithm.
const RicartAgrawala = "mutex/ricart-agrawala"

func init() {
	protocol.Register(protocol.Spec{
		Name:     RicartAgrawala,
		Summary:  "Ricart and Agrawala's mutual exclusion: a request stamped with a Lamport clock to every member, replies deferred by timestamp order; 2(n-1) messages per entry",
		New:      NewRicartAgrawala,
		Messages: reliable.Messages[RAMsg](),
		Goal:     protocol.GoalMutex,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release},
		Complexity: &protocol.Complexity{
			Assumes: "no failures",
		},
		Budget: raBudget,
		Mutex: &protocol.MutexCost{
			Messages: "2(n-1)",
			PerEntry: func(n int) (float64, float64) { return float64(2 * (n - 1)), float64(2 * (n - 1)) },
			Delay:    "2(n-1)",
			Problems: "process crash (n points of failure)",
			HiIf:     protocol.Faultless, // package doc, "Message bounds"
		},
	})
}

// ricartAgrawala is Ricart and Agrawala's algorithm (seed 002): a member
// that wants the section sends (timestamp, ID) to every other member and
// enters once all have replied. A member replies at once unless it holds
// the section, or wants it with an earlier (timestamp, ID); then it defers
// the reply until it leaves. Timestamps are Lamport clocks: a request is
// stamped with the highest timestamp seen plus one.
type ricartAgrawala struct {
	*peerNode[RAMsg]
	clock    uint64                   // the highest timestamp seen or sent
	req      uint64                   // this node's outstanding request's timestamp; 0 for none
	replied  map[protocol.NodeID]bool // who answered req
	deferred []lamportStamp           // requests answered on exit, in arrival order
	seen     map[protocol.NodeID]uint64
	defers   func(holds, earlier bool) bool
	// wins breaks a tie of timestamps: whether request (ts, a) comes
	// before (ts, b) (RAWinsTie, or a broken variant's rule).
	wins func(a, b protocol.NodeID) bool
}

// NewRicartAgrawala builds a Ricart-Agrawala process. Its parameters are
// the reliable channel's rto and retries.
func NewRicartAgrawala(cfg protocol.Config) (protocol.Process, error) {
	return NewRicartAgrawalaRule(cfg, RADefers)
}

// RADefers is Ricart and Agrawala's rule: a request is deferred while this
// node holds the section, or wants it with an earlier (timestamp, ID).
func RADefers(holds, earlier bool) bool { return holds || earlier }

// NewRicartAgrawalaRule builds a Ricart-Agrawala process that defers a
// request when defers says so (NewRicartAgrawala: RADefers) and replies
// at once otherwise: a seam for the test-only broken variants of package
// explore/brokentest, which show that the checker and the search catch a
// wrong rule.
func NewRicartAgrawalaRule(cfg protocol.Config, defers func(holds, earlier bool) bool) (protocol.Process, error) {
	n, err := newPeerNode[RAMsg](RicartAgrawala, cfg)
	if err != nil {
		return nil, err
	}
	p := &ricartAgrawala{peerNode: n, seen: map[protocol.NodeID]uint64{}, defers: defers, wins: RAWinsTie}
	n.rules = p
	return p, warnErr(n.warn)
}

// RAWinsTie is the algorithm's tie-break: of two requests with one
// timestamp, the lower ID's comes first.
func RAWinsTie(a, b protocol.NodeID) bool { return a < b }

// NewRicartAgrawalaTies builds a Ricart-Agrawala process that breaks ties
// of timestamps by wins (NewRicartAgrawala: RAWinsTie): a seam for the
// test-only broken variants of package explore/brokentest.
func NewRicartAgrawalaTies(cfg protocol.Config, wins func(a, b protocol.NodeID) bool) (protocol.Process, error) {
	proc, err := NewRicartAgrawalaRule(cfg, RADefers)
	if p, ok := proc.(*ricartAgrawala); ok {
		p.wins = wins
	}
	return proc, err
}

func (p *ricartAgrawala) boot() {}

func (p *ricartAgrawala) stamp() lamportStamp { return lamportStamp{p.req, p.id} }

func (p *ricartAgrawala) ask() {
	p.clock++
	p.req = p.clock
	p.replied = map[protocol.NodeID]bool{}
	p.sendAll(RAMsg{Type: RARequest, TS: p.req})
	p.tryEnter()
}

func (p *ricartAgrawala) tryEnter() {
	if p.wants() && len(p.replied) == len(p.others) {
		p.enter(fmt.Sprintf("request %s: %d replies", p.stamp(), len(p.replied)))
	}
}

// release leaves the section and sends the deferred replies; a request
// queued meanwhile starts at once, stamped after every request deferred.
func (p *ricartAgrawala) release() {
	again := p.exit()
	p.req, p.replied = 0, nil
	for _, s := range p.deferred {
		p.send(s.id, RAMsg{Type: RAReply, TS: p.clock, For: s.ts})
	}
	p.deferred = nil
	if again {
		p.ask()
	}
}

func (p *ricartAgrawala) receive(from protocol.NodeID, m RAMsg) {
	switch m.Type {
	case RARequest:
		if m.TS <= p.seen[from] {
			p.env.Logf("%s: request %d from %d, not after its last (%d): a duplicate, ignored", p.alg, m.TS, from, p.seen[from])
			return
		}
		p.seen[from] = m.TS
		p.clock = max(p.clock, m.TS)
		theirs := lamportStamp{m.TS, from}
		mine := p.stamp()
		earlier := mine.ts < theirs.ts || mine.ts == theirs.ts && p.wins(mine.id, theirs.id)
		if p.defers(p.holds(), p.wants() && earlier) {
			p.deferred = append(p.deferred, theirs)
			return
		}
		p.send(from, RAMsg{Type: RAReply, TS: p.clock, For: m.TS})
	case RAReply:
		p.clock = max(p.clock, m.TS)
		if !p.wants() || m.For != p.req || p.replied[from] {
			p.env.Logf("%s: reply from %d for request %d while %s with request %d: stale or duplicate, ignored", p.alg, from, m.For, p.state, p.req)
			return
		}
		p.replied[from] = true
		p.tryEnter()
	default:
		p.env.Logf("%s: message of unknown type %d from %d: ignored", p.alg, m.Type, from)
	}
}

// deferredIDs lists the members whose requests wait for this node's exit.
func (p *ricartAgrawala) deferredIDs() []protocol.NodeID {
	ids := make([]protocol.NodeID, len(p.deferred))
	for i, s := range p.deferred {
		ids[i] = s.id
	}
	return ids
}
