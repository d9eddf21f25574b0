package adhoc

import "manetlab/protocol"

// sendExchange tells neighbour to our leader, or, mid-election, remembers
// to do so when the election ends.
func (n *Node) sendExchange(to protocol.NodeID) {
	if n.phase != idle || n.leader == protocol.None {
		n.pending[to] = true // mid-election, or not started yet
		return
	}
	ttl := n.cfg.lease()
	if n.leader != n.id {
		ttl = n.leaseEnd - n.env.Now()
		if ttl <= 0 {
			return // our leader is about to be presumed lost
		}
	}
	n.env.Send(to, Exchange{Leader: n.leader, Value: n.leaderValue, Num: n.epoch.Num, Src: n.epoch.ID, TTL: ttl})
}

// onExchange compares leaders with a neighbour: the lesser side adopts the
// better leader and floods it through its component; the better side
// answers with its own. Mid-election the comparison waits for the end.
func (n *Node) onExchange(from protocol.NodeID, m Exchange) {
	if n.phase != idle {
		n.pending[from] = true
		return
	}
	if m.Leader == protocol.None || n.isLost(m.Leader) {
		return
	}
	n.maxNum = max(n.maxNum, m.Num)
	switch {
	case m.Leader == n.leader:
		if n.leader != n.id {
			n.leaseEnd = max(n.leaseEnd, n.env.Now()+m.TTL)
		}
	case m.TTL > 0 && protocol.Better(m.Leader, m.Value, n.leader, n.leaderValue):
		n.adopt(m.Leader, m.Value, Index{Num: m.Num, ID: m.Src}, m.TTL)
		n.env.Broadcast(Leader{Leader: m.Leader, Value: m.Value, Num: m.Num, Src: m.Src, TTL: m.TTL})
	default:
		n.sendExchange(from)
	}
}

// flushPending sends the exchanges deferred during the election.
func (n *Node) flushPending() {
	ids := sorted(n.pending)
	n.pending = map[protocol.NodeID]bool{}
	for _, id := range ids {
		n.sendExchange(id)
	}
}
