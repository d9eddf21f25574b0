package adhoc

import (
	"time"

	"manetlab/protocol"
)

// beacon floods the leader's heartbeat and schedules the next.
func (n *Node) beacon() {
	if n.leader != n.id || n.phase != idle {
		return
	}
	n.beaconNow()
}

// beaconNow floods a Beacon now and restarts the beacon period.
func (n *Node) beaconNow() {
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
	lease := n.cfg.lease() - m.Age
	if lease <= 0 {
		return // a repair too old to prove anything
	}
	n.heard[m.Leader] = [2]uint64{m.Inc, m.Seq}
	delete(n.lost, m.Leader) // a beacon is proof of life
	idx := Index{Num: m.Num, ID: m.Src}
	n.maxNum = max(n.maxNum, m.Num)
	if n.phase != idle {
		if !n.accepts(m.Leader, m.Value, idx) {
			return
		}
		n.ackParentOnLeave(from, m.Leader, m.Value)
		n.finish(Leader{Leader: m.Leader, Value: m.Value, Num: m.Num, Src: m.Src, TTL: lease})
		n.keep(m)
		n.env.Broadcast(m)
		return
	}
	switch {
	case m.Leader == n.leader:
		if n.epoch.Less(idx) {
			n.adopt(m.Leader, m.Value, idx, lease)
		}
		n.leaderValue = m.Value
		n.leaseEnd = max(n.leaseEnd, n.env.Now()+lease)
		n.keep(m)
		n.env.Broadcast(m)
	case protocol.Better(m.Leader, m.Value, n.leader, n.leaderValue):
		n.adopt(m.Leader, m.Value, idx, lease)
		n.keep(m)
		n.env.Broadcast(m)
	default:
		// A neighbour follows a lesser leader: a merge the exchange on
		// NeighborUp missed. Tell it ours.
		n.sendExchange(from)
	}
}

// leaseCheck starts an election (after start_delay, see deferElection)
// once the leader's beacons have been missing for a whole lease
// (beacon_loss periods).
func (n *Node) leaseCheck() {
	if n.phase != idle || n.leader == n.id || n.leader == protocol.None {
		return
	}
	now := n.env.Now()
	if now < n.leaseEnd {
		n.setTimer(tLease, n.leaseEnd-now)
		return
	}
	n.deferElection()
}

// leaseFresh reports whether this follower heard its leader's beacon (or
// hearsay as recent) within the last one and a half beacon periods: it
// missed none. A single node's lease can run out under loss while the
// leader is alive; a node whose lease is fresh refuses such a node's claim
// that the leader departed. A leader that really crashed stops beaconing
// for everyone at once, so by the time any lease runs out no lease is
// fresh any more.
func (n *Node) leaseFresh() bool {
	if n.leader == protocol.None || n.leader == n.id {
		return false
	}
	return n.leaseEnd-n.env.Now() > n.cfg.lease()-n.cfg.beaconPeriod*3/2
}

// keep records beacon m of the current leader for queries.
func (n *Node) keep(m Beacon) {
	if m.Leader != n.leader || n.leader == n.id {
		return
	}
	n.bcn = m
	n.bcnAt = max(n.bcnAt, n.env.Now()-m.Age)
	n.armQuery()
}

// overdue is how long after its last beacon a follower asks its
// neighbours for a newer one: half a period after the next was due.
func (n *Node) overdue() time.Duration { return n.cfg.beaconPeriod * 3 / 2 }

// armQuery sets the query timer for when the next beacon is overdue.
func (n *Node) armQuery() {
	if n.phase != idle || n.leader == protocol.None || n.leader == n.id {
		return
	}
	n.setTimer(tQuery, max(n.bcnAt+n.overdue()-n.env.Now(), time.Millisecond))
}

// query runs when a follower's beacon is overdue: broadcast loss took the
// flooded beacons on the way. It asks every neighbour, by acknowledged
// unicast, for a newer beacon, and asks again every period until one
// comes or the lease runs out. This keeps a live leader's lease from
// running out under loss; a crashed leader's beacons stop for everyone, so
// the queries find nothing and the lease runs out as before.
func (n *Node) query() {
	if n.phase != idle || n.leader == protocol.None || n.leader == n.id {
		return
	}
	now := n.env.Now()
	if now < n.bcnAt+n.overdue() {
		n.armQuery()
		return
	}
	h := n.heard[n.leader]
	for _, nb := range sorted(n.nbrs) {
		n.env.Send(nb, Query{Leader: n.leader, Inc: h[0], Seq: h[1]})
	}
	if now < n.leaseEnd {
		n.setTimer(tQuery, n.cfg.beaconPeriod)
	}
}

// onQuery answers a neighbour that missed beacons of leader q.Leader with
// the newest one this node has, if newer than the neighbour's: the leader
// itself sends its latest, a follower the one it kept, with its age.
func (n *Node) onQuery(from protocol.NodeID, q Query) {
	if n.phase != idle || q.Leader != n.leader {
		return
	}
	var b Beacon
	switch {
	case n.leader == n.id:
		b = Beacon{Leader: n.id, Value: n.value, Num: n.epoch.Num, Src: n.epoch.ID, Inc: n.inc, Seq: n.seq}
	case n.bcn.Leader == n.leader:
		b = n.bcn
		b.Age = n.env.Now() - n.bcnAt
		if b.Age >= n.cfg.lease() {
			return
		}
	default:
		return
	}
	if newer(b.Inc, b.Seq, q.Inc, q.Seq) {
		n.env.Send(from, b)
	}
}
