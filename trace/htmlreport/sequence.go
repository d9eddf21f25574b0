package htmlreport

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"manetlab/protocol"
	"manetlab/trace"
)

// sendKey names a frame: its sender and sequence number.
type sendKey struct {
	from protocol.NodeID
	seq  uint64
}

// buildSequence chooses the window, then among the events c held the
// lifelines (the most active nodes in the window), attaches every
// receive to its send by (from, seq) and keeps the frames and notes of
// lifeline nodes.
func (d *Data) buildSequence(opt Options, c *collector) {
	w0, w1 := int64(0), int64(DefaultWindow)
	switch {
	case opt.WindowSet:
		w0, w1 = int64(opt.Window[0]), int64(opt.Window[1])
		d.Seq.Why = "as asked"
	case c.firstElection >= 0:
		w0, w1 = c.firstElection, c.firstElection+int64(DefaultWindow)
		d.Seq.Why = "the 2 s from the first election-start"
	case c.firstRequest >= 0:
		w0, w1 = c.firstRequest, c.firstRequest+int64(DefaultWindow)
		d.Seq.Why = "the 2 s from the first cs-request"
	default:
		d.Seq.Why = "the first 2 s (no election-start in the run)"
	}
	d.Seq.From, d.Seq.To = secs(w0), secs(w1)
	inWindow := func(t int64) bool { return t >= w0 && t <= w1 }
	// Receives may arrive after the window's end by a frame's delay.
	inLate := func(t int64) bool { return t >= w0 && t <= w1+lateBy }

	// Node by node, each in its own order: the same on both trace
	// layouts.
	held := byNode(c.held)
	activity := map[protocol.NodeID]int{}
	for _, h := range held {
		if h.what != heldMark && inWindow(h.t) {
			activity[h.node]++
		}
	}
	type act struct {
		id protocol.NodeID
		n  int
	}
	var acts []act
	for id, n := range activity {
		acts = append(acts, act{id, n})
	}
	slices.SortFunc(acts, func(a, b act) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return int(a.id) - int(b.id)
	})
	// Every member when they fit, the idle ones too: a diagram of a
	// small run shows the whole run (none in a window without a frame).
	if len(acts) > 0 && len(c.members) <= opt.MaxLifelines && c.heldUpTo == math.MaxUint32 {
		for _, id := range c.members {
			if _, ok := activity[id]; !ok {
				acts = append(acts, act{id, 0})
			}
		}
	}
	if len(acts) > opt.MaxLifelines {
		d.Seq.Truncated = fmt.Sprintf("%d of %d active nodes shown (the most active)", opt.MaxLifelines, len(acts))
		if c.heldUpTo != math.MaxUint32 {
			d.Seq.Truncated = fmt.Sprintf("%d of %d active nodes shown (the most active of the nodes of ID at most %d)", opt.MaxLifelines, len(acts), c.heldUpTo)
		}
		acts = acts[:opt.MaxLifelines]
	}
	shown := map[protocol.NodeID]bool{}
	for _, a := range acts {
		d.Seq.Nodes = append(d.Seq.Nodes, uint32(a.id))
		shown[a.id] = true
	}
	slices.Sort(d.Seq.Nodes)
	if len(c.ring) > 0 {
		// A ring algorithm's in ring order, so that its tokens go from
		// one column to the next.
		pos := map[uint32]int{}
		for i, id := range c.ring {
			pos[uint32(id)] = i + 1
		}
		slices.SortStableFunc(d.Seq.Nodes, func(a, b uint32) int {
			pa, pb := pos[a], pos[b]
			if pa == 0 || pb == 0 { // not in the ring: after it, by ID
				pa, pb = cmp.Or(pa, len(pos)+1), cmp.Or(pb, len(pos)+1)
			}
			return cmp.Compare(pa, pb)
		})
		d.Seq.Ring = true
	}

	// The frames lifelines sent in the window, then the receives at
	// lifelines, matched to the latest send of (from, seq) before them.
	var msgs []Message
	sendAt := map[sendKey]int{}
	for _, h := range held {
		if (h.what == heldSend || h.what == heldRelay) && shown[h.node] && inWindow(h.t) {
			sendAt[sendKey{h.node, h.seq}] = len(msgs)
			msgs = append(msgs, Message{T: secs(h.t), From: uint32(h.node), Kind: c.texts.Strs[h.text], Says: c.texts.Strs[h.says], Seq: h.seq,
				Dest: uint32(h.peer), Relay: h.what == heldRelay})
		}
	}
	var marks []Mark
	for _, h := range held {
		if !shown[h.node] {
			continue
		}
		switch h.what {
		case heldRecv, heldDrop:
			if !inLate(h.t) {
				continue
			}
			r := Receipt{T: secs(h.t), Node: uint32(h.node)}
			if h.what == heldDrop {
				r.Drop = c.texts.Strs[h.text]
			}
			if k, ok := sendAt[sendKey{h.peer, h.seq}]; ok && msgs[k].T <= r.T {
				msgs[k].Recvs = append(msgs[k].Recvs, r)
			}
		case heldMark:
			if inWindow(h.t) {
				marks = append(marks, Mark{T: secs(h.t), Node: uint32(h.node), Text: c.texts.Strs[h.text]})
			}
		}
	}
	c.held = nil

	slices.SortStableFunc(msgs, func(a, b Message) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return int(a.From) - int(b.From)
	})
	d.Seq.Msgs = []Message{}
	for _, m := range msgs {
		if len(d.Seq.Msgs) == opt.MaxMessages {
			break
		}
		if m.Recvs == nil {
			m.Recvs = []Receipt{}
		}
		slices.SortFunc(m.Recvs, func(a, b Receipt) int { return int(a.Node) - int(b.Node) })
		d.Seq.Msgs = append(d.Seq.Msgs, m)
	}
	if total := len(msgs); total > len(d.Seq.Msgs) {
		t := fmt.Sprintf("the first %d of %d frames shown", len(d.Seq.Msgs), total)
		if d.Seq.Truncated != "" {
			t = d.Seq.Truncated + "; " + t
		}
		d.Seq.Truncated = t
	}
	d.Seq.Marks = marks
	if marks == nil {
		d.Seq.Marks = []Mark{}
	}
	slices.SortStableFunc(d.Seq.Marks, func(a, b Mark) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return int(a.Node) - int(b.Node)
	})
}

// byNode is held grouped node by node, by ID, each node's events in
// their order: a stable sort by node in linear time (the sort took a
// fifth of a large run's page).
func byNode(held []heldEvent) []heldEvent {
	var count trace.IDMap[int]
	var ids []protocol.NodeID
	for _, h := range held {
		n, ok := count.Get(h.node)
		if !ok {
			ids = append(ids, h.node)
		}
		count.Set(h.node, n+1)
	}
	slices.Sort(ids)
	at := 0
	for _, id := range ids {
		n, _ := count.Get(id)
		count.Set(id, at)
		at += n
	}
	out := make([]heldEvent, len(held))
	for _, h := range held {
		i, _ := count.Get(h.node)
		out[i] = h
		count.Set(h.node, i+1)
	}
	return out
}
