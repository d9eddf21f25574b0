package bully

import (
	"fmt"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// The registered names.
const (
	Textbook     = "bully/textbook"
	GarciaMolina = "bully/garcia-molina"
)

// Timer names; the reliable channel's timer is reliable.DefaultTimer.
const (
	timerStart    = "start"    // an initiator's first election
	timerFallback = "fallback" // textbook: a non-initiator no election reached starts one
	timerAnswer   = "answer"   // an election stops waiting for answers from higher IDs
	timerWait     = "wait"     // textbook: the coordinator did not follow the OK in time
	timerTimeout  = "timeout"  // Garcia-Molina: the Timeout procedure
	timerCheck    = "check"    // the periodic failure detector
)

// rules are what a form adds to the shared node.
type rules interface {
	// boot runs on protocol.Start after the channel started: it reads
	// stable storage, which tells a recovered node from a first boot.
	boot()
	// elect starts an election at this node (an initiator, a detector, an
	// elect command).
	elect()
	// receive handles one message the channel delivered.
	receive(from protocol.NodeID, m Msg)
	// unreachable handles a peer the channel gave up on.
	unreachable(f reliable.Failure[Msg])
	// progress runs after every event the channel handled: answers are the
	// channel's acknowledgements (Garcia-Molina).
	progress()
	// timer handles the form's own timers.
	timer(e protocol.Timeout)
}

// node is what both forms share: the channel, the membership, the highest
// election number seen (in stable storage), the epoch followed and the
// trace notes.
type node struct {
	env     protocol.Env
	id      protocol.NodeID
	members []protocol.NodeID
	higher  []protocol.NodeID // members above id, ascending
	lower   []protocol.NodeID // members below id, ascending
	set     *settings
	store   protocol.Store
	ch      *reliable.Channel[Msg]
	rules   rules

	started bool
	maxNum  uint64          // the highest election number seen or used
	leader  protocol.NodeID // followed now; None while it has none
	epoch   Epoch           // the epoch followed last (kept when the leader is lost)

	noted      bool // a leader note was made in this life
	notedWho   protocol.NodeID
	notedEpoch Epoch
	inElection bool // election-start noted, election-end not yet
}

func newNode(form string, cfg protocol.Config) (*node, error) {
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", form, cfg.ID)
	}
	s, err := parseWith(form, cfg.Params, cfg.Members, cfg.HopDelay, cfg.RouteDelay)
	warn, ok := protocol.Warned(err)
	if !ok {
		return nil, err
	}
	i, ok := slices.BinarySearch(cfg.Members, cfg.ID)
	if !ok {
		return nil, fmt.Errorf("%s: node %d is not a member (members: %s)", form, cfg.ID, protocol.DescribeIDs(cfg.Members))
	}
	store := cfg.Store
	if store == nil {
		store = &protocol.MemStore{} // tests that build a Config by hand; drivers always give one
	}
	return &node{
		env:     cfg.Env,
		id:      cfg.ID,
		members: cfg.Members,
		lower:   cfg.Members[:i:i],
		higher:  cfg.Members[i+1:],
		set:     s,
		store:   store,
		ch:      reliable.New[Msg](cfg.Env, cfg.ID, s.rel),
	}, warnErr(warn)
}

// warnErr returns w as an error, or a nil error for a nil w (a nil
// *Warning in an error interface is not nil).
func warnErr(w *protocol.Warning) error {
	if w == nil {
		return nil
	}
	return w
}

// Step implements protocol.Process: the channel sees every event first.
func (n *node) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); ok {
		if !n.started {
			n.started = true
			n.ch.Start()
			n.armCheck()
			n.rules.boot()
		}
		return
	}
	if !n.started {
		return
	}
	if out, ok := n.ch.Step(ev); ok {
		for _, f := range out.Unreachable {
			n.rules.unreachable(f)
		}
		for _, d := range out.Delivered {
			if _, member := slices.BinarySearch(n.members, d.From); member && d.From != n.id {
				n.see(d.Msg.Num)
				n.rules.receive(d.From, d.Msg)
			}
		}
		n.rules.progress()
		return
	}
	switch e := ev.(type) {
	case protocol.Timeout:
		if e.Name == timerCheck {
			n.env.SetTimer(n.set.check, timerCheck, 0)
		}
		n.rules.timer(e)
		n.rules.progress()
	case protocol.Command:
		if e.Name == protocol.Elect {
			n.rules.elect()
			n.rules.progress()
		}
	}
}

// storeKey holds the textbook's highest election number seen, as decimal
// text: its presence also tells a recovered node from one booting for the
// first time (Garcia-Molina keeps it in its state vector).
const storeKey = "bully.num"

// armCheck arms the failure detector's period, its first tick drawn from
// this node's random source so that detectors do not all check at the
// same instant.
func (n *node) armCheck() {
	if n.set.check > 0 {
		n.env.SetTimer(time.Duration(n.env.Rand().Int64N(int64(n.set.check)))+n.set.check, timerCheck, 0)
	}
}

// maxEpochNum bounds the election numbers taken from messages: numbers
// grow by one per election, so a larger one is corrupt, and taking it
// would let the next increment wrap around to numbers already used.
const maxEpochNum = 1 << 62

// see raises the highest election number seen.
func (n *node) see(num uint64) {
	if num > n.maxNum && num < maxEpochNum {
		n.maxNum = num
	}
}

// put writes key to stable storage; a failure (a real node's disk) is
// noted, and the node goes on: only its numbering after a crash is at risk.
func (n *node) put(key string, value []byte) {
	if err := n.store.Put(key, value); err != nil {
		n.info("stable storage failed: %v (an epoch number may repeat after a crash)", err)
	}
}

// sendAll sends m to each of ids, in the order given.
func (n *node) sendAll(ids []protocol.NodeID, m Msg) {
	for _, id := range ids {
		n.ch.Send(id, m)
	}
}

// acked reports whether every message sent to peer has been acknowledged:
// Garcia-Molina's "answered".
func (n *node) acked(peer protocol.NodeID) bool { return n.ch.Unacked(peer) == 0 }

func (n *node) info(format string, args ...any) {
	n.env.Note(protocol.Note{Kind: protocol.NoteInfo, Epoch: n.epoch.String(), Text: fmt.Sprintf(format, args...)})
}

func (n *node) noteStart(e Epoch) {
	if !n.inElection {
		n.inElection = true
		n.env.Note(protocol.Note{Kind: protocol.NoteElectionStart, Epoch: e.String()})
	}
}

func (n *node) noteEnd() {
	if n.inElection {
		n.inElection = false
		n.env.Note(protocol.Note{Kind: protocol.NoteElectionEnd, Epoch: n.epoch.String()})
	}
}

// follow makes leader this node's leader in epoch e, noting it once.
func (n *node) follow(e Epoch) {
	n.leader, n.epoch = e.Leader, e
	n.see(e.Num)
	if n.noted && n.notedWho == e.Leader && n.notedEpoch == e {
		return
	}
	n.noted, n.notedWho, n.notedEpoch = true, e.Leader, e
	n.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: e.Leader, Epoch: e.String()})
}

// suspect notes that the failure detector gave up on the leader. The
// leader note stands until an election names another (seed 000: L(i)
// changes only on a leader message), so that a false suspicion on a lossy
// network, which the election clears, is no visible leader change.
func (n *node) suspect(why string) {
	n.info("leader %d suspected: %s; an election follows", n.leader, why)
}

// lose notes that this node no longer has a leader (it said it no longer
// leads); the epoch followed is kept for comparison.
func (n *node) lose(why string) {
	if n.leader == protocol.None {
		return
	}
	n.info("leader %d lost: %s", n.leader, why)
	n.leader = protocol.None
	n.noted, n.notedWho, n.notedEpoch = true, protocol.None, Epoch{}
	n.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: protocol.None})
}

func (n *node) cancel(id *protocol.TimerID) {
	if *id != 0 {
		n.env.CancelTimer(*id)
		*id = 0
	}
}
