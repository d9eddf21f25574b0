package ring

import (
	"fmt"
	"strconv"

	"manetlab/protocol"
	"manetlab/protocol/logicalring"
	"manetlab/protocol/reliable"
)

// The registered names.
const (
	LeLann             = "ring/lelann"
	ChangRoberts       = "ring/chang-roberts"
	HirschbergSinclair = "ring/hirschberg-sinclair"
	Tanenbaum          = "ring/tanenbaum"
)

// Timer names; the reliable channel's timer is reliable.DefaultTimer.
const (
	timerStart   = "start"   // the initiators' first election
	timerTimeout = "timeout" // Tanenbaum: the election did not finish in time
	timerCheck   = "check"   // Tanenbaum: check the coordinator
)

// rules are what an algorithm adds to the shared node.
type rules interface {
	// boot runs on protocol.Start in a ring of more than one member, after
	// the channel started.
	boot()
	// begin starts this node's part in election n.epoch: because it
	// initiates it (byMessage false: the start timer, an elect command, a
	// timeout) or because a message of it arrived first.
	begin(byMessage bool)
	// receive handles one message the channel delivered, of any epoch.
	receive(from protocol.NodeID, m Msg)
	// unreachable handles a peer the channel gave up on.
	unreachable(f reliable.Failure[Msg])
	// timer handles the algorithm's own timers (not start).
	timer(e protocol.Timeout)
}

// node is what the four algorithms share: the channel, the ring, the epoch
// and the trace notes. Each algorithm embeds it and supplies its rules.
type node struct {
	env   protocol.Env
	id    protocol.NodeID
	set   *settings
	ring  *logicalring.Ring
	ch    *reliable.Channel[Msg]
	rules rules

	started bool
	epoch   uint64 // the election this node takes part in; 0 before the first
	hinted  uint64 // Tanenbaum: the highest epoch other nodes said they are in
	leader  protocol.NodeID

	noted                  uint64 // the epoch of the last leader note
	startNoted, endNoted   uint64 // the epochs whose start and end are noted
	dead                   map[protocol.NodeID]bool
	successor, predecessor protocol.NodeID
}

func newNode(alg string, cfg protocol.Config) (*node, error) {
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", alg, cfg.ID)
	}
	s, err := parse(alg, cfg.Params, cfg.Members, cfg.Seed, cfg.RouteDelay)
	if err != nil {
		return nil, err
	}
	if _, ok := s.ring.Index(cfg.ID); !ok {
		return nil, fmt.Errorf("%s: node %d is not a member (members: %s)", alg, cfg.ID, logicalring.Describe(cfg.Members))
	}
	n := &node{
		env:         cfg.Env,
		id:          cfg.ID,
		set:         s,
		ring:        s.ring,
		ch:          reliable.New[Msg](cfg.Env, cfg.ID, s.rel),
		successor:   s.ring.Successor(cfg.ID),
		predecessor: s.ring.Predecessor(cfg.ID),
	}
	if w := reliable.HopWarning(alg, s.rel, cfg.HopDelay); w != nil {
		return n, w
	}
	return n, nil
}

// Step implements protocol.Process: the channel sees every event first.
func (n *node) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); ok {
		n.boot()
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
			n.rules.receive(d.From, d.Msg)
		}
		return
	}
	switch e := ev.(type) {
	case protocol.Timeout:
		if e.Name == timerStart {
			// Initiate the first election unless one has reached this
			// node already.
			if n.epoch == 0 {
				n.elect()
			}
			return
		}
		n.rules.timer(e)
	case protocol.Command:
		if e.Name == protocol.Elect {
			n.elect()
		}
	}
}

func (n *node) boot() {
	if n.started {
		return
	}
	n.started = true
	n.ch.Start()
	if n.ring.Len() == 1 {
		n.elect()
		return
	}
	n.rules.boot()
}

// armStart sets the initiators' start timer.
func (n *node) armStart() { n.env.SetTimer(n.set.start, timerStart, 0) }

// elect starts a new election at this node: the highest epoch seen plus one.
func (n *node) elect() {
	e := max(n.epoch, n.hinted) + 1
	if n.ring.Len() == 1 {
		// A ring of one elects itself at once, sending nothing.
		n.epoch = e
		n.noteStart()
		n.follow(n.id)
		n.noteEnd()
		return
	}
	n.join(e, false)
}

// join makes e the current election and begins this node's part in it.
func (n *node) join(e uint64, byMessage bool) {
	n.epoch = e
	n.dead = nil
	n.noteStart()
	n.rules.begin(byMessage)
}

// current filters a message by epoch for the algorithms that assume no
// failures: an earlier election's message is dropped, a later one's makes
// this node join it. It reports whether m belongs to the current election.
func (n *node) current(m Msg) bool {
	switch {
	case m.Epoch == 0 || m.Epoch < n.epoch:
		return false
	case m.Epoch > n.epoch:
		n.join(m.Epoch, true)
	}
	return true
}

// send sends m to a peer over the reliable channel, unless the peer was
// given up on in this election.
func (n *node) send(to protocol.NodeID, m Msg) {
	if to == protocol.None || to == n.id || n.dead[to] {
		return
	}
	n.ch.Send(to, m)
}

// giveUp records, for the algorithms that assume no failures, a peer that
// did not acknowledge: a run outside the algorithm's assumptions, noted as
// such; the peer gets nothing more in this election.
func (n *node) giveUp(f reliable.Failure[Msg]) {
	if n.dead[f.Peer] {
		return
	}
	if n.dead == nil {
		n.dead = map[protocol.NodeID]bool{}
	}
	n.dead[f.Peer] = true
	n.env.Note(protocol.Note{Kind: protocol.NoteInfo, Epoch: n.epochString(), Text: fmt.Sprintf(
		"node %d did not acknowledge %d message(s): unreachable, outside the algorithm's assumptions (no failures); no longer forwarding to it in election %d",
		f.Peer, len(f.Unacked), n.epoch)})
}

func (n *node) epochString() string { return strconv.FormatUint(n.epoch, 10) }

func (n *node) noteStart() {
	if n.startNoted != n.epoch {
		n.startNoted = n.epoch
		n.env.Note(protocol.Note{Kind: protocol.NoteElectionStart, Epoch: n.epochString()})
	}
}

func (n *node) noteEnd() {
	if n.endNoted != n.epoch {
		n.endNoted = n.epoch
		n.env.Note(protocol.Note{Kind: protocol.NoteElectionEnd, Epoch: n.epochString()})
	}
}

// follow records leader as this node's leader in the current election,
// noting it once.
func (n *node) follow(leader protocol.NodeID) {
	if n.leader == leader && n.noted == n.epoch {
		return
	}
	n.leader, n.noted = leader, n.epoch
	n.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: leader, Epoch: n.epochString()})
}

// announce sends the announcement "elected" to the successor: the winner
// starts it, every other member forwards it until it is back.
func (n *node) announce(leader protocol.NodeID) {
	n.send(n.successor, Msg{Type: TypeElected, Epoch: n.epoch, ID: leader})
}

// elected handles the announcement for the algorithms that use it.
func (n *node) elected(m Msg) {
	n.follow(m.ID)
	n.noteEnd()
	if m.ID != n.id {
		n.announce(m.ID)
	}
}
