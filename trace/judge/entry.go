package judge

import (
	"cmp"
	"fmt"
	"slices"

	"manetlab/protocol"
)

// firstOver replays c's events in time order and returns the first send
// that takes its node over an allowance of b, as the explorer judges at
// every send: before the run's first fault or lost frame every
// allowance, after it those that need neither (f gives the rest of the
// run's facts). ok is false when no
// single send does (the run as a whole is judged only).
func (c *Collector) firstOver(b *protocol.Budget, members []protocol.NodeID, params protocol.Params, f Facts) (e CEvent, bad *Count, ok bool) {
	evs := slices.Clone(c.evs)
	slices.SortStableFunc(evs, func(a, b CEvent) int { return cmp.Compare(a.T, b.T) })
	r := &Collector{}
	for _, e := range evs {
		r.Add(e)
		if e.What != CSend {
			continue
		}
		now := r.Facts(f.Moving)
		now.Real = f.Real
		if bad := r.JudgeNode(b, e.Node, members, params, now); bad != nil && bad.Verdict == Invalid {
			return e, bad, true
		}
	}
	return CEvent{}, nil, false
}

// Entry names the send e and what it was part of, from the events so
// far: the sender's own request (the nth critical-section request it
// noted, and when) or election (its nth election start), and the
// destination's request it answers, if any ("node 1's reply to 2 at
// 4.300s, in its request 3 (noted at 4.100s), answering node 2's
// request 2 (noted at 4.000s)").
func (c *Collector) Entry(e CEvent) string {
	s := fmt.Sprintf("node %d's %s", e.Node, e.Kind)
	if e.To != protocol.None {
		s += fmt.Sprintf(" to %d", e.To)
	}
	s += fmt.Sprintf(" at %.3fs", float64(e.T)/1e9)
	if n, at := c.nth(CRequest, e.Node, e.T); n > 0 {
		s += fmt.Sprintf(", in its request %d (noted at %.3fs)", n, float64(at)/1e9)
	} else if n, at := c.nth(CStart, e.Node, e.T); n > 0 {
		s += fmt.Sprintf(", in its election %d (started at %.3fs)", n, float64(at)/1e9)
	}
	if e.To != protocol.None {
		if n, at := c.nth(CRequest, e.To, e.T); n > 0 {
			s += fmt.Sprintf(", answering node %d's request %d (noted at %.3fs)", e.To, n, float64(at)/1e9)
		}
	}
	return s
}

// nth counts node's events of kind what up to t and gives the last one's
// time.
func (c *Collector) nth(what int, node protocol.NodeID, t int64) (n int, at int64) {
	for i := range c.evs {
		if e := &c.evs[i]; e.What == what && e.Node == node && e.T <= t {
			n++
			at = max(at, e.T)
		}
	}
	return n, at
}

// entered adds to bad, a budget found exceeded, the first send of the
// run over a budget (its node's, maybe not bad's) and the entry it was
// part of.
func (c *Collector) entered(bad *Count, b *protocol.Budget, members []protocol.NodeID, params protocol.Params, f Facts) *Count {
	if bad == nil || bad.Verdict != Invalid {
		return bad
	}
	e, _, ok := c.firstOver(b, members, params, f)
	if !ok {
		return bad
	}
	return &Count{Verdict: Invalid, Reason: bad.Reason + "; the first send over a budget: " + c.Entry(e)}
}
