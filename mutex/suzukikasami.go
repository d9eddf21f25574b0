package mutex

import (
	"fmt"
	"slices"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// SuzukiKasami is the registered name of Suzuki and Kasami's algorithm.
const SuzukiKasami = "mutex/suzuki-kasami"

func init() {
	protocol.Register(protocol.Spec{
		Name:     SuzukiKasami,
		Summary:  "Suzuki and Kasami's broadcast token: a request numbered RN to every member, the token carries LN and a queue; n messages per entry, 0 when the token is held",
		New:      NewSuzukiKasami,
		Messages: reliable.Messages[SKMsg](),
		Goal:     protocol.GoalMutex,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release},
		Complexity: &protocol.Complexity{
			Assumes: "no failures",
		},
		Budget: skBudget,
		Mutex: &protocol.MutexCost{
			Messages: "0 or n",
			PerEntry: func(n int) (float64, float64) { return 0, float64(n) },
			Delay:    "0 or n",
			Problems: "lost token, process crash",
			HiIf:     protocol.Faultless, // package doc, "Message bounds"
		},
	})
}

// skTokenKey is the stable storage key that records that the first
// member created the token, so that it does not create a second one when
// it recovers from a crash.
const skTokenKey = "mutex/suzuki-kasami/token-created"

// suzukiKasami is Suzuki and Kasami's broadcast algorithm (1985). Each
// member counts in RN[j] the highest request number heard from member j.
// The token carries LN[j], the number of j's last granted request, and a
// queue of waiting members. A member that wants the section and lacks the
// token increments RN[self] and sends it to every other member; the holder,
// idle, sends the token to a member j with RN[j] = LN[j]+1 at once. On exit
// the holder sets LN[self] = RN[self], appends every member with an
// outstanding request (RN[j] = LN[j]+1) not queued yet, in the order of the
// members after it, and sends the token to the head of the queue. The
// first (lowest) member holds the token at the start.
type suzukiKasami struct {
	*peerNode[SKMsg]
	idx   map[protocol.NodeID]int // position in members
	rn    []uint64
	token bool // this node holds the token
	ln    []uint64
	queue []protocol.NodeID
	// pass is the number of the token's last pass this node took part in
	// (received or sent): a token with a number not above it is a
	// duplicate.
	pass uint64
	// noLN is a broken variant's (NewSuzukiKasamiRule): the holder never
	// records its own request as served in the token's LN.
	noLN bool
}

// NewSuzukiKasami builds a Suzuki-Kasami process. Its parameters are the
// reliable channel's rto and retries.
func NewSuzukiKasami(cfg protocol.Config) (protocol.Process, error) {
	return NewSuzukiKasamiRule(cfg, true)
}

// NewSuzukiKasamiRule builds a Suzuki-Kasami process whose holder records
// its request as served in the token's LN on exit (records true: the
// algorithm, NewSuzukiKasami) or never does (false): a seam for the
// test-only broken variants of package explore/brokentest.
func NewSuzukiKasamiRule(cfg protocol.Config, records bool) (protocol.Process, error) {
	n, err := newPeerNode[SKMsg](SuzukiKasami, cfg)
	if err != nil {
		return nil, err
	}
	p := &suzukiKasami{peerNode: n, idx: map[protocol.NodeID]int{}, rn: make([]uint64, len(n.members)), noLN: !records}
	for i, id := range n.members {
		p.idx[id] = i
	}
	n.rules = p
	if p.id == n.members[0] {
		if cfg.Store == nil {
			p.token = true
		} else if _, made := cfg.Store.Get(skTokenKey); !made {
			if err := cfg.Store.Put(skTokenKey, []byte{1}); err != nil {
				return nil, fmt.Errorf("%s: node %d: recording the token: %w", SuzukiKasami, p.id, err)
			}
			p.token = true
		}
		if p.token {
			p.ln = make([]uint64, len(n.members))
		}
	}
	return p, warnErr(n.warn)
}

func (p *suzukiKasami) boot() {
	if p.id == p.members[0] && !p.token {
		p.env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: "recovered: the token created at the first start is not created again (it may be lost: outside the algorithm's assumptions)"})
	}
}

func (p *suzukiKasami) ask() {
	if p.token {
		p.enter("token held: no messages")
		return
	}
	me := p.idx[p.id]
	p.rn[me]++
	p.sendAll(SKMsg{Type: SKRequest, Seq: p.rn[me]})
}

// outstanding reports whether member i has a request the token has not
// granted.
func (p *suzukiKasami) outstanding(i int) bool { return p.rn[i] == p.ln[i]+1 }

func (p *suzukiKasami) release() {
	again := p.exit()
	me := p.idx[p.id]
	if !p.noLN {
		p.ln[me] = p.rn[me]
	}
	n := len(p.members)
	for k := 1; k < n; k++ {
		i := (me + k) % n
		if p.outstanding(i) && !slices.Contains(p.queue, p.members[i]) {
			p.queue = append(p.queue, p.members[i])
		}
	}
	if len(p.queue) > 0 {
		p.passToken(p.queue[0], p.queue[1:])
	}
	if again {
		p.ask()
	}
}

// passToken sends the token to to, with queue as the token's queue.
func (p *suzukiKasami) passToken(to protocol.NodeID, queue []protocol.NodeID) {
	p.pass++
	m := SKMsg{Type: SKToken, Pass: p.pass, LN: slices.Clone(p.ln), Queue: slices.Clone(queue)}
	p.token, p.ln, p.queue = false, nil, nil
	p.send(to, m)
}

func (p *suzukiKasami) receive(from protocol.NodeID, m SKMsg) {
	switch m.Type {
	case SKRequest:
		j := p.idx[from]
		if m.Seq <= p.rn[j] {
			p.env.Logf("%s: request %d from %d, not after %d: old or duplicate, ignored", p.alg, m.Seq, from, p.rn[j])
			return
		}
		p.rn[j] = m.Seq
		if p.token && !p.holds() && p.outstanding(j) {
			p.passToken(from, p.queue)
		}
	case SKToken:
		if why := p.badToken(m); why != "" {
			p.env.Logf("%s: token %d from %d: %s; ignored", p.alg, m.Pass, from, why)
			return
		}
		p.pass = m.Pass
		p.token, p.ln, p.queue = true, slices.Clone(m.LN), slices.Clone(m.Queue)
		p.enter(fmt.Sprintf("token from %d (pass %d)", from, m.Pass))
	default:
		p.env.Logf("%s: message of unknown type %d from %d: ignored", p.alg, m.Type, from)
	}
}

// badToken says why a token makes no sense here ("" if it does): this node
// holds the token already, does not want it, has seen this pass already,
// or the token's LN and queue do not fit the members.
func (p *suzukiKasami) badToken(m SKMsg) string {
	switch {
	case p.token:
		return "this node holds the token already"
	case !p.wants():
		return fmt.Sprintf("this node is %s, not waiting for it", p.state)
	case m.Pass <= p.pass:
		return fmt.Sprintf("pass %d already seen (last %d): a duplicate", m.Pass, p.pass)
	case len(m.LN) != len(p.members):
		return fmt.Sprintf("LN has %d entries for %d members", len(m.LN), len(p.members))
	case m.LN[p.idx[p.id]] >= p.rn[p.idx[p.id]]:
		return fmt.Sprintf("it granted this node's request %d already", m.LN[p.idx[p.id]])
	}
	seen := map[protocol.NodeID]bool{p.id: true}
	for _, id := range m.Queue {
		if _, ok := p.idx[id]; !ok || seen[id] {
			return fmt.Sprintf("its queue %v names a non-member, this node or a member twice", m.Queue)
		}
		seen[id] = true
	}
	return ""
}
