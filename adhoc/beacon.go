package adhoc

import "manetlab/protocol"

// beacon floods the leader's heartbeat and schedules the next.
func (n *Node) beacon() {
	if n.leader != n.id || n.phase != idle {
		return
	}
	n.seq++
	n.env.Broadcast(Beacon{Leader: n.id, Value: n.value, Num: n.epoch.Num, Src: n.epoch.ID, Inc: n.inc, Seq: n.seq})
	n.setTimer(tBeacon, n.cfg.beaconPeriod)
}

// newer reports whether beacon (inc, seq) follows (inc0, seq0): a later
// beacon of the same incarnation, or any beacon of another incarnation
// (a driver whose clock restarts with the process gives no order between
// incarnations; only old beacons still in flight right after a crash can
// then be taken twice).
func newer(inc, seq, inc0, seq0 uint64) bool {
	return inc != inc0 || seq > seq0
}

func (n *Node) onBeacon(from protocol.NodeID, m Beacon) {
	if m.Leader == n.id {
		return // our own, come back
	}
	if h := n.heard[m.Leader]; !newer(m.Inc, m.Seq, h[0], h[1]) {
		return // forwarded once already
	}
	n.heard[m.Leader] = [2]uint64{m.Inc, m.Seq}
	delete(n.lost, m.Leader) // a beacon is proof of life
	idx := Index{Num: m.Num, ID: m.Src}
	n.maxNum = max(n.maxNum, m.Num)
	lease := n.cfg.lease()
	if n.phase != idle {
		if !n.accepts(m.Leader, m.Value, idx) {
			return
		}
		n.ackParentOnLeave(from, m.Leader, m.Value)
		n.finish(Leader{Leader: m.Leader, Value: m.Value, Num: m.Num, Src: m.Src, TTL: lease})
		n.env.Broadcast(m)
		return
	}
	switch {
	case m.Leader == n.leader:
		if n.epoch.Less(idx) {
			n.adopt(m.Leader, m.Value, idx, lease)
		}
		n.leaderValue = m.Value
		n.leaseEnd = n.env.Now() + lease
		n.env.Broadcast(m)
	case protocol.Better(m.Leader, m.Value, n.leader, n.leaderValue):
		n.adopt(m.Leader, m.Value, idx, lease)
		n.env.Broadcast(m)
	default:
		// A neighbour follows a lesser leader: a merge the exchange on
		// NeighborUp missed. Tell it ours.
		n.sendExchange(from)
	}
}

// leaseCheck starts an election once the leader's beacons have been
// missing for a whole lease (beacon_loss periods).
func (n *Node) leaseCheck() {
	if n.phase != idle || n.leader == n.id || n.leader == protocol.None {
		return
	}
	now := n.env.Now()
	if now < n.leaseEnd {
		n.setTimer(tLease, n.leaseEnd-now)
		return
	}
	n.startElection(n.leader)
}
