package judge

import "manetlab/protocol"

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
}

// Add keeps e.
func (c *Collector) Add(e CEvent) { c.evs = append(c.evs, e) }

// Len is how many events c holds.
func (c *Collector) Len() int { return len(c.evs) }

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
	return Budget(b, members, params, c.Nodes(-1), f, pre)
}

// Nodes gathers what each node's events show before until (nanoseconds;
// negative: every event), in the order of the nodes' first events.
func (c *Collector) Nodes(until int64) []NodeSends {
	in := func(t int64) bool { return until < 0 || t < until }
	at := map[protocol.NodeID]int{}
	var out []NodeSends
	node := func(id protocol.NodeID) *NodeSends {
		i, ok := at[id]
		if !ok {
			i = len(out)
			at[id] = i
			out = append(out, NodeSends{ID: id, Sent: map[string]map[protocol.NodeID]int{}})
		}
		return &out[i]
	}
	peer := func(s *protocol.Seen, id protocol.NodeID) protocol.Peer {
		if s.From == nil {
			s.From = map[protocol.NodeID]protocol.Peer{}
		}
		p, ok := s.From[id]
		if !ok {
			p.Recv = map[string]int{}
		}
		return p
	}
	for i := range c.evs {
		e := &c.evs[i]
		if !in(e.T) {
			continue
		}
		switch e.What {
		case CRecover:
			node(e.Node).Seen.Recoveries++
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
			node(e.Node).Seen.Starts++
		case CLeader:
			if e.Leader == e.Node {
				node(e.Node).Seen.Leads++
			}
		case CRequest:
			node(e.Node).Seen.Requests++
		}
	}
	// What each peer sent to each node, from the peer's own events.
	for _, from := range out {
		for k, to := range from.Sent {
			for d, n := range to {
				i, ok := at[d]
				if !ok {
					continue
				}
				q := peer(&out[i].Seen, from.ID)
				if q.Sent == nil {
					q.Sent = map[string]int{}
				}
				q.Sent[k] += n
				out[i].Seen.From[from.ID] = q
			}
		}
	}
	return out
}

// CleanUntil is when the run stops being one without faults or loss: its
// first crash or recovery, or the first transmission of the first frame
// the network dropped (a routed message's first send at its origin, a
// broadcast lost at a receiver its transmission at the sender, a frame
// given up at its sender its transmission there; 0 when no event shows
// it), whichever comes first; ok false when it never does. What happened
// before is a prefix of a run without either.
func (c *Collector) CleanUntil() (until int64, ok bool) {
	type key struct {
		node protocol.NodeID
		seq  uint64
	}
	byOSeq, bySeq := map[key]int64{}, map[key]int64{}
	first := func(m map[key]int64, k key, t int64) {
		if old, ok := m[k]; !ok || t < old {
			m[k] = t
		}
	}
	for i := range c.evs {
		e := &c.evs[i]
		if e.What == CSend {
			first(byOSeq, key{e.Node, e.OSeq}, e.T)
		}
		if e.What == CSend || e.What == CRelay {
			first(bySeq, key{e.Node, e.Seq}, e.T)
		}
	}
	until = -1
	for i := range c.evs {
		e := &c.evs[i]
		t := e.T
		switch {
		case e.What == CCrash || e.What == CRecover:
		case e.What != CDrop:
			continue
		case e.OSeq != 0 && e.Origin != protocol.None:
			t = byOSeq[key{e.Origin, e.OSeq}] // 0 when no event shows it
		case e.From != protocol.None:
			t = bySeq[key{e.From, e.Seq}]
		default:
			t = bySeq[key{e.Node, e.Seq}]
		}
		if until < 0 || t < until {
			until = t
		}
	}
	return until, until >= 0
}
