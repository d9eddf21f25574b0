package netstack

import (
	"slices"
	"time"
)

// AODV's hellos, its neighbour table, its jitter, its rate limits and its
// blacklist (RFC 3561 6.8, 6.9, 6.11; docs/routing.md).

// aodvTick and aodvPurge are the Peers of the TimerDiscovery that are
// AODV's hello period and its neighbour table's check (a discovery's
// Peer is a member index, never negative).
const (
	aodvTick  = -1
	aodvPurge = -2
)

// stepDraw is a random wait below bound, or, with step > 0, a whole
// number of steps from 0 to bound inclusive (ns-3's GetInteger(0, n)).
func (s *Stack) stepDraw(bound, step time.Duration) time.Duration {
	if step > 0 {
		return time.Duration(s.rng.Int64N(int64(bound/step)+1)) * step
	}
	if bound <= 0 {
		return 0
	}
	return time.Duration(s.rng.Int64N(int64(bound)))
}

// aodvJitter is the wait before an AODV broadcast: routing.aodv.jitter's,
// else the stack's relay jitter.
func (s *Stack) aodvJitter() time.Duration {
	c := &s.cfg.AODV
	if c.Jitter == 0 {
		return time.Duration(s.rng.Int64N(int64(s.cfg.RelayJitter)))
	}
	return s.stepDraw(c.Jitter.D(), c.JitterStep.D())
}

// startAODV arms the first hello, when the node sends hellos.
func (s *Stack) startAODV() {
	c := &s.cfg.AODV
	if s.cfg.Routing != RoutingAODV || !c.hellos() {
		return
	}
	start := c.HelloStart.D()
	if start == 0 {
		start = c.helloInterval()
	}
	s.d.SetTimer(s.stepDraw(start, c.JitterStep.D()), Timer{Kind: TimerDiscovery, Peer: aodvTick})
}

// aodvTick is AODV's hello period: neighbours not heard for
// ALLOWED_HELLO_LOSS · HELLO_INTERVAL are lost (their links broken), and
// a node that broadcast nothing since the last tick sends a hello; one
// that did waits the rest of an interval from that broadcast (RFC 3561
// 6.9, as ns-3 does it).
func (s *Stack) aodvTick() {
	a := s.routing()
	c := &s.cfg.AODV
	now := s.now()
	next := c.helloInterval()
	if a.lastBcast > 0 {
		next = max(next-(now-a.lastBcast), 0)
	} else {
		s.sendHello()
	}
	a.lastBcast = 0
	s.d.SetTimer(next, Timer{Kind: TimerDiscovery, Peer: aodvTick})
}

// purgeNeighbors breaks the links to the neighbours not heard for
// ALLOWED_HELLO_LOSS · HELLO_INTERVAL and checks again one
// HELLO_INTERVAL later (ns-3's Neighbors::Purge: its own period, apart
// from the hellos', restarted by every check).
func (s *Stack) purgeNeighbors() {
	a := s.routing()
	now := s.now()
	var lost []int32
	for j, until := range a.nbrs {
		if now > until {
			lost = append(lost, j)
		}
	}
	slices.Sort(lost)
	for _, j := range lost {
		delete(a.nbrs, j)
		s.linkBroken(j)
		if s.stopped {
			return
		}
	}
	a.purgeGen++
	s.d.SetTimer(s.cfg.AODV.helloInterval(), Timer{Kind: TimerDiscovery, Peer: aodvPurge, Ref: a.purgeGen})
}

// sendHello broadcasts a hello: a route reply for this node itself, its
// sequence number and a lifetime of ALLOWED_HELLO_LOSS · HELLO_INTERVAL,
// after the jitter (traced as rrep, kind "hello").
func (s *Stack) sendHello() {
	a := s.routing()
	f := Frame{Type: AODVHello, To: -1, Origin: s.self, Final: s.id, DestSeq: a.seq, Lifetime: s.cfg.AODV.helloLifetime(), Bytes: rrepBytes}
	if s.cfg.AODV.Jitter > 0 {
		s.d.SetTimer(s.aodvJitter(), Timer{Kind: TimerRelay, Frame: &f})
		return
	}
	s.relay(s.scratch(f))
}

// heardAODVHello: a neighbour's hello gives a route to it, one hop with
// its sequence number, for at least the hello's lifetime (ns-3's
// ProcessHello), and keeps it a neighbour.
func (s *Stack) heardAODVHello(f *Frame) {
	a := s.routing()
	now := s.now()
	r := a.routes[f.From]
	if r == nil {
		r = &route{}
		a.routes[f.From] = r
	}
	if r.valid && now <= r.expires {
		r.expires = max(r.expires, now+s.cfg.AODV.helloLifetime())
	} else {
		r.expires = now + f.Lifetime
	}
	r.next, r.hops, r.valid = f.From, 1, true
	r.seq, r.validSeq = f.DestSeq, true
	s.heardNeighbor(f.From)
}

// heardNeighbor keeps j in AODV's neighbour table for a hello's
// lifetime (with hellos: a hello or a request heard from it).
func (s *Stack) heardNeighbor(j int32) { s.keepNeighbor(j, s.cfg.AODV.helloLifetime()) }

// keepNeighbor keeps j in AODV's neighbour table (with hellos) for at
// least d from now: a hello or a request heard from it (a hello's
// lifetime), or data forwarded over it (ACTIVE_ROUTE_TIMEOUT: ns-3 does
// so for the hops before and after a node that forwards or receives
// data).
func (s *Stack) keepNeighbor(j int32, d time.Duration) {
	if !s.cfg.AODV.hellos() || j < 0 {
		return
	}
	a := s.routing()
	if a.nbrs == nil {
		a.nbrs = map[int32]time.Duration{}
	}
	until, known := a.nbrs[j]
	a.nbrs[j] = max(until, s.now()+d)
	if !known {
		s.purgeNeighbors() // a new neighbour: check now, as ns-3
	}
}

// keepDataNeighbors keeps, at a node that received data from origin for
// dest (dest: -1 when this node is the destination), the next hops
// towards both in its neighbour table.
func (s *Stack) keepDataNeighbors(origin, dest int32) {
	a := s.routing()
	now := s.now()
	for _, d := range [2]int32{dest, origin} {
		if d < 0 {
			continue
		}
		if r := a.validRoute(d, now); r != nil {
			s.keepNeighbor(r.next, s.cfg.AODV.activeRoute())
		}
	}
}

// rreqLimited is how long a new route request must wait for
// RREQ_RATELIMIT (0: it may go now, and is counted).
func (s *Stack) rreqLimited() time.Duration {
	a := s.routing()
	c := &s.cfg.AODV
	limit := c.rateLimit(c.RREQRateLimit)
	if limit < 0 {
		return 0
	}
	now := s.now()
	if sec := int64(now / time.Second); sec != a.rreqSec {
		a.rreqSec, a.rreqSent = sec, 0
	}
	if a.rreqSent >= limit {
		return time.Duration(a.rreqSec+1)*time.Second + 100*time.Microsecond - now
	}
	a.rreqSent++
	return 0
}

// rerrAllowed reports whether a route error may go within
// RERR_RATELIMIT, and counts it.
func (s *Stack) rerrAllowed() bool {
	a := s.routing()
	c := &s.cfg.AODV
	limit := c.rateLimit(c.RERRRateLimit)
	if limit < 0 {
		return true
	}
	if sec := int64(s.now() / time.Second); sec != a.rerrSec {
		a.rerrSec, a.rerrSent = sec, 0
	}
	if a.rerrSent >= limit {
		return false
	}
	a.rerrSent++
	return true
}

// replyLost: a route reply to neighbour j was not acknowledged, so the
// link from j, over which its request came, is unidirectional: requests
// j relays are ignored for BLACKLIST_TIMEOUT (RFC 3561 6.8).
func (s *Stack) replyLost(j int32) {
	a := s.routing()
	if a.blacklist == nil {
		a.blacklist = map[int32]time.Duration{}
	}
	a.blacklist[j] = s.now() + s.cfg.AODV.blacklistTimeout()
}
