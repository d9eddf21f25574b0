package mutex

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"manetlab/protocol"
)

// centralCoord is the coordinator role: the term, the queue of requests
// and the holders of the section (one, or none; more only if a rebuilt
// queue found two, which reliable channels rule out, and then nothing is
// granted until all have released).
type centralCoord struct {
	p       *centralized
	term    centralTerm
	pending map[protocol.NodeID]bool // collecting: members whose report is awaited
	holders []centralEntry
	queue   []centralEntry
	check   protocol.TimerID
}

// becomeCoordinator starts a term above every number seen and rebuilds the
// queue: it asks every other member for its state and grants nothing until
// each has reported or its channel has given up on it (unreachable), so
// that a client still holding the section under the previous coordinator
// keeps it until it releases.
func (p *centralized) becomeCoordinator() {
	p.maxNum++
	if err := p.store.Put(centralStoreKey, []byte(strconv.FormatUint(p.maxNum, 10))); err != nil {
		p.info("stable storage failed: %v (a term number may repeat after a crash)", err)
	}
	co := &centralCoord{p: p, term: centralTerm{Num: p.maxNum, Coord: p.id}, pending: map[protocol.NodeID]bool{}}
	p.co = co
	p.term = co.term
	// This node's own state needs no report.
	switch {
	case p.c.holds():
		co.holders = append(co.holders, centralEntry{from: p.id, inc: p.inc, seq: p.seq})
	case p.c.wants():
		co.queue = append(co.queue, centralEntry{from: p.id, inc: p.inc, seq: p.seq})
	}
	for _, id := range p.members {
		if id != p.id {
			co.pending[id] = true
			p.send(id, centralMsg{Type: centralInquire, Term: co.term.Num, Coord: p.id})
		}
	}
	p.info("coordinator in term %s: asking %d member(s) for their state before granting", co.term, len(co.pending))
	co.ready()
}

// stepDown ends the coordinator role (the election named another leader).
// Clients that hold the section keep it; the next coordinator's inquiry
// collects the queue again.
func (p *centralized) stepDown(why string) {
	co := p.co
	p.co = nil
	if co.check != 0 {
		p.env.CancelTimer(co.check)
	}
	p.info("no longer coordinator in term %s: %s; %d request(s) left for the next coordinator", co.term, why, len(co.queue))
}

// supersede ends this node's term on news of a newer coordinator's term
// t (its inquiry, or a request that follows it): two leaders for a while,
// the elections disagreeing. Granting on in the older term could overlap
// a section the newer coordinator grants to a member this one cannot
// reach, so the term ends here. It reports whether this node should
// collect again in a term above t: it still leads by its election and
// has the higher ID (the tie-break of the elections that choose the
// highest); otherwise it follows t, and coordinates again when the
// election names it anew or a request comes to it while it leads.
func (p *centralized) supersede(t centralTerm) bool {
	p.stepDown(fmt.Sprintf("coordinator %d works in term %s, newer", t.Coord, t))
	return p.elected == p.id && p.id > t.Coord
}

// receive handles a client's message to the coordinator.
func (co *centralCoord) receive(from protocol.NodeID, m centralMsg) {
	e := centralEntry{from: from, inc: m.Inc, seq: m.Seq}
	switch m.Type {
	case centralRequest:
		switch t := centralTermOf(m); {
		case t == co.term:
			co.enqueue(e)
		case co.term.after(t) && !co.pending[from]:
			// A member that never adopted this term (unreachable
			// during the collection, or recovered since): ask it for
			// its state; its report carries the request.
			co.p.send(from, centralMsg{Type: centralInquire, Term: co.term.Num, Coord: co.p.id})
		case t.after(co.term) && t.Coord != co.p.id:
			// The client follows a newer coordinator: this one
			// must not grant on in its term.
			p := co.p
			if p.supersede(t) {
				p.becomeCoordinator()
			}
		default:
			co.p.env.Logf("request from %d in term %d.%d, not %s: its report covers it", from, m.Coord, m.Term, co.term)
		}
	case centralRelease:
		co.release(e)
	case centralReport:
		// Awaited (the collection), or a late member's answer to an
		// inquiry made when its request came.
		if centralTermOf(m) != co.term {
			co.p.env.Logf("report from %d in term %d.%d, not %s: ignored", from, m.Coord, m.Term, co.term)
			return
		}
		delete(co.pending, from)
		switch m.State {
		case centralReportHolding:
			co.forget(from, m.Inc)
			if !slices.Contains(co.holders, e) {
				co.holders = append(co.holders, e)
			}
		case centralReportWanting:
			co.enqueue(e)
		}
		co.ready()
	case centralOutdated:
		if !centralTermOf(m).after(co.term) {
			return
		}
		// A member follows a newer term than this coordinator's (a
		// recovered coordinator whose storage lagged, or two leaders for
		// a while): take a term above it and collect again.
		p := co.p
		p.stepDown(fmt.Sprintf("member %d follows term %d.%d, newer; collecting again in a newer term", from, m.Coord, m.Term))
		p.becomeCoordinator()
	}
}

// enqueue adds a request unless it is queued or held already; a request
// from a later incarnation of a node replaces what its earlier one had
// (it crashed: it no longer holds nor wants).
func (co *centralCoord) enqueue(e centralEntry) {
	for _, q := range co.queue {
		if q == e {
			return
		}
	}
	for _, h := range co.holders {
		if h == e {
			return
		}
	}
	co.forget(e.from, e.inc)
	co.queue = append(co.queue, e)
	co.grantNext()
}

// forget drops the requests and sections of from's incarnations before inc.
func (co *centralCoord) forget(from protocol.NodeID, inc uint64) {
	keep := func(l []centralEntry) []centralEntry {
		out := l[:0]
		for _, x := range l {
			if x.from != from || x.inc >= inc {
				out = append(out, x)
			} else {
				co.p.info("node %d restarted: its request %d of an earlier incarnation is dropped", from, x.seq)
			}
		}
		return out
	}
	co.queue = keep(co.queue)
	co.holders = keep(co.holders)
}

// release frees the section held by e, or withdraws e from the queue (a
// client handing back a grant it cannot use); anything else is ignored.
func (co *centralCoord) release(e centralEntry) {
	for i, h := range co.holders {
		if h == e {
			co.holders = append(co.holders[:i:i], co.holders[i+1:]...)
			co.grantNext()
			return
		}
	}
	for i, q := range co.queue {
		if q == e {
			co.queue = append(co.queue[:i:i], co.queue[i+1:]...)
			return
		}
	}
	co.p.env.Logf("release of %s: neither held nor queued, ignored", e)
}

// ready ends the collection once no report is awaited, and grants.
func (co *centralCoord) ready() {
	if co.pending == nil || len(co.pending) > 0 {
		return
	}
	co.pending = nil
	co.p.info("coordinator in term %s: queue rebuilt: holding %s, queued %s", co.term, centralEntries(co.holders), centralEntries(co.queue))
	co.grantNext()
}

func (co *centralCoord) collecting() bool { return co.pending != nil }

// grantNext grants the head of the queue when nobody holds the section
// and the queue has been rebuilt.
func (co *centralCoord) grantNext() {
	if co.p.co != co || co.collecting() || len(co.holders) > 0 || len(co.queue) == 0 {
		return
	}
	e := co.queue[0]
	co.queue = co.queue[1:]
	co.holders = append(co.holders, e)
	p := co.p
	if e.from == p.id {
		if p.c.wants() && e.inc == p.inc && e.seq == p.seq {
			p.c.enter(fmt.Sprintf("coordinator's own entry (term %s)", co.term))
		} else {
			co.holders = co.holders[:0]
			co.grantNext()
		}
		return
	}
	p.send(e.from, centralMsg{Type: centralGrant, Term: co.term.Num, Coord: p.id, Inc: e.inc, Seq: e.seq})
	co.armCheck()
}

// armCheck (re)arms the liveness check of a remote holder: check after a
// grant, and every check after that while it holds, so that sections
// shorter than check cost no check.
func (co *centralCoord) armCheck() {
	if co.check != 0 {
		co.p.env.CancelTimer(co.check)
		co.check = 0
	}
	if co.p.set.check > 0 {
		co.check = co.p.env.SetTimer(co.p.set.check, centralTimerCheck, 0)
	}
}

// checkTimer sends a check to every remote holder: the channel's
// acknowledgement answers that it lives, a release that it does not hold
// the section, and the channel's giving up that it is unreachable (then
// the section is reclaimed).
func (co *centralCoord) checkTimer(id protocol.TimerID) {
	if id != co.check {
		return
	}
	co.check = 0
	remote := false
	for _, h := range co.holders {
		if h.from != co.p.id {
			remote = true
			co.p.send(h.from, centralMsg{Type: centralCheck, Term: co.term.Num, Coord: co.p.id, Inc: h.inc, Seq: h.seq})
		}
	}
	if remote {
		co.armCheck()
	}
}

// unreachable handles a member the channel gave up on: it is not awaited
// any more, its requests are dropped, and a section it held is reclaimed.
// A member that is alive but cut off for that long (a partition, loss
// beyond the channel's retries) loses the section it may still be in: the
// trade-off of reclaiming, without which one crashed holder blocks every
// other member for ever.
func (co *centralCoord) unreachable(peer protocol.NodeID) {
	if co.pending[peer] {
		delete(co.pending, peer)
		co.p.info("member %d unreachable: not awaiting its report", peer)
	}
	var held []centralEntry
	keep := co.holders[:0]
	for _, h := range co.holders {
		if h.from == peer {
			held = append(held, h)
		} else {
			keep = append(keep, h)
		}
	}
	co.holders = keep
	q := co.queue[:0]
	for _, x := range co.queue {
		if x.from != peer {
			q = append(q, x)
		}
	}
	co.queue = q
	if len(held) > 0 {
		co.p.info("holder %d unreachable: section reclaimed (a live holder cut off this long would lose it)", peer)
	}
	co.ready()
	co.grantNext()
}

func centralEntries(l []centralEntry) string {
	if len(l) == 0 {
		return "none"
	}
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.String()
	}
	return strings.Join(s, ", ")
}
