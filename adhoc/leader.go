package adhoc

import (
	"fmt"
	"time"

	"manetlab/protocol"
)

// finish ends this node's part in its election, if any, and adopts the
// leader m names.
func (n *Node) finish(m Leader) {
	if n.phase != idle {
		for _, t := range []string{tProbe, tChild, tElection, tAck} {
			n.stopTimer(t)
		}
		source := n.phase == awaiting && n.parent == protocol.None
		n.phase = idle
		n.waiting, n.probed, n.done, n.collect = nil, nil, nil, false
		// Only the computation's own result is credited to its index;
		// a node that leaves for a leader heard elsewhere says so in Text.
		if idx := (Index{Num: m.Num, ID: m.Src}); idx == n.idx {
			n.note(protocol.NoteElectionEnd, m.Leader, m.Value, n.idx, "")
		} else {
			n.note(protocol.NoteElectionEnd, protocol.None, 0, n.idx, fmt.Sprintf("left for leader %d of %v", m.Leader, idx))
			if source {
				// The source gives up its computation (its leader
				// turned out alive, or a better one is known): it
				// announces that leader under the computation's index,
				// so that every node that joined leaves it too instead
				// of waiting for a result that would never come.
				r := m
				r.Num, r.Src, r.Departed = n.idx.Num, n.idx.ID, protocol.None
				n.env.Broadcast(r)
			}
		}
	}
	n.presumeLost(m.Departed)
	n.adopt(m.Leader, m.Value, Index{Num: m.Num, ID: m.Src}, m.TTL)
	n.flushPending()
}

// adopt makes l (value v, chosen by computation epoch) this node's leader,
// believed for ttl unless it is this node.
func (n *Node) adopt(l protocol.NodeID, v float64, epoch Index, ttl time.Duration) {
	changed := l != n.leader || epoch != n.epoch
	now := n.env.Now()
	if l != n.leader {
		n.leaseEnd = now + ttl
		// A leader just adopted counts as just heard of; only its own
		// beacons are kept for queries.
		n.bcn, n.bcnAt = Beacon{}, now
	} else {
		n.leaseEnd = max(n.leaseEnd, now+ttl)
	}
	n.leader, n.epoch = l, epoch
	if n.last.Less(epoch) {
		n.last = epoch
	}
	n.maxNum = max(n.maxNum, epoch.Num)
	if l == n.id {
		n.leaderValue = n.value
		n.stopTimer(tLease)
		n.stopTimer(tQuery)
		if _, on := n.timers[tBeacon]; !on {
			n.setTimer(tBeacon, n.cfg.beaconPeriod)
		}
	} else {
		n.leaderValue = v
		n.stopTimer(tBeacon)
		n.setTimer(tLease, n.leaseEnd-now)
		n.armQuery()
	}
	if changed {
		n.note(protocol.NoteLeader, l, n.leaderValue, epoch, "")
	}
}

// accepts reports whether a node in an election takes leader l (value v,
// chosen by idx) and leaves its computation: the result of its own
// computation; a leader better than its subtree's best that is not
// presumed lost; or, once it has acknowledged and only waits, the result
// of a later computation. A Leader is never refused merely because Acks
// are awaited. A lesser leader passed on by the parent is refused: taking
// it would only make this better node claim again at once, and with
// several claimants that feeds a storm of elections.
func (n *Node) accepts(l protocol.NodeID, v float64, idx Index) bool {
	return idx == n.idx ||
		(!n.isLost(l) && (l == n.best || protocol.Better(l, v, n.best, n.bestVal))) ||
		(n.phase == acked && n.idx.Less(idx))
}

// ackParentOnLeave tells the parent, before this node leaves a computation
// for a leader heard elsewhere, what its subtree holds, so the parent does
// not wait on it.
func (n *Node) ackParentOnLeave(from, l protocol.NodeID, v float64) {
	if n.phase != awaiting || n.parent == protocol.None || from == n.parent {
		return
	}
	best, val := n.best, n.bestVal
	if protocol.Better(l, v, best, val) {
		best, val = l, v
	}
	n.env.Send(n.parent, Ack{Num: n.idx.Num, Src: n.idx.ID, Best: best, Value: val})
}

func (n *Node) onLeader(from protocol.NodeID, m Leader) {
	idx := Index{Num: m.Num, ID: m.Src}
	n.maxNum = max(n.maxNum, m.Num)
	if m.Leader != n.id && (m.TTL <= 0 || n.isLost(m.Leader)) {
		return // nothing vouches for that leader any more
	}
	fresh := n.seen[m.Leader].Less(idx)
	if fresh {
		n.seen[m.Leader] = idx
	}
	if n.phase != idle {
		if !n.accepts(m.Leader, m.Value, idx) {
			return
		}
		n.ackParentOnLeave(from, m.Leader, m.Value)
		n.finish(m)
		n.forward(m)
		return
	}
	switch {
	case m.Leader == n.leader:
		if fresh && n.epoch.Less(idx) {
			n.adopt(m.Leader, m.Value, idx, m.TTL)
			n.forward(m)
		} else if n.leader != n.id {
			n.leaseEnd = max(n.leaseEnd, n.env.Now()+m.TTL)
		}
	case fresh && m.Departed != protocol.None && m.Departed == n.leader && n.leader != n.id && !n.leaseFresh():
		// The election that chose m replaced our leader.
		n.presumeLost(m.Departed)
		n.adopt(m.Leader, m.Value, idx, m.TTL)
		n.forward(m)
	case protocol.Better(m.Leader, m.Value, n.leader, n.leaderValue):
		n.adopt(m.Leader, m.Value, idx, m.TTL)
		n.forward(m)
	default:
		// The sender's side follows a lesser leader: tell it ours.
		n.sendExchange(from)
	}
}

// forward passes a Leader on with the lease this node now holds, so that
// hearsay travelling in circles never extends it.
func (n *Node) forward(m Leader) {
	if m.Leader != n.id {
		m.TTL = n.leaseEnd - n.env.Now()
	}
	n.env.Broadcast(m)
}
