package mutex

import (
	"fmt"
	"strings"

	"manetlab/protocol"
)

// The algorithms' protocol.Describer lines: where the node stands with
// the critical section, and what it waits for.

func idList(ids []protocol.NodeID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// section is the client's state, with the requests queued behind it.
func (c *client) section() string {
	s := c.state.String()
	switch c.state {
	case holding:
		s = "in the critical section"
	case wanting:
		s = "wanting the section"
	}
	if c.queued > 0 {
		s += fmt.Sprintf(" (%d more request(s) queued)", c.queued)
	}
	return s
}

// missing lists the others not in got.
func missing(others []protocol.NodeID, got map[protocol.NodeID]bool) []protocol.NodeID {
	var w []protocol.NodeID
	for _, id := range others {
		if !got[id] {
			w = append(w, id)
		}
	}
	return w
}

// Describe implements protocol.Describer.
func (p *ricartAgrawala) Describe() string {
	s := p.section() + fmt.Sprintf(", clock %d", p.clock)
	if p.state == wanting && p.req != 0 {
		s += fmt.Sprintf(", request stamped %d", p.req)
		if w := missing(p.others, p.replied); len(w) > 0 {
			s += ", waiting for replies from " + idList(w)
		}
	}
	if len(p.deferred) > 0 {
		d := make([]protocol.NodeID, len(p.deferred))
		for i, r := range p.deferred {
			d[i] = r.id
		}
		s += ", deferring " + idList(d)
	}
	return s
}

// Describe implements protocol.Describer.
func (p *lamport) Describe() string {
	s := p.section() + fmt.Sprintf(", clock %d", p.clock)
	if p.req != 0 {
		s += fmt.Sprintf(", request stamped %d", p.req)
		if w := missing(p.others, p.replied); len(w) > 0 && p.state == wanting {
			s += ", waiting for replies from " + idList(w)
		}
	}
	if len(p.queue) > 0 {
		q := make([]string, len(p.queue))
		for i, r := range p.queue {
			q[i] = fmt.Sprintf("%d@%d", r.id, r.ts)
		}
		s += ", queue " + strings.Join(q, " ")
	}
	return s
}

// Describe implements protocol.Describer.
func (p *suzukiKasami) Describe() string {
	s := p.section()
	if p.token {
		s += ", holds the token"
		if len(p.queue) > 0 {
			s += ", token queue " + idList(p.queue)
		}
	}
	if i, ok := p.idx[p.id]; ok && i < len(p.rn) {
		s += fmt.Sprintf(", request number %d", p.rn[i])
	}
	return s
}

// Describe implements protocol.Describer.
func (p *tokenRing) Describe() string {
	s := p.c.section()
	if p.has {
		s += ", holds the token"
	}
	if p.gen != 0 {
		s += fmt.Sprintf(", generation %d", p.gen)
	}
	if p.candidate {
		s += ", regenerating the token (its election is going round)"
	}
	return s
}

// Describe implements protocol.Describer: the client, the coordinator it
// follows, and at the coordinator the holder and the queue.
func (p *centralized) Describe() string {
	s := p.c.section()
	if p.term.Coord != protocol.None {
		s += fmt.Sprintf(", coordinator %d (term %d)", p.term.Coord, p.term.Num)
	}
	if co := p.co; co != nil {
		s = "coordinator: " + s
		if len(co.holders) > 0 {
			h := make([]protocol.NodeID, len(co.holders))
			for i, e := range co.holders {
				h[i] = e.from
			}
			s += ", granted to " + idList(h)
		}
		if len(co.queue) > 0 {
			q := make([]protocol.NodeID, len(co.queue))
			for i, e := range co.queue {
				q[i] = e.from
			}
			s += ", queue " + idList(q)
		}
		if len(co.pending) > 0 {
			s += fmt.Sprintf(", collecting %d report(s)", len(co.pending))
		}
	}
	return s
}
