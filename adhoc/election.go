package adhoc

import (
	"time"

	"manetlab/protocol"
)

// numUnit is the time unit of index nums: fine enough that elections
// planned by thousands of nodes within one start_delay rarely tie.
const numUnit = time.Microsecond

// freshIndex returns an index of this node's own, above every num it has
// seen. The run's time (in numUnit) is a floor so that a recovered node,
// which remembers nothing, does not reuse an index of its previous
// incarnation.
func (n *Node) freshIndex() Index {
	num := max(n.maxNum+1, uint64(n.env.Now()/numUnit))
	n.maxNum = num
	return Index{Num: num, ID: n.id}
}

// startElection makes this node the source of a new computation.
func (n *Node) startElection(departed protocol.NodeID) {
	n.join(n.freshIndex(), protocol.None, departed)
}

// deferElection plans an election for a node that has no leader (boot,
// recovery) or whose leader's lease ran out: it starts after a random
// delay below start_delay unless an Election, a Leader or a Beacon settles
// the matter first. Its index is fixed now and is higher the sooner it
// starts (num: now + start_delay - delay, in numUnit), so that the first
// election to start outranks those started later in parts it has not
// reached yet, and absorbs them in one wave.
func (n *Node) deferElection() {
	if n.cfg.startDelay <= 0 {
		n.deferredStart()
		return
	}
	if _, on := n.timers[tStart]; on {
		return
	}
	d := time.Duration(n.env.Rand().Int64N(int64(n.cfg.startDelay)))
	n.planned = uint64((n.env.Now() + n.cfg.startDelay - d) / numUnit)
	n.setTimer(tStart, d)
}

// deferredStart starts the planned election if it is still needed: this
// node is idle and has no leader, or its leader's lease ran out.
func (n *Node) deferredStart() {
	planned := n.planned
	n.planned = 0
	if n.phase != idle {
		return
	}
	switch {
	case n.leader == protocol.None:
		n.join(n.plannedIndex(planned), protocol.None, protocol.None)
	case n.leader == n.id:
	case n.env.Now() >= n.leaseEnd:
		n.join(n.plannedIndex(planned), protocol.None, n.leader)
	default:
		// A beacon renewed the lease meanwhile: watch it again.
		n.setTimer(tLease, n.leaseEnd-n.env.Now())
	}
}

// plannedIndex is freshIndex with the planned num as a further floor.
func (n *Node) plannedIndex(planned uint64) Index {
	idx := n.freshIndex()
	if idx.Num < planned {
		idx.Num = planned
		n.maxNum = planned
	}
	return idx
}

// join enters computation idx with parent (None for the source),
// abandoning any lower computation, and sends the Election on.
func (n *Node) join(idx Index, parent, departed protocol.NodeID) {
	if n.phase != idle {
		n.note(protocol.NoteElectionEnd, protocol.None, 0, n.idx, "abandoned for "+idx.String())
	}
	n.dropLeader()
	n.stopTimer(tStart)
	n.phase, n.idx, n.parent, n.departed = awaiting, idx, parent, departed
	n.presumeLost(departed)
	if n.last.Less(idx) {
		n.last = idx
	}
	n.maxNum = max(n.maxNum, idx.Num)
	n.waiting = map[protocol.NodeID]bool{}
	n.probed = map[protocol.NodeID]bool{}
	n.done = map[protocol.NodeID]bool{}
	n.collect = false
	n.best, n.bestVal = n.id, n.value
	n.stopTimer(tAck)
	n.stopTimer(tChild)
	n.note(protocol.NoteElectionStart, protocol.None, 0, idx, "")
	n.setTimer(tElection, n.cfg.electionTimeout)

	e := Election{Num: idx.Num, Src: idx.ID, Departed: departed}
	if n.cfg.variant == Unicast {
		for _, nb := range sorted(n.nbrs) {
			if nb != parent {
				n.env.Send(nb, e)
				n.waiting[nb] = true
			}
		}
	} else {
		if parent != protocol.None {
			// Child goes first: FIFO links then let the parent know us
			// before it hears our Election.
			n.env.Send(parent, Child{Num: idx.Num, Src: idx.ID})
		}
		n.env.Broadcast(e)
		n.collect = true
		n.setTimer(tChild, n.cfg.childTimeout)
	}
	n.armProbe()
	n.maybeComplete()
}

// dropLeader forgets the leader on entering an election.
func (n *Node) dropLeader() {
	n.stopTimer(tBeacon)
	n.stopTimer(tLease)
	n.stopTimer(tQuery)
	if n.leader != protocol.None {
		n.note(protocol.NoteLeader, protocol.None, 0, Index{}, "in election")
	}
	n.leader, n.leaderValue, n.epoch = protocol.None, 0, Index{}
}

func (n *Node) onElection(from protocol.NodeID, m Election) {
	idx := Index{Num: m.Num, ID: m.Src}
	n.maxNum = max(n.maxNum, m.Num)
	if idx.ID == n.id && idx != n.idx && idx != n.last {
		// A computation of this node's previous life (it crashed and
		// came back, remembering nothing): its source is gone, so
		// joining it would close a cycle of parents that no Ack ever
		// leaves (found by explore --crashes 1 on
		// configs/explore/tree3.yaml). The node plans its own.
		return
	}
	if !n.joins(n.last, n.idx, idx) {
		// Our own computation, or an older one. Only the unicast sender
		// awaits every neighbour, so only it needs an answer now.
		if n.cfg.variant == Unicast && idx == n.last && from != n.parent {
			n.env.Send(from, Ack{Num: m.Num, Src: m.Src})
		}
		return
	}
	if n.phase == idle && n.leader == n.id && m.Departed == n.id {
		// We are the leader this election presumes lost: a false
		// suspicion (beacons lost on the way). Joining would silence our
		// beacons and make the suspicion true for everyone, so we refute
		// it instead: we Ack with ourselves and beacon at once.
		n.env.Send(from, Ack{Num: m.Num, Src: m.Src, Best: n.id, Value: n.value})
		n.beaconNow()
		return
	}
	if n.cfg.variant == Optimised && n.phase == idle && n.leader != protocol.None && n.leader != m.Departed {
		// The departed-leader check: our leader is alive as far as we
		// know, so we offer it instead of joining.
		n.env.Send(from, Ack{Num: m.Num, Src: m.Src, Best: n.leader, Value: n.leaderValue})
		return
	}
	n.join(idx, from, m.Departed)
}

func (n *Node) onChild(from protocol.NodeID, m Child) {
	if n.phase != awaiting || (Index{Num: m.Num, ID: m.Src}) != n.idx || n.done[from] {
		return
	}
	n.waiting[from] = true
	n.armProbe()
}

func (n *Node) onAck(from protocol.NodeID, m Ack) {
	if n.phase != awaiting || (Index{Num: m.Num, ID: m.Src}) != n.idx {
		return
	}
	n.done[from] = true
	n.drop(from)
	if m.Best == from {
		delete(n.lost, from) // an Ack from the node it names is proof of life
	}
	if m.Best != protocol.None && !n.isLost(m.Best) && n.better(m.Best, m.Value, n.best, n.bestVal) {
		n.best, n.bestVal = m.Best, m.Value
	}
	n.maybeComplete()
}

func (n *Node) onProbe(from protocol.NodeID, m Probe) {
	if n.phase != idle && (Index{Num: m.Num, ID: m.Src}) == n.idx {
		n.env.Send(from, Reply(m))
	}
}

func (n *Node) onReply(from protocol.NodeID, m Reply) {
	if n.phase == awaiting && (Index{Num: m.Num, ID: m.Src}) == n.idx {
		delete(n.probed, from)
	}
}

// armProbe keeps the probe timer running while Acks are awaited.
func (n *Node) armProbe() {
	if _, on := n.timers[tProbe]; !on && len(n.waiting) > 0 {
		n.setTimer(tProbe, n.cfg.probePeriod)
	}
}

// probe drops the awaited children that did not answer the previous probe
// and probes the rest: a child that vanished is dropped within two probe
// periods.
func (n *Node) probe() {
	if n.phase != awaiting {
		return
	}
	for _, c := range sorted(n.waiting) {
		if n.probed[c] {
			n.drop(c)
			continue
		}
		n.probed[c] = true
		n.env.Send(c, Probe{Num: n.idx.Num, Src: n.idx.ID})
	}
	n.armProbe()
	n.maybeComplete()
}

func (n *Node) drop(c protocol.NodeID) {
	delete(n.waiting, c)
	delete(n.probed, c)
	if len(n.waiting) == 0 {
		n.stopTimer(tProbe)
	}
}

func (n *Node) maybeComplete() {
	if n.phase == awaiting && !n.collect && len(n.waiting) == 0 {
		n.complete()
	}
}

// complete is reached when no Ack is awaited any more: the source
// announces the best of its tree, any other node reports to its parent.
func (n *Node) complete() {
	n.stopTimer(tProbe)
	n.stopTimer(tChild)
	n.stopTimer(tElection)
	if n.parent == protocol.None {
		n.announce(n.idx)
		return
	}
	n.env.Send(n.parent, Ack{Num: n.idx.Num, Src: n.idx.ID, Best: n.best, Value: n.bestVal})
	n.phase = acked
	n.setTimer(tAck, n.cfg.ackTimeout)
}

// giveUp ends the wait for Acks after election_timeout with what has
// arrived.
func (n *Node) giveUp() {
	if n.phase != awaiting {
		return
	}
	n.waiting = map[protocol.NodeID]bool{}
	n.collect = false
	n.complete()
}

// endAlone ends the computation at this node: its parent vanished before
// it acknowledged, or the Leader never came. It floods the best it knows
// under a fresh index of its own.
func (n *Node) endAlone() {
	if n.phase == idle {
		return
	}
	n.announce(n.freshIndex())
}

// announce ends this node's election with its subtree's best as leader,
// chosen under idx, and floods that Leader.
func (n *Node) announce(idx Index) {
	m := Leader{Leader: n.best, Value: n.bestVal, Num: idx.Num, Src: idx.ID, Departed: n.departed, TTL: n.cfg.lease()}
	n.finish(m)
	n.env.Broadcast(m)
}
