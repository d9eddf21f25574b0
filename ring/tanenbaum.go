package ring

import (
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

func init() {
	protocol.Register(protocol.Spec{
		Name:        Tanenbaum,
		Summary:     "the ring election that skips dead successors (Tanenbaum): the election message collects the live IDs, the initiator circulates the coordinator; 2m messages for m live",
		New:         NewTanenbaum,
		Messages:    reliable.Messages[Msg](),
		Goal:        protocol.GoalHighestID,
		LogicalRing: true,
		Complexity: &protocol.Complexity{
			Announce: []string{KindCoordinator},
			Control:  []string{KindCheck, KindOutdated},
			Bound:    boundFunc(Tanenbaum),
		},
	})
}

// tanenbaum is the ring election of seed 002. The initiator sends an
// election message to its successor; each process appends its ID and
// passes it on; a successor that does not acknowledge (the reliable
// channel gives up on it) is skipped for the next one, and the messages it
// did not acknowledge go there instead. The initiator, seeing its message
// back, elects the highest ID collected and circulates a coordinator
// message once around. Several initiators may start the same election at
// once: each message goes round (seed 002), and only the initiator that
// saw no larger initiator's message (FIFO channels: a larger initiator's
// message, sent before this one reached it, arrives first) sends the
// coordinator, so an epoch has one leader, as long as the channel gives
// up only on crashed members.
//
// Crashes and recoveries:
//   - a coordinator that comes back without having passed the leader (it
//     died after the election passed it) starts a new election, as in the
//     seed's example;
//   - a process in an unfinished election starts a new one after the
//     election timeout; one that no election reached starts one a timeout
//     after the initiators' start;
//   - members check their coordinator every check period, and an
//     unreachable coordinator starts an election; the coordinator checks
//     its next live successor, which answers "outdated" if the ring went
//     on to a later election without it;
//   - skipped successors are probed with checks every period; a probe
//     acknowledged in the same epoch takes the skip back, and a process
//     that receives a check of a later epoch than its own (it was skipped,
//     or recovered) starts an election;
//   - a process that starts late (a recovery: a fresh process) starts an
//     election after the start delay, numbered from its start time since
//     it has forgotten the epoch; messages of an earlier election are
//     answered with "outdated" and the current epoch;
//   - a process that receives a coordinator naming a lower leader than
//     itself was skipped, and takes over with a new election; two
//     coordinators of one epoch with different leaders (a ring split by
//     live members given up on) start a new election too.
type tanenbaum struct {
	*node
	skip      map[protocol.NodeID]uint64 // peers given up on, and the epoch then
	late      bool                       // started after the first election was due
	joined    bool                       // has taken part in an election
	done      bool                       // the coordinator of epoch has passed (or, at its initiator, returned)
	initiator bool                       // sent an election message in epoch
	ownBack   bool                       // its election message came back
	sawLarger bool                       // a larger initiator's election of epoch passed
	seen      map[protocol.NodeID]bool   // initiators whose election of epoch passed
	deadline  protocol.TimerID
	probes    map[protocol.NodeID]uint64 // skipped successors checked, and the epoch the check carried
	checking  protocol.NodeID            // the leader checked in the last period
}

// NewTanenbaum builds a process of the ring election that skips dead
// successors.
func NewTanenbaum(cfg protocol.Config) (protocol.Process, error) {
	n, err := newNode(Tanenbaum, cfg)
	if _, ok := protocol.Warned(err); !ok {
		return nil, err
	}
	p := &tanenbaum{node: n, skip: map[protocol.NodeID]uint64{}, probes: map[protocol.NodeID]uint64{}}
	n.rules = p
	return p, err // nil, or a warning
}

func (p *tanenbaum) boot() {
	now := p.env.Now()
	p.late = now > 0 && now >= p.set.start
	if p.late {
		// A fresh process started late (a recovery) has forgotten the
		// epoch. If nobody who remembers it is reachable, its election
		// must still not reuse a number: it counts from its start time
		// in milliseconds, above any epoch reached one election at a time.
		p.hinted = uint64(now / time.Millisecond)
	}
	if p.set.initiator(p.id) || p.late {
		p.armStart()
	} else {
		// A member that no election reaches (its initiators crashed
		// before it was passed) starts one itself, a timeout after the
		// initiators' start.
		p.env.SetTimer(p.set.start+p.set.timeout, timerStart, 0)
	}
	p.env.SetTimer(p.set.check, timerCheck, 0)
}

func (p *tanenbaum) begin(byMessage bool) {
	p.joined = true
	p.done, p.initiator, p.ownBack, p.sawLarger = false, false, false, false
	p.seen = nil
	if p.deadline != 0 {
		p.env.CancelTimer(p.deadline)
	}
	p.deadline = p.env.SetTimer(p.set.timeout, timerTimeout, int64(p.epoch))
	if !byMessage {
		p.initiate()
	}
}

func (p *tanenbaum) initiate() {
	p.initiator = true
	p.forward(Msg{Type: TypeElection, Epoch: p.epoch, ID: p.id, Live: []protocol.NodeID{p.id}})
}

func (p *tanenbaum) skipped(id protocol.NodeID) bool {
	_, ok := p.skip[id]
	return ok
}

// forward passes m to the next successor not given up on; to this node
// itself when every other one is.
func (p *tanenbaum) forward(m Msg) {
	to := p.ring.Next(p.id, false, p.skipped)
	if to == p.id {
		p.receive(p.id, m)
		return
	}
	p.ch.Send(to, m)
}

// alive takes back a skip when a peer shows life: a message of its own
// election of an epoch after it was skipped.
func (p *tanenbaum) alive(id protocol.NodeID, epoch uint64) {
	if e, ok := p.skip[id]; ok && epoch > e {
		delete(p.skip, id)
	}
}

func (p *tanenbaum) receive(from protocol.NodeID, m Msg) {
	if from != p.id {
		delete(p.skip, from) // it just sent something
	}
	switch m.Type {
	case TypeElection:
		p.election(m)
	case TypeCoordinator:
		p.coordinator(m)
	case TypeCheck:
		p.checked(from, m)
	case TypeOutdated:
		p.outdated(m)
	}
}

func (p *tanenbaum) election(m Msg) {
	origin := m.ID
	if m.Epoch == 0 || origin == protocol.None || len(m.Live) == 0 {
		return
	}
	p.alive(origin, m.Epoch)
	if m.Epoch < p.epoch || m.Epoch == p.epoch && p.done {
		// An election that is over or was overtaken. Tell its initiator,
		// unless this is a late copy of a message already handled.
		if origin != p.id && !(m.Epoch == p.epoch && p.seen[origin]) {
			if _, member := p.ring.Index(origin); member {
				p.ch.Send(origin, Msg{Type: TypeOutdated, Epoch: p.epoch, Done: p.done})
			}
		}
		return
	}
	if m.Epoch > p.epoch {
		first := !p.joined
		p.join(m.Epoch, true)
		// An initiator reached by the first election before its start
		// timer initiates too, at once (as if its timer had fired just
		// before): the same number of messages whatever the timing.
		if first && !p.late && p.set.initiator(p.id) {
			p.initiate()
		}
	}
	if origin == p.id {
		if !p.initiator || p.ownBack {
			return
		}
		p.ownBack = true
		if p.sawLarger {
			return // the larger initiator's coordinator decides this epoch
		}
		leader := slices.Max(m.Live)
		p.follow(leader)
		p.forward(Msg{Type: TypeCoordinator, Epoch: p.epoch, ID: leader, Origin: p.id, Reached: leader == p.id})
		return
	}
	if p.seen[origin] {
		return // a copy redirected after a crash
	}
	if p.seen == nil {
		p.seen = map[protocol.NodeID]bool{}
	}
	p.seen[origin] = true
	if p.initiator && origin > p.id {
		p.sawLarger = true
	}
	fwd := m
	fwd.Live = append(slices.Clip(m.Live), p.id)
	p.forward(fwd)
}

func (p *tanenbaum) coordinator(m Msg) {
	if m.Epoch == 0 || m.ID == protocol.None {
		return
	}
	p.alive(m.Origin, m.Epoch)
	if m.Epoch == p.epoch && p.done && m.ID != p.leader {
		// Two coordinators of one epoch: disjoint elections, possible only
		// when live members were given up on (lost acknowledgements, as
		// in a partition). A new election brings the ring together.
		p.elect()
		return
	}
	if m.Epoch < p.epoch || m.Epoch == p.epoch && p.done {
		return
	}
	if m.Epoch > p.epoch {
		p.join(m.Epoch, true) // the election skipped this node; follow anyway
	}
	if m.Origin == p.id {
		if !p.initiator {
			return
		}
		p.finish()
		if !m.Reached && m.ID != p.id {
			// The coordinator went round without meeting the leader: it
			// failed after the election passed it (seed 002: re-initiate).
			p.elect()
			return
		}
		p.noteEnd()
		return
	}
	p.finish()
	p.follow(m.ID)
	p.noteEnd()
	fwd := m
	fwd.Reached = m.Reached || m.ID == p.id
	p.forward(fwd)
	if m.ID < p.id {
		// A leader lower than this live node: the election message
		// skipped it (it seemed down, or it was recovering). It takes
		// over with a new election.
		p.elect()
	}
}

// finish ends this node's wait for the coordinator.
func (p *tanenbaum) finish() {
	p.done = true
	if p.deadline != 0 {
		p.env.CancelTimer(p.deadline)
		p.deadline = 0
	}
}

// checked answers a check: from a member that follows this node, or from
// a predecessor that skipped it and asks whether it is back. If this node
// knows a later election, the sender is told it is outdated; if the
// sender's election is later than any this node took part in, a later
// election went on without this node (it was skipped, or it recovered and
// forgot): it starts an election to be taken in again.
func (p *tanenbaum) checked(from protocol.NodeID, m Msg) {
	switch {
	case m.Epoch > p.epoch:
		p.hinted = max(p.hinted, m.Epoch)
		p.elect()
	case m.Epoch < p.epoch && from != p.id:
		p.ch.Send(from, Msg{Type: TypeOutdated, Epoch: p.epoch, Done: p.done})
	case p.done && m.Origin != protocol.None && m.Origin != p.leader:
		// The same epoch with another leader: see coordinator.
		p.elect()
	}
}

// outdated learns that another node is in a later election (or that this
// node's election came too late). If that election is over and this node
// was not part of it, it was skipped or recovered: it starts an election
// to be taken in again.
func (p *tanenbaum) outdated(m Msg) {
	p.hinted = max(p.hinted, m.Epoch)
	if !m.Done {
		return
	}
	if m.Epoch > p.epoch || m.Epoch == p.epoch && !p.done && p.initiator {
		p.elect()
	}
}

func (p *tanenbaum) unreachable(f reliable.Failure[Msg]) {
	if f.Peer == p.id {
		return
	}
	p.skip[f.Peer] = max(p.epoch, p.hinted)
	delete(p.probes, f.Peer)
	if f.Peer == p.checking {
		p.checking = protocol.None
	}
	for _, m := range f.Unacked {
		switch m.Type {
		case TypeElection, TypeCoordinator:
			if m.Epoch >= p.epoch {
				p.forward(m) // to the next live successor
			}
		}
	}
	if f.Peer == p.leader && p.done {
		p.elect()
	}
}

func (p *tanenbaum) timer(e protocol.Timeout) {
	switch e.Name {
	case timerTimeout:
		if e.ID != p.deadline {
			return
		}
		p.deadline = 0
		if !p.done {
			p.elect()
		}
	case timerCheck:
		p.env.SetTimer(p.set.check, timerCheck, 0)
		p.probeSkipped()
		p.checkLeader()
	}
}

// checkLeader sends the coordinator a check, one at a time: the reliable
// channel's acknowledgement is the answer, and a coordinator that does not
// acknowledge is reported unreachable (an election follows). The
// coordinator itself checks its next live successor: if the ring went on
// to a later election without it (its predecessor skipped it), the answer
// is "outdated" and it starts an election to be taken in again. An
// acknowledged check takes back a skip of the node checked.
func (p *tanenbaum) checkLeader() {
	if p.checking != protocol.None && p.ch.Unacked(p.checking) == 0 {
		delete(p.skip, p.checking)
	}
	p.checking = protocol.None
	if !p.done || p.leader == protocol.None {
		return
	}
	to := p.leader
	if to == p.id {
		to = p.ring.Next(p.id, false, p.skipped)
	}
	if to == p.id || p.ch.Unacked(to) != 0 {
		return
	}
	p.checking = to
	p.ch.Send(to, p.check(to))
}

// check is a check of node to: it carries this node's epoch and, once the
// epoch's coordinator has passed, its leader.
func (p *tanenbaum) check(to protocol.NodeID) Msg {
	m := Msg{Type: TypeCheck, Epoch: p.epoch, ID: to}
	if p.done {
		m.Origin = p.leader
	}
	return m
}

// probeSkipped checks, once per check period, whether the successors
// skipped before the next live one are back: a skip may be wrong (the
// acknowledgements were lost) or outlived (the node recovered). A check
// acknowledged while this node is still in the epoch it carried takes the
// skip back; the successor, if the check's epoch is later than its own,
// learns that an election went on without it and starts one, to be taken
// in again. The successors are walked in ring order, never in map order.
func (p *tanenbaum) probeSkipped() {
	cur := p.epoch
	for id := p.successor; id != p.id && p.skipped(id); id = p.ring.Successor(id) {
		if e, ok := p.probes[id]; ok {
			if p.ch.Unacked(id) != 0 {
				continue // still unanswered
			}
			delete(p.probes, id)
			if e == cur {
				delete(p.skip, id)
				return // the next live successor again: the rest are its business
			}
		}
		if p.ch.Unacked(id) == 0 {
			p.probes[id] = cur
			p.ch.Send(id, p.check(id))
		}
	}
}
