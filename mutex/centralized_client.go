package mutex

import (
	"fmt"

	"manetlab/protocol"
)

// The client side of the centralized algorithm: every node, the
// coordinator included, asks the coordinator it follows (term.Coord), the
// newest that inquired of it.

// command handles the workload's requests and releases.
func (p *centralized) command(cmd protocol.Command) {
	switch p.c.command(cmd) {
	case askNow:
		p.ask()
	case releaseNow:
		p.leave()
	}
}

// ask sends the new request to the coordinator followed. A node that
// follows none yet (before the first inquiry, or recovered) sends it to
// the leader the election noted, if any, which then inquires of it;
// otherwise the next coordinator's inquiry collects it.
func (p *centralized) ask() {
	p.seq++
	if p.term.Coord == p.id {
		if p.co != nil && p.co.term == p.term {
			p.co.enqueue(centralEntry{from: p.id, inc: p.inc, seq: p.seq})
		}
		return
	}
	to := p.term.Coord
	if to == protocol.None {
		to = p.elected
	}
	p.send(to, p.msg(centralRequest))
}

// leave exits the section, releases it to the coordinator followed (who
// may be a newer one than granted it: the holder keeps the section across
// a change and releases it to the new one) and asks again for a queued
// request.
func (p *centralized) leave() {
	again := p.c.exit()
	if p.term.Coord == p.id {
		if p.co != nil {
			p.co.release(centralEntry{from: p.id, inc: p.inc, seq: p.seq})
		}
	} else {
		p.send(p.term.Coord, p.msg(centralRelease))
	}
	if again {
		p.ask()
	}
}

// msg is a message of type t about the current request, in the term
// followed.
func (p *centralized) msg(t centralType) centralMsg {
	return centralMsg{Type: t, Term: p.term.Num, Coord: p.term.Coord, Inc: p.inc, Seq: p.seq}
}

// state is this node's state for a report.
func (p *centralized) state() centralState {
	switch {
	case p.c.holds():
		return centralReportHolding
	case p.c.wants():
		return centralReportWanting
	}
	return centralReportIdle
}

// inquired answers a coordinator's inquiry: a newer term than the one
// followed is adopted, and the report carries the outstanding request or
// the section held (the new coordinator rebuilds its queue from them);
// an older term is told it is outdated.
func (p *centralized) inquired(from protocol.NodeID, m centralMsg) {
	t := centralTerm{Num: m.Term, Coord: from}
	if m.Coord != from {
		p.env.Logf("inquire from %d names coordinator %d: ignored", from, m.Coord)
		return
	}
	if p.term.after(t) {
		p.send(from, centralMsg{Type: centralOutdated, Term: p.term.Num, Coord: p.term.Coord})
		return
	}
	again := p.co != nil && t.after(p.co.term) && p.supersede(t)
	if t != p.term {
		p.term = t
	}
	r := p.msg(centralReport)
	r.State = p.state()
	p.send(from, r)
	if again {
		p.becomeCoordinator()
	}
}

// granted enters the section on the grant of the current request by the
// coordinator followed. Any other grant is ignored; one for a request this
// node does not hold is handed back (a release naming it), so that a
// coordinator that granted to an earlier incarnation, or a stale
// coordinator, frees the section.
func (p *centralized) granted(from protocol.NodeID, m centralMsg) {
	mine := m.Inc == p.inc && m.Seq == p.seq
	if p.c.wants() && mine && from == p.term.Coord && centralTermOf(m) == p.term {
		p.c.enter(fmt.Sprintf("granted by coordinator %d (term %s)", from, p.term))
		return
	}
	if p.c.holds() && mine {
		p.env.Logf("grant from %d for the request already held: ignored", from)
		return
	}
	p.env.Logf("grant from %d (term %d.%d, request %d) while %s with request %d following %s: handed back",
		from, m.Coord, m.Term, m.Seq, p.c.state, p.seq, p.term)
	p.send(from, centralMsg{Type: centralRelease, Term: m.Term, Coord: m.Coord, Inc: m.Inc, Seq: m.Seq})
}

// checked answers a coordinator's liveness check of the holder: holding
// the request checked, the channel's acknowledgement is the answer;
// otherwise (a recovered node, a section already left) a release naming
// it frees the section.
func (p *centralized) checked(from protocol.NodeID, m centralMsg) {
	if p.c.holds() && m.Inc == p.inc && m.Seq == p.seq {
		return
	}
	p.send(from, centralMsg{Type: centralRelease, Term: m.Term, Coord: m.Coord, Inc: m.Inc, Seq: m.Seq})
}
