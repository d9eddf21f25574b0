package judge

import (
	"fmt"

	"manetlab/protocol"
)

// What a Collector keeps of an event.
const (
	CSend    = iota // a message sent (hellos aside)
	CRelay          // a routed message passed on (for the drops' first sends)
	CRecv           // a message received
	CStart          // an election-start note
	CLeader         // a leader note
	CRequest        // a critical-section request note
	CCrash          // a crash (the run file's)
	CRecover        // a recovery (the run file's)
	CDrop           // a frame the network dropped (hellos aside)
	CEnd            // an election-end note
)

// CEvent is what a Collector needs of one trace event: its node and
// time; for sends, relays and drops the message's kind, destination and
// numbers; for receives the kind, the hop it came from and its origin;
// for leader notes the leader.
type CEvent struct {
	T              int64
	What           int
	Node           protocol.NodeID
	Kind           string
	To, From       protocol.NodeID
	Origin, Leader protocol.NodeID
	Seq, OSeq      uint64
}

// Collector gathers a run's events, in each node's order, for a
// protocol.Budget: the explorer feeds it as the run goes, trace/analysis
// from a loaded run.
type Collector struct {
	evs []CEvent
	// fault and drop: the first crash or recovery, and drop, so far.
	fault, drop bool
	// now is every node's NodeSends so far, as the events came.
	now map[protocol.NodeID]*NodeSends
}

// Add keeps e.
func (c *Collector) Add(e CEvent) {
	c.evs = append(c.evs, e)
	if c.now == nil {
		c.now = map[protocol.NodeID]*NodeSends{}
	}
	node := func(id protocol.NodeID) *NodeSends {
		n := c.now[id]
		if n == nil {
			n = &NodeSends{ID: id, Sent: map[string]map[protocol.NodeID]int{}}
			c.now[id] = n
		}
		return n
	}
	add(node, &e)
	c.fault = c.fault || e.What == CCrash || e.What == CRecover
	c.drop = c.drop || e.What == CDrop
	if e.What == CSend {
		sentTo(node(e.To), e.Node, e.Kind, 1)
	}
}

// JudgeNode judges node id's messages so far against the allowances of
// b that the run so far meets (f; no fault or drop yet: every
// allowance, the run so far being a prefix of one without them): over
// one is invalid at once, since each pays for a send with causes that
// came before it. Nil when within them, or b is nil.
func (c *Collector) JudgeNode(b *protocol.Budget, id protocol.NodeID, members []protocol.NodeID, params protocol.Params, f Facts) *Count {
	n := c.now[id]
	if b == nil || n == nil {
		return nil
	}
	take := func(a protocol.Allowance) bool { return a.If == nil || len(f.Unmet(*a.If)) == 0 }
	_, _, bad := budget(b, members, params, []NodeSends{*n}, take, "")
	return bad
}

// Facts are what the events so far show of faults and loss (the
// explorer's runs: static, simulated), for Judge and JudgeNode.
func (c *Collector) Facts(moving string) Facts {
	f := Facts{Moving: moving}
	if c.fault {
		f.Fault = "a crash or recovery"
	}
	if c.drop {
		f.Lost = c.firstDrop()
	}
	return f
}

// firstDrop names the first frame dropped ("node 3's ok from 2 dropped
// at 1.200s"), a broadcast lost at a receiver as much as a frame given
// up at its sender.
func (c *Collector) firstDrop() string {
	var d *CEvent
	for i := range c.evs {
		if e := &c.evs[i]; e.What == CDrop && (d == nil || e.T < d.T) {
			d = e
		}
	}
	if d == nil {
		return ""
	}
	if d.From != protocol.None {
		return fmt.Sprintf("node %d lost %d's %s at %.3fs", d.Node, d.From, d.Kind, float64(d.T)/1e9)
	}
	return fmt.Sprintf("node %d's %s dropped at %.3fs", d.Node, d.Kind, float64(d.T)/1e9)
}

// Judge judges the events against b (Budget) with f, on the whole run
// and on its part before the first fault or the first send of the first
// frame lost (CleanUntil); nil when b is nil.
func (c *Collector) Judge(b *protocol.Budget, members []protocol.NodeID, params protocol.Params, f Facts) *Count {
	if b == nil {
		return nil
	}
	var pre *Prefix
	if until, ok := c.CleanUntil(); ok {
		pre = &Prefix{Until: float64(until) / 1e9, Nodes: c.Nodes(until)}
	}
	return c.entered(Budget(b, members, params, c.Nodes(-1), f, pre), b, members, params, f)
}

// Nodes gathers what each node's events show before until (nanoseconds;
// negative: every event), in the order of the nodes' first events.
func (c *Collector) Nodes(until int64) []NodeSends {
	at := map[protocol.NodeID]int{}
	var out []*NodeSends
	node := func(id protocol.NodeID) *NodeSends {
		i, ok := at[id]
		if !ok {
			i = len(out)
			at[id] = i
			out = append(out, &NodeSends{ID: id, Sent: map[string]map[protocol.NodeID]int{}})
		}
		return out[i]
	}
	for i := range c.evs {
		if e := &c.evs[i]; until < 0 || e.T < until {
			add(node, e)
		}
	}
	// What each peer sent to each node, from the peer's own events.
	n := len(out)
	for _, from := range out[:n] {
		for k, to := range from.Sent {
			for d, sent := range to {
				if _, ok := at[d]; ok {
					sentTo(node(d), from.ID, k, sent)
				}
			}
		}
	}
	res := make([]NodeSends, len(out))
	for i, p := range out {
		res[i] = *p
	}
	return res
}

// add counts e at the node it happened at (node finds or makes it).
func add(node func(protocol.NodeID) *NodeSends, e *CEvent) {
	switch e.What {
	case CRecover:
		n := node(e.Node)
		n.Seen.Recoveries++
		n.Seen.Open = false // a fresh process, in no election
	case CSend:
		n := node(e.Node)
		if n.Sent[e.Kind] == nil {
			n.Sent[e.Kind] = map[protocol.NodeID]int{}
		}
		n.Sent[e.Kind][e.To]++
	case CRecv:
		n := node(e.Node)
		src := e.From // one hop; a routed message names its origin
		if e.Origin != protocol.None {
			src = e.Origin
		}
		q := peer(&n.Seen, src)
		if e.Kind == protocol.TransportPrefix+"retx" {
			q.Retx++
		} else {
			q.Recv[e.Kind]++
		}
		n.Seen.From[src] = q
	case CStart:
		n := node(e.Node)
		n.Seen.Starts++
		n.Seen.Open = true
	case CEnd:
		node(e.Node).Seen.Open = false
	case CLeader:
		if e.Leader == e.Node {
			node(e.Node).Seen.Leads++
		}
	case CRequest:
		node(e.Node).Seen.Requests++
	}
}

// sentTo records at n that from sent it c messages of kind.
func sentTo(n *NodeSends, from protocol.NodeID, kind string, c int) {
	q := peer(&n.Seen, from)
	if q.Sent == nil {
		q.Sent = map[string]int{}
	}
	q.Sent[kind] += c
	n.Seen.From[from] = q
}

// peer is what s holds of id, made when new.
func peer(s *protocol.Seen, id protocol.NodeID) protocol.Peer {
	if s.From == nil {
		s.From = map[protocol.NodeID]protocol.Peer{}
	}
	p, ok := s.From[id]
	if !ok {
		p.Recv = map[string]int{}
	}
	return p
}

// CleanUntil is when the run stops being one without faults or loss:
// its first crash, recovery or dropped frame (hellos aside); ok false
// when it never does. What happened before is a prefix of a run without
// either: a frame dropped later may as well have been delivered later
// (the protocol learns of a loss only from a timeout or its channel's
// give-up, which a slow delivery causes too).
func (c *Collector) CleanUntil() (until int64, ok bool) {
	until = -1
	for i := range c.evs {
		switch e := &c.evs[i]; e.What {
		case CCrash, CRecover, CDrop:
			if until < 0 || e.T < until {
				until = e.T
			}
		}
	}
	return until, until >= 0
}
