package bully

import (
	"strconv"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

func init() {
	protocol.Register(protocol.Spec{
		Name: Textbook,
		Summary: "the textbook bully election (seeds 000, 002, 004): election to every higher ID, OK from a live higher one, " +
			"coordinator to every lower; the highest live ID of each component leads",
		New:      NewTextbook,
		Messages: reliable.Messages[Msg](),
		Goal:     protocol.GoalHighestID,
		Budget:   TextbookBudget,
		Complexity: &protocol.Complexity{
			Announce: []string{KindCoordinator},
			Control:  []string{KindCheck, KindOutdated},
			Bound:    boundFunc(Textbook),
		},
	})
}

// tbState is the textbook's state (seed 000's guarded commands: idle,
// wait_reply, wait_leader).
type tbState uint8

const (
	tbIdle     tbState = iota // following a leader, or none yet
	tbElecting                // wait_reply: elections sent, waiting for an OK
	tbWaiting                 // wait_leader: an OK came, waiting for the coordinator
)

// textbook is the bully election of seeds 000, 002 and 004. A node that
// starts an election sends election to every higher ID and waits timeout
// for an OK; a live higher node answers OK and holds its own election
// (unless it holds one already, or waits for a coordinator); a node with
// no OK in time is the coordinator, numbers the epoch above every number
// it has seen and sends coordinator to every lower ID; a node that got an
// OK waits leader-timeout for the coordinator and then starts again
// (guarded command 6). A recovered node, a fresh process, starts an
// election at once, so a recovered higher node bullies its way back.
//
// Beyond the seeds, for a network that loses frames, partitions and
// merges (see doc.go):
//   - the channel's acknowledgement of an election counts as the OK: the
//     higher node received it, so it lives and holds its election;
//   - a node accepts a coordinator only of an epoch after the one it
//     followed last (by number, ties to the higher ID), and otherwise
//     answers "outdated" with its highest number, upon which the
//     coordinator announces again with a larger number;
//   - a coordinator from a lower ID makes the receiver hold an election
//     (it bullies the lower claimant);
//   - the coordinator answers an election with OK and, if the sender
//     followed it, or has everything from it acknowledged and names
//     another epoch, with its coordinator message again (the sender
//     suspected it falsely, or recovered): a coordinator does not hold a
//     new election for a lower node's;
//   - detectors check their coordinator every check period through the
//     reliable channel, whose acknowledgement is the answer; an
//     unreachable coordinator starts an election; a check of a node that
//     no longer leads is answered "outdated";
//   - a coordinator that is not the highest member probes the higher IDs
//     with a check every period; a higher node that receives one holds an
//     election, or, if it leads, announces again: partitions that merge
//     end with the highest ID.
type textbook struct {
	*node
	state   tbState
	joined  bool // has taken part in an election or followed a leader
	answer  protocol.TimerID
	waitFor protocol.TimerID
	gone    map[protocol.NodeID]bool // higher nodes the channel gave up on during this election
	noAsk   bool                     // a broken variant's: elect declares itself coordinator at once
	keeps   bool                     // a broken variant's: a leader ignores a higher node's coordinator message
}

// NewTextbook builds a process of the textbook bully election.
func NewTextbook(cfg protocol.Config) (protocol.Process, error) {
	return NewTextbookRule(cfg, true)
}

// NewTextbookRule builds a process of the textbook bully election whose
// elections ask the higher IDs and wait for their OK (asks true: the
// algorithm, NewTextbook) or declare the node coordinator at once, asking
// nobody (asks false): a seam for the test-only broken variants of
// package explore/brokentest, which show that the checker and the search
// catch the bug.
func NewTextbookRule(cfg protocol.Config, asks bool) (protocol.Process, error) {
	n, err := newNode(Textbook, cfg)
	if _, ok := protocol.Warned(err); !ok {
		return nil, err
	}
	p := &textbook{node: n, noAsk: !asks}
	n.rules = p
	return p, err // nil, or a protocol.Warning beside a working process
}

// NewTextbookKeepsLead builds a process of the textbook bully election
// whose leader ignores a higher node's coordinator message and keeps
// leading: a seam for the test-only broken variants of package
// explore/brokentest (the algorithm, NewTextbook, follows it).
func NewTextbookKeepsLead(cfg protocol.Config) (protocol.Process, error) {
	proc, err := NewTextbookRule(cfg, true)
	if p, ok := proc.(*textbook); ok {
		p.keeps = true
	}
	return proc, err
}

func (p *textbook) boot() {
	b, recovered := p.store.Get(storeKey)
	if recovered {
		if v, err := strconv.ParseUint(string(b), 10, 64); err == nil {
			p.maxNum = v
		} else {
			p.info("stable storage holds %q under %s: not a number; counting from 0", b, storeKey)
		}
	}
	p.saveNum()
	if recovered {
		// A recovered node starts an election (seeds 002, 004).
		p.info("recovered: starting an election (highest number seen before the crash: %d)", p.maxNum)
		p.elect()
		return
	}
	if p.set.initiator(p.id) {
		p.env.SetTimer(p.set.start, timerStart, 0)
	} else {
		// A member that no election reaches (the initiators are down)
		// starts one itself.
		p.env.SetTimer(p.set.start+p.set.leader, timerFallback, 0)
	}
}

// saveNum puts the highest number seen in stable storage.
func (p *textbook) saveNum() {
	p.put(storeKey, []byte(strconv.FormatUint(p.maxNum, 10)))
}

func (p *textbook) elect() {
	if p.state == tbElecting {
		return
	}
	p.joined = true
	p.noteStart(Epoch{})
	p.state = tbElecting
	p.cancel(&p.waitFor)
	if len(p.higher) == 0 || p.noAsk {
		p.becomeCoordinator()
		return
	}
	// The election names the epoch followed last, so that a coordinator
	// can tell a member that lost it from one its announcement has not
	// reached yet.
	p.gone = nil
	p.sendAll(p.higher, Msg{Type: TypeElection, Num: p.epoch.Num, Leader: p.epoch.Leader})
	p.cancel(&p.answer)
	p.answer = p.env.SetTimer(p.set.timeout, timerAnswer, 0)
}

// becomeCoordinator numbers a new epoch above every number seen, follows
// itself and announces to every lower ID.
func (p *textbook) becomeCoordinator() {
	p.cancel(&p.answer)
	p.cancel(&p.waitFor)
	p.joined = true
	p.noteStart(Epoch{})
	p.maxNum++
	p.saveNum()
	p.state = tbIdle
	p.follow(Epoch{Num: p.maxNum, Leader: p.id})
	p.noteEnd()
	p.sendAll(p.lower, Msg{Type: TypeCoordinator, Num: p.maxNum})
}

func (p *textbook) leads() bool { return p.state == tbIdle && p.leader == p.id }

func (p *textbook) receive(from protocol.NodeID, m Msg) {
	switch m.Type {
	case TypeElection:
		p.election(from, m)
	case TypeOK:
		if from > p.id && p.state == tbElecting {
			p.answered()
		}
	case TypeCoordinator:
		p.coordinator(from, m.Num)
	case TypeCheck:
		p.checked(from, m)
	case TypeOutdated:
		switch {
		case p.leads():
			if m.Num >= p.epoch.Num {
				// A member follows a later epoch than the one announced:
				// announce again, above it.
				p.becomeCoordinator()
			}
		case p.state == tbIdle && p.leader == from && from != p.id:
			p.lose("it no longer leads")
			p.elect()
		}
	}
}

// election answers a lower node's election with OK, and holds this node's
// own unless it holds one or waits for a coordinator. A coordinator holds
// none: it sends its coordinator message again to a sender that lost it.
func (p *textbook) election(from protocol.NodeID, m Msg) {
	if from > p.id {
		return // elections go to higher IDs only
	}
	// The coordinator holds no election: it sends its coordinator message
	// again if the sender followed it and lost it (a false suspicion), or
	// has everything sent to it acknowledged and still elects outside
	// this epoch (it recovered, or its session failed). Otherwise the
	// coordinator message is still on its way to the sender, ahead of the
	// OK. (Judged before the OK is queued.)
	again := p.leads() && (m.Leader == p.id || p.acked(from) && (Epoch{Num: m.Num, Leader: m.Leader}) != p.epoch)
	p.ch.Send(from, Msg{Type: TypeOK, Num: p.maxNum})
	switch {
	case again:
		p.ch.Send(from, Msg{Type: TypeCoordinator, Num: p.epoch.Num})
	case p.leads():
	case p.state == tbIdle:
		p.elect()
	}
}

// coordinator handles an announcement: from a lower ID it is bullied; an
// epoch after the one followed (or the same one, ending an election) is
// followed; an earlier one is answered "outdated".
func (p *textbook) coordinator(from protocol.NodeID, num uint64) {
	if from < p.id {
		if p.state == tbIdle {
			p.elect()
		}
		return
	}
	if p.keeps && p.leads() {
		return
	}
	e := Epoch{Num: num, Leader: from}
	switch {
	case e.After(p.epoch) || e == p.epoch && (p.state != tbIdle || p.leader == protocol.None):
		p.cancel(&p.answer)
		p.cancel(&p.waitFor)
		p.state = tbIdle
		p.joined = true
		p.follow(e)
		p.saveNum()
		p.noteEnd()
	case e == p.epoch:
		// a copy sent again: nothing new
	default:
		p.ch.Send(from, Msg{Type: TypeOutdated, Num: p.maxNum})
	}
}

// checked answers a check: a member's of its coordinator, or a lower
// coordinator's probe of the higher IDs. A check that finds this node's
// latest coordinator message still unacknowledged by the sender was sent
// before that message arrived (it waited in the channel): the message
// answers it.
func (p *textbook) checked(from protocol.NodeID, m Msg) {
	switch {
	case m.Leader == p.id:
		switch {
		case p.leads():
			if m.Num != p.epoch.Num && p.acked(from) {
				p.ch.Send(from, Msg{Type: TypeCoordinator, Num: p.epoch.Num})
			}
		case p.state == tbIdle:
			p.ch.Send(from, Msg{Type: TypeOutdated, Num: p.maxNum})
		}
	case m.Leader == from && from < p.id:
		// A lower node leads while this higher one lives: partitions
		// merged, or this node recovered.
		switch {
		case p.leads():
			if p.acked(from) || (Epoch{Num: m.Num, Leader: from}).After(p.epoch) {
				p.becomeCoordinator()
			}
		case p.state == tbIdle:
			p.elect()
		}
	}
}

func (p *textbook) unreachable(f reliable.Failure[Msg]) {
	if p.state == tbElecting {
		if p.gone == nil {
			p.gone = map[protocol.NodeID]bool{}
		}
		p.gone[f.Peer] = true
	}
	if p.state == tbIdle && f.Peer == p.leader && p.leader != p.id {
		p.suspect("it did not acknowledge a check")
		p.elect()
	}
}

// answered: a higher node lives and holds its own election; this node
// waits for the coordinator (guarded command 3).
func (p *textbook) answered() {
	p.state = tbWaiting
	p.cancel(&p.answer)
	p.waitFor = p.env.SetTimer(p.set.leader, timerWait, 0)
}

// progress takes a higher node's acknowledgement of the election for its
// OK: it received the election, so it lives, and its OK is on its way (the
// OK and the acknowledgement travel apart, and on a lossy network either
// may be the first through).
func (p *textbook) progress() {
	if p.state != tbElecting {
		return
	}
	for _, h := range p.higher {
		if p.acked(h) && !p.gone[h] {
			p.answered()
			return
		}
	}
}

func (p *textbook) timer(e protocol.Timeout) {
	switch e.Name {
	case timerStart, timerFallback:
		if !p.joined {
			p.elect()
		}
	case timerAnswer:
		if e.ID == p.answer && p.state == tbElecting {
			p.answer = 0
			p.becomeCoordinator() // no OK in time (guarded command 4)
		}
	case timerWait:
		if e.ID == p.waitFor && p.state == tbWaiting {
			p.waitFor = 0
			p.state = tbIdle
			p.elect() // no coordinator in time (guarded command 6)
		}
	case timerCheck:
		p.tick()
	}
}

// tick is the failure detector's period: a detector checks its
// coordinator; a coordinator that is not the highest member probes the
// higher IDs. One check per peer is in flight at a time: the channel
// retransmits it, and declares the peer unreachable if it never answers.
func (p *textbook) tick() {
	if p.state != tbIdle || p.leader == protocol.None {
		return
	}
	if p.leader == p.id {
		for _, h := range p.higher {
			if p.acked(h) {
				p.ch.Send(h, Msg{Type: TypeCheck, Num: p.epoch.Num, Leader: p.id})
			}
		}
		return
	}
	if p.set.detector(p.id) && p.acked(p.leader) {
		p.ch.Send(p.leader, Msg{Type: TypeCheck, Num: p.epoch.Num, Leader: p.leader})
	}
}
