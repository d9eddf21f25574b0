package netstack

import (
	"cmp"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// Routing choices (Config.Routing).
const (
	RoutingFlood = "flood"
	RoutingAODV  = "aodv"
)

// Sizes of the routing messages on the wire, RFC 3561's formats for IPv4:
// they are what the routing overhead counts in bytes.
const (
	rreqBytes    = 24
	rrepBytes    = 20
	rerrBytes    = 4 // plus 8 per unreachable destination
	rrepAckBytes = 2
)

// route is an entry of a node's routing table.
type route struct {
	next       int32  // the next hop's member index
	hops       int    // hop count
	seq        uint32 // destination sequence number
	validSeq   bool
	valid      bool
	broken     bool // invalidated (expires is then when the entry is deleted)
	expires    time.Duration
	precursors []int32 // neighbours that route to the destination through this node
}

// discovery is a route discovery this node runs for one destination.
type discovery struct {
	gen      uint64 // which timer is current
	ttl      int
	retries  int  // attempts at the network's diameter after the first
	tries    int  // requests sent
	deferred bool // the timer is the rate limit's: send at this TTL again
	waiting  []*Frame
}

type rreqKey struct {
	origin int32
	id     uint64
}

// aodvState is a node's AODV state: its sequence number, its routing
// table, the requests it has seen and its discoveries.
type aodvState struct {
	seq     uint32
	rreqID  uint64
	routes  map[int32]*route
	seen    map[rreqKey]time.Duration // request -> when it may be forgotten
	finding map[int32]*discovery
	gen     uint64
	waiting int // messages buffered in every discovery

	// AODV's own neighbour table (hellos: neighbour -> when it is lost),
	// the neighbours blacklisted (-> until when), when the node last
	// broadcast (0: not since its last hello), and the rate limits'
	// counts in the current second.
	nbrs               map[int32]time.Duration
	purgeGen           uint64 // which neighbour check timer is current
	blacklist          map[int32]time.Duration
	lastBcast          time.Duration
	rreqSec, rerrSec   int64
	rreqSent, rerrSent int
	// deferredKind is the trace kind of a reply waiting for a route to
	// its neighbour (routed_control).
	deferredKind map[*Frame]string
}

func (s *Stack) routing() *aodvState {
	if s.aodv == nil {
		s.aodv = &aodvState{routes: map[int32]*route{}, seen: map[rreqKey]time.Duration{}, finding: map[int32]*discovery{}}
	}
	return s.aodv
}

// validRoute is the route to dest if it is valid and has not expired.
func (a *aodvState) validRoute(dest int32, now time.Duration) *route {
	r := a.routes[dest]
	if r == nil || !r.valid {
		return nil
	}
	if now > r.expires {
		r.valid = false
		return nil
	}
	return r
}

// refresh extends the lifetime of the route to dest (RFC 3561 6.2: an
// active route is used).
func (s *Stack) refresh(dest int32) {
	if r := s.routing().validRoute(dest, s.now()); r != nil {
		r.expires = max(r.expires, s.now()+s.cfg.AODV.activeRoute())
	}
}

// learn records a route to dest through next over hops, with sequence
// number seq (valid or not), when it is fresher or shorter than the one
// known (RFC 3561 6.2); it returns the entry.
func (s *Stack) learn(dest, next int32, hops int, seq uint32, validSeq bool, lifetime time.Duration) *route {
	a := s.routing()
	now := s.now()
	r := a.routes[dest]
	if r == nil {
		r = &route{}
		a.routes[dest] = r
	}
	live := r.valid && now <= r.expires
	newer := validSeq && (!r.validSeq || int32(seq-r.seq) > 0)
	better := !live || newer || (validSeq && r.validSeq && seq == r.seq && hops < r.hops) || (!validSeq && !r.validSeq && hops < r.hops)
	if !better {
		r.expires = max(r.expires, now+lifetime)
		return r
	}
	r.next, r.hops, r.valid, r.broken = next, hops, true, false
	if validSeq {
		r.seq, r.validSeq = seq, true
	}
	if live {
		r.expires = max(r.expires, now+lifetime)
	} else {
		r.expires = now + lifetime
	}
	return r
}

func addPrecursor(r *route, p int32) {
	for _, q := range r.precursors {
		if q == p {
			return
		}
	}
	r.precursors = append(r.precursors, p)
}

// routeDeliver sends m to node to over an AODV route: at once if one is
// known, else after a route discovery; traced now as the message's send.
func (s *Stack) routeDeliver(to protocol.NodeID, m protocol.Message) {
	dest, ok := s.cfg.Index[to]
	if !ok || s.stopped || dest == s.self {
		return
	}
	f := &Frame{Type: Data, Msg: m, Origin: s.self, HopLimit: uint8(s.cfg.HopLimit), Final: to}
	if !s.d.Encode(f) {
		return
	}
	s.oseq++
	f.OSeq = s.oseq
	s.number(f)
	s.emit(trace.Event{Ev: trace.EvSend, Kind: m.Kind(), Seq: f.Seq, Bytes: f.Bytes, Origin: s.id, OSeq: f.OSeq, Hops: 1, To: to, Text: f.Says()})
	s.forward(f, dest)
}

// dropData traces the drop of the routed message f for reason.
func (s *Stack) dropData(f *Frame, reason string) {
	s.emit(trace.Event{Ev: trace.EvDrop, Kind: f.Kind(), Origin: s.cfg.IDs[f.Origin], OSeq: f.OSeq, To: f.Final, Reason: reason})
}

// invalidate marks r invalid (RFC 3561 6.11), its entry kept for
// DELETE_PERIOD: 5 · max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
func (s *Stack) invalidate(r *route) {
	r.valid, r.broken = false, true
	r.expires = s.now() + s.deletePeriod()
}

// deletePeriod is DELETE_PERIOD, with AODV's hello interval when it
// sends hellos, else the stack's neighbour discovery's.
func (s *Stack) deletePeriod() time.Duration {
	h := s.cfg.Hello
	if s.cfg.AODV.hellos() {
		h = s.cfg.AODV.helloInterval()
	}
	return 5 * max(s.cfg.AODV.activeRoute(), h)
}

// kept reports whether r is still in the routing table at now, valid or
// not: an invalidated route for DELETE_PERIOD, one that expired for
// DELETE_PERIOD after its expiry (ns-3's RoutingTable::Purge).
func (s *Stack) kept(r *route, now time.Duration) bool {
	if r.broken {
		return now <= r.expires
	}
	return now <= r.expires+s.deletePeriod()
}

// erred reports whether a route error about r, through the neighbour it
// comes from or was lost, concerns this node, and invalidates r if so:
// r must be valid, or, with rerr_stale, kept at all.
func (s *Stack) erred(r *route, now time.Duration) bool {
	if s.cfg.AODV.RERRStale {
		if !s.kept(r, now) {
			return false
		}
		if r.valid && now > r.expires {
			r.valid = false // expired: kept, not invalidated again
		}
	}
	return r.valid || s.cfg.AODV.RERRStale
}

// rerrGoes reports whether a route error for routes with these
// precursors is sent: any precursor at all (RFC 3561 6.11), or, with
// rerr_stale, one with a valid route (ns-3's SendRerrMessage).
func (s *Stack) rerrGoes(precursors []int32) bool {
	if !s.cfg.AODV.RERRStale {
		return len(precursors) > 0
	}
	a := s.routing()
	for _, p := range precursors {
		if a.validRoute(p, s.now()) != nil {
			return true
		}
	}
	return false
}

// forward sends the data frame f (numbered, traced) towards dest over
// its route, or, at the originator without one, buffers it and discovers
// a route; an intermediate node without a route drops it and reports the
// break (RFC 3561 6.11).
func (s *Stack) forward(f *Frame, dest int32) {
	a := s.routing()
	if r := a.validRoute(dest, s.now()); r != nil {
		if a.finding[dest] != nil {
			// A route came another way (the destination's own request):
			// the messages waiting go first, in order.
			s.release(dest)
		}
		f.To = r.next
		s.refresh(dest)
		s.refresh(r.next)
		s.refresh(f.Origin)
		s.enqueue(f)
		return
	}
	if f.Origin != s.self {
		s.dropData(f, "no-route")
		s.rerrNoRoute(f, dest)
		return
	}
	if !s.await(f, dest) {
		s.dropData(f, "buffer")
	}
}

// await buffers the frame f while a route discovery for dest runs,
// starting one if none does; false: the buffer is full.
func (s *Stack) await(f *Frame, dest int32) bool {
	a := s.routing()
	if a.waiting >= s.cfg.AODV.Buffer {
		return false
	}
	d := a.finding[dest]
	if d == nil {
		c := &s.cfg.AODV
		d = &discovery{ttl: c.TTLStart}
		if r := a.routes[dest]; c.RingFromHops && r != nil && r.hops > 0 {
			// A route known before: the ring starts at its hop count
			// plus TTL_INCREMENT (RFC 3561 6.4).
			d.ttl = min(r.hops+c.TTLIncrement, c.NetDiameter)
		}
		a.finding[dest] = d
		s.requestRoute(dest, d)
	}
	d.waiting = append(d.waiting, f)
	a.waiting++
	return true
}

// lastSeq is the last known sequence number of dest (0: none).
func (s *Stack) lastSeq(dest int32) uint32 {
	if r := s.routing().routes[dest]; r != nil && r.validSeq {
		return r.seq
	}
	return 0
}

// requestRoute broadcasts a route request for dest with the discovery's
// TTL and waits for the reply: RING_TRAVERSAL_TIME within the expanding
// ring, NET_TRAVERSAL_TIME doubling with every retry at the network's
// diameter (RFC 3561 6.3, 6.4).
func (s *Stack) requestRoute(dest int32, d *discovery) {
	a := s.routing()
	c := &s.cfg.AODV
	if wait := s.rreqLimited(); wait > 0 {
		// RREQ_RATELIMIT reached this second: the request waits for the
		// next (ns-3 adds 100 µs).
		a.gen++
		d.gen, d.deferred = a.gen, true
		s.d.SetTimer(wait, Timer{Kind: TimerDiscovery, Peer: dest, Ref: d.gen})
		return
	}
	a.seq++
	a.rreqID++
	d.tries++
	a.seen[rreqKey{s.self, a.rreqID}] = s.now() + c.pathDiscovery()
	// HopLimit, unused by requests, carries which try this is to the
	// trace (relay, after the jitter).
	rreq := Frame{Type: RREQ, To: -1, Origin: s.self, OSeq: a.rreqID, OrigSeq: a.seq, Final: s.cfg.IDs[dest],
		DestSeq: s.lastSeq(dest), TTL: uint8(d.ttl), Bytes: rreqBytes, HopLimit: uint8(min(d.tries, 255))}
	a.lastBcast = s.now()
	if c.Jitter > 0 {
		s.d.SetTimer(s.aodvJitter(), Timer{Kind: TimerRelay, Frame: &rreq})
	} else if s.cfg.MAC != nil {
		// On the DCF medium the request waits a jitter, as relays do
		// (RFC 5148; ns-3's AODV jitters every broadcast by 0-10 ms):
		// nodes whose discoveries start together, and retry together
		// after the same waits, would otherwise collide at every try.
		jitter := time.Duration(s.rng.Int64N(int64(s.cfg.RelayJitter)))
		s.d.SetTimer(jitter, Timer{Kind: TimerRelay, Frame: &rreq})
	} else {
		s.relay(s.scratch(rreq))
	}
	wait := c.ringTraversal(d.ttl)
	if d.ttl >= c.NetDiameter {
		wait = c.netTraversal() << d.retries
	}
	a.gen++
	d.gen = a.gen
	s.d.SetTimer(wait, Timer{Kind: TimerDiscovery, Peer: dest, Ref: d.gen})
}

// release ends the discovery for dest, if one runs, and sends the
// messages that waited for it, in order, over the route now known.
func (s *Stack) release(dest int32) {
	a := s.routing()
	d := a.finding[dest]
	if d == nil {
		return
	}
	delete(a.finding, dest)
	a.waiting -= len(d.waiting)
	for _, w := range d.waiting {
		if w.Type == Data {
			s.forward(w, dest)
		} else {
			s.sendControl(w, dest)
		}
	}
}

// discoveryTimeout ends the discovery if a route came meanwhile another
// way (the destination's own request: ns-3 checks the same), else widens
// the ring or retries at the network's diameter; after RREQ_RETRIES it
// gives up and drops the messages waiting.
func (s *Stack) discoveryTimeout(dest int32, gen uint64) {
	a := s.routing()
	d := a.finding[dest]
	if d == nil || d.gen != gen {
		return
	}
	if a.validRoute(dest, s.now()) != nil {
		s.release(dest)
		return
	}
	c := &s.cfg.AODV
	switch {
	case d.deferred:
		d.deferred = false
	case d.ttl < c.NetDiameter:
		d.ttl = c.nextTTL(d.ttl)
	case d.retries < c.RREQRetries:
		d.retries++
	default:
		delete(a.finding, dest)
		a.waiting -= len(d.waiting)
		for _, f := range d.waiting {
			if f.Type == Data {
				s.dropData(f, "no-route")
			} else {
				delete(a.deferredKind, f)
			}
		}
		return
	}
	s.requestRoute(dest, d)
}

// heardRREQ handles a route request heard from a neighbour (RFC 3561
// 6.5): it learns the reverse route, answers if it is the destination or
// knows a fresh enough route, else relays the request while its TTL
// lasts.
func (s *Stack) heardRREQ(f *Frame) {
	a := s.routing()
	c := &s.cfg.AODV
	now := s.now()
	if until, ok := a.blacklist[f.From]; ok {
		if now <= until {
			return // a unidirectional link (RFC 3561 6.8)
		}
		delete(a.blacklist, f.From)
	}
	s.heardFrom(f.From)
	// Every copy keeps its sender a neighbour. (ns-3's code counts first
	// copies only; doing so here broke the route of the grid of
	// docs/routing.md in most runs, where ns-3 keeps it.)
	s.heardNeighbor(f.From)
	k := rreqKey{f.Origin, f.OSeq}
	if until, ok := a.seen[k]; ok && now <= until || f.Origin == s.self {
		return
	}
	if len(a.seen) > 4096 {
		for k, until := range a.seen {
			if now > until {
				delete(a.seen, k)
			}
		}
	}
	a.seen[k] = now + c.pathDiscovery()
	hops := int(f.Hops) + 1
	life := max(2*c.netTraversal()-2*time.Duration(hops)*c.nodeTraversal(), 0)
	rev := s.learn(f.Origin, f.From, hops, f.OrigSeq, true, life)
	if c.RoutedControl {
		// ns-3's RecvRequest: a first copy makes the route to its sender
		// valid again, one hop without a sequence number, for
		// ACTIVE_ROUTE_TIMEOUT from now (shorter or longer).
		n := a.routes[f.From]
		n.next, n.hops, n.valid, n.broken = f.From, 1, true, false
		n.seq, n.validSeq, n.expires = f.OrigSeq, false, now+c.activeRoute()
	}
	dest, ok := s.cfg.Index[f.Final]
	if !ok {
		return
	}
	if dest == s.self {
		if f.DestSeq != 0 && f.DestSeq == a.seq+1 {
			a.seq++
		}
		s.sendRREP(&Frame{Type: RREP, Origin: f.Origin, Final: s.id, DestSeq: a.seq, Lifetime: c.myRouteTimeout()}, rev, "")
		return
	}
	if r := a.validRoute(dest, now); r != nil && r.validSeq && int32(r.seq-f.DestSeq) >= 0 && !c.DestinationOnly && r.next != f.From {
		// An intermediate node's reply (RFC 3561 6.6.2), and with the G
		// flag a gratuitous one to the destination (6.6.3).
		addPrecursor(r, f.From)
		if o := a.routes[f.Origin]; o != nil {
			addPrecursor(o, r.next)
		}
		s.sendRREP(&Frame{Type: RREP, Origin: f.Origin, Final: f.Final, DestSeq: r.seq, Hops: uint8(min(r.hops, 255)),
			Lifetime: r.expires - now, AckRequired: c.RREPAck && r.hops == 1}, rev, "intermediate")
		if c.GratuitousReply && rev.valid {
			s.sendRREP(&Frame{Type: RREP, Origin: dest, Final: s.cfg.IDs[f.Origin], DestSeq: rev.seq, Hops: uint8(min(rev.hops, 255)),
				Lifetime: rev.expires - now}, r, "gratuitous")
		}
		return
	}
	if f.TTL <= 1 {
		return
	}
	relay := &Frame{Type: RREQ, To: -1, Origin: f.Origin, OSeq: f.OSeq, OrigSeq: f.OrigSeq, Final: f.Final,
		DestSeq: max(f.DestSeq, s.lastSeq(dest)), Hops: uint8(min(hops, 255)), TTL: f.TTL - 1, Bytes: rreqBytes}
	a.lastBcast = now
	s.d.SetTimer(s.aodvJitter(), Timer{Kind: TimerRelay, Frame: relay})
}

// sendRREP sends the reply f back towards the requester over the reverse
// route rev. Its lifetime is whole milliseconds, what RFC 3561's reply
// (and the real driver's wire) carries: an intermediate node's, computed
// from an expiry, has a fraction that the simulator would otherwise keep
// and the real driver round off.
func (s *Stack) sendRREP(f *Frame, rev *route, kind string) {
	if rev == nil || !rev.valid {
		return
	}
	f.Type, f.Bytes = RREP, rrepBytes
	f.Lifetime = f.Lifetime.Truncate(time.Millisecond)
	s.unicastControl(f, rev.next, kind)
}

// unicastControl sends the reply or acknowledgement f to neighbour
// next, or, with routed_control and no valid route to next, defers it.
func (s *Stack) unicastControl(f *Frame, next int32, kind string) {
	if s.cfg.AODV.RoutedControl && s.routing().validRoute(next, s.now()) == nil {
		s.deferControl(f, next, kind)
		return
	}
	if f.Type == RREPAck {
		s.sendRREPAck(f, next)
		return
	}
	s.unicastRREP(f, next, kind)
}

// sendRREPAck sends the acknowledgement f of a reply to neighbour next.
func (s *Stack) sendRREPAck(f *Frame, next int32) {
	if s.cfg.AODV.RoutedControl {
		s.refresh(next)
	}
	s.number(f)
	f.To = next
	s.emit(trace.Event{Ev: trace.EvRREP, Kind: "ack", Seq: f.Seq, Bytes: rrepAckBytes, To: s.cfg.IDs[next]})
	s.enqueue(f)
}

// heardRREPAck: neighbour j acknowledged a reply; ns-3's RecvReplyAck
// marks the route to j valid.
func (s *Stack) heardRREPAck(j int32) {
	s.heardFrom(j)
	if r := s.routing().routes[j]; r != nil && !r.valid && s.kept(r, s.now()) {
		r.valid, r.broken = true, false
	}
}

// unicastRREP sends the reply f to neighbour next.
func (s *Stack) unicastRREP(f *Frame, next int32, kind string) {
	if s.cfg.AODV.RoutedControl {
		s.refresh(next) // ns-3's RouteOutput extends the route it gives
	}
	s.number(f)
	f.To = next
	s.emit(trace.Event{Ev: trace.EvRREP, Kind: kind, Seq: f.Seq, Bytes: rrepBytes, Origin: s.cfg.IDs[f.Origin], To: f.Final,
		Hops: int(f.Hops) + 1})
	s.enqueue(f)
}

// deferControl (routed_control): the AODV message f for neighbour next,
// to which no valid route is known, waits for a route discovery for
// next, as ns-3's RouteOutput and DeferredRouteOutput make it; kind is
// a reply's trace kind. A full buffer drops it.
func (s *Stack) deferControl(f *Frame, next int32, kind string) {
	a := s.routing()
	if !s.await(f, next) {
		return
	}
	if kind != "" {
		if a.deferredKind == nil {
			a.deferredKind = map[*Frame]string{}
		}
		a.deferredKind[f] = kind
	}
}

// sendControl sends the AODV message f that waited for a route to
// neighbour next, now found: a reply to it, a route error to every
// neighbour (manetlab's route errors are broadcast).
func (s *Stack) sendControl(f *Frame, next int32) {
	a := s.routing()
	kind := a.deferredKind[f]
	delete(a.deferredKind, f)
	if f.Type != RERR {
		s.unicastControl(f, next, kind)
		return
	}
	s.refresh(next)
	s.broadcastRERR(f, -1)
}

// heardFrom records the route to the neighbour j an AODV message came
// from: one hop, without a sequence number, for ACTIVE_ROUTE_TIMEOUT
// (RFC 3561 6.2). With routed_control, as ns-3's UpdateRouteToNeighbor:
// a one-hop route with a sequence number (a hello's, or the
// destination's own reply) is left as it is, even invalid, and any other
// is replaced, for the longer of ACTIVE_ROUTE_TIMEOUT and what was left
// of the old entry.
func (s *Stack) heardFrom(j int32) {
	c := &s.cfg.AODV
	if !c.RoutedControl {
		s.learn(j, j, 1, 0, false, c.activeRoute())
		return
	}
	a := s.routing()
	now := s.now()
	life := c.activeRoute()
	r := a.routes[j]
	switch {
	case r == nil:
		r = &route{}
		a.routes[j] = r
	case !s.kept(r, now):
	case r.validSeq && r.hops == 1:
		return
	default:
		life = max(life, r.expires-now)
	}
	*r = route{next: j, hops: 1, valid: true, expires: now + life}
}

// heardRREP handles a route reply addressed to this node (RFC 3561 6.7):
// it learns the forward route, and either ends its own discovery or
// passes the reply on towards the requester.
func (s *Stack) heardRREP(f *Frame) {
	a := s.routing()
	s.heardFrom(f.From)
	if f.AckRequired {
		s.unicastControl(&Frame{Type: RREPAck, Bytes: rrepAckBytes}, f.From, "")
	}
	dest, ok := s.cfg.Index[f.Final]
	if !ok {
		return
	}
	hops := int(f.Hops) + 1
	fwd := s.learn(dest, f.From, hops, f.DestSeq, true, f.Lifetime)
	if f.Origin == s.self {
		if fwd.valid {
			s.release(dest)
		}
		return
	}
	rev := a.validRoute(f.Origin, s.now())
	if rev == nil {
		return
	}
	addPrecursor(fwd, rev.next)
	if nh := a.routes[fwd.next]; nh != nil {
		addPrecursor(nh, rev.next)
	}
	addPrecursor(rev, fwd.next)
	if nh := a.routes[rev.next]; nh != nil {
		addPrecursor(nh, fwd.next)
	}
	s.sendRREP(&Frame{Type: RREP, Origin: f.Origin, Final: f.Final, DestSeq: f.DestSeq, Hops: uint8(min(hops, 255)),
		Lifetime: f.Lifetime}, rev, "")
}

// heardData handles a routed data frame addressed to this node: it is the
// destination, or it forwards the frame one hop on.
func (s *Stack) heardData(f *Frame) {
	hops := int(f.Hops) + 1
	if s.cfg.AODV.RoutedControl {
		// ns-3's RouteInput makes no route to the previous hop; it
		// extends the route to the next hop towards the origin.
		if o := s.routing().validRoute(f.Origin, s.now()); o != nil {
			s.refresh(o.next)
		}
	} else {
		s.learn(f.From, f.From, 1, 0, false, s.cfg.AODV.activeRoute())
	}
	if f.Final == s.id {
		s.refresh(f.Origin)
		s.keepDataNeighbors(f.Origin, -1)
		s.traceRecv(f, s.cfg.IDs[f.Origin], hops)
		s.d.Up(protocol.Receive{From: s.cfg.IDs[f.Origin], Hops: hops, Msg: f.Msg})
		return
	}
	dest, ok := s.cfg.Index[f.Final]
	if !ok {
		return
	}
	if hops >= int(f.HopLimit) {
		s.dropData(f, "hop-limit")
		return
	}
	fw := &Frame{Type: Data, Msg: f.Msg, Bytes: f.Bytes, Code: f.Code, Body: f.Body, Origin: f.Origin, OSeq: f.OSeq,
		Hops: uint8(hops), HopLimit: f.HopLimit, Final: f.Final}
	if s.routing().validRoute(dest, s.now()) == nil {
		s.forward(fw, dest) // traces the drop, reports the break
		return
	}
	s.keepDataNeighbors(f.Origin, dest)
	s.number(fw)
	s.emit(trace.Event{Ev: trace.EvRelay, Kind: f.Kind(), Seq: fw.Seq, Bytes: fw.Bytes, Origin: s.cfg.IDs[f.Origin],
		OSeq: f.OSeq, Hops: hops + 1, To: f.Final, Text: f.Says()})
	s.forward(fw, dest)
}

// linkBroken handles the loss of the link to neighbour j (no
// acknowledgement, or its hellos stopped): the routes through it become
// invalid, the neighbours that used them hear a route error (RFC 3561
// 6.11), and data waiting on the link go back to their discovery or are
// dropped.
func (s *Stack) linkBroken(j int32) {
	a := s.routing()
	var lost []Unreachable
	var precursors []int32
	now := s.now()
	for dest, r := range a.routes {
		if r.next != j || !s.erred(r, now) {
			continue
		}
		if r.valid {
			if !s.cfg.AODV.KeepSeqOnBreak {
				r.seq++
			}
			s.invalidate(r)
		}
		if len(r.precursors) > 0 || s.cfg.AODV.RERRStale {
			lost = append(lost, Unreachable{Dest: s.cfg.IDs[dest], Seq: r.seq})
			precursors = append(precursors, r.precursors...)
		}
	}
	if q := s.queues[j]; q != nil {
		kept := q.pending[:0]
		for i, f := range q.pending {
			if i == 0 || f.Type != Data {
				kept = append(kept, f)
				continue
			}
			if f.Origin == s.self {
				s.forward(f, s.cfg.Index[f.Final])
			} else {
				s.dropData(f, "no-route")
			}
		}
		clear(q.pending[len(kept):])
		q.pending = kept
	}
	if len(lost) > 0 && s.rerrGoes(precursors) {
		slices.SortFunc(lost, func(a, b Unreachable) int { return cmp.Compare(a.Dest, b.Dest) })
		s.sendRERR(lost, false, s.solePrecursor(precursors))
	}
}

// rerrNoRoute reports that this node has no route to dest for the data
// frame f it was to forward (RFC 3561 6.11 (ii)). With routed_control,
// as ns-3's SendRerrWhenNoRouteToForward, the error goes to the next hop
// towards f's origin when a route to the origin is valid: if the route
// to that neighbour is not, the error waits for a discovery of it.
func (s *Stack) rerrNoRoute(f *Frame, dest int32) {
	lost := []Unreachable{{Dest: f.Final, Seq: s.lastSeq(dest)}}
	a := s.routing()
	if s.cfg.AODV.RoutedControl {
		if o := a.validRoute(f.Origin, s.now()); o != nil && a.validRoute(o.next, s.now()) == nil {
			if s.rerrAllowed() {
				s.deferControl(&Frame{Type: RERR, To: -1, Unreachable: lost, Bytes: rerrBytes + 8}, o.next, "")
			}
			return
		}
	}
	s.sendRERR(lost, false, -1)
}

// MaxUnreachable bounds the destinations of one route error: the real
// driver's frame carries at most this many (wire.MaxUnreachable), so a
// longer list goes out as several route errors, in order.
const MaxUnreachable = 64

// sendRERR broadcasts a route error to the neighbours: one per
// MaxUnreachable destinations, each within RERR_RATELIMIT, after the
// jitter when routing.aodv.jitter is set. forwarded: the error passes
// on one heard (traced with kind "forward"). sole >= 0: the routes'
// only precursor, to which the error must still have a valid route when
// its jitter is over (solePrecursor).
func (s *Stack) sendRERR(lost []Unreachable, forwarded bool, sole int32) {
	var hops uint8
	if forwarded {
		hops = 1
	}
	for len(lost) > 0 {
		n := min(len(lost), MaxUnreachable)
		if s.rerrAllowed() {
			s.broadcastRERR(&Frame{Type: RERR, To: -1, Unreachable: lost[:n:n], Bytes: rerrBytes + 8*n, Hops: hops}, sole)
		}
		lost = lost[n:]
	}
}

// broadcastRERR broadcasts the route error f, after the jitter when
// routing.aodv.jitter is set; sole >= 0: see sendRERR.
func (s *Stack) broadcastRERR(f *Frame, sole int32) {
	if s.cfg.AODV.Jitter > 0 {
		t := Timer{Kind: TimerRelay, Frame: f}
		if sole >= 0 {
			t.Peer, t.Ref = sole, rerrSole
		}
		s.d.SetTimer(s.aodvJitter(), t)
		return
	}
	s.relay(s.scratch(*f))
}

// rerrSole marks (as a TimerRelay's Ref) a route error whose only
// precursor is the timer's Peer.
const rerrSole = 1

// solePrecursor is, with routed_control, the only neighbour among
// precursors (-1: none or several). ns-3's SendRerrMessage unicasts a
// route error with one precursor to it through its RouteOutput, after
// the jitter: if the route to that neighbour became invalid meanwhile
// (often at once: the same neighbour check lost it too), the error
// waits for a route discovery of it. manetlab's error stays a broadcast.
func (s *Stack) solePrecursor(precursors []int32) int32 {
	if !s.cfg.AODV.RoutedControl || len(precursors) == 0 {
		return -1
	}
	for _, p := range precursors[1:] {
		if p != precursors[0] {
			return -1
		}
	}
	return precursors[0]
}

// relayRERR sends the route error f whose jitter is over; with a sole
// precursor no longer reachable over a valid route, it waits for a
// route discovery of it first (solePrecursor).
func (s *Stack) relayRERR(f *Frame, sole int32) {
	if s.routing().validRoute(sole, s.now()) == nil {
		s.deferControl(f, sole, "")
		return
	}
	s.relay(f)
}

// heardRERR handles a route error from a neighbour: routes through it to
// the destinations listed become invalid, and the error goes on to the
// neighbours that used them.
func (s *Stack) heardRERR(f *Frame) {
	a := s.routing()
	if s.cfg.AODV.RoutedControl {
		s.heardFrom(f.From) // ns-3's RecvAodv, for every message
	}
	var lost []Unreachable
	var precursors []int32
	now := s.now()
	for _, u := range f.Unreachable {
		dest, ok := s.cfg.Index[u.Dest]
		if !ok {
			continue
		}
		r := a.routes[dest]
		if r == nil || r.next != f.From || !s.erred(r, now) {
			continue
		}
		if r.valid {
			r.seq, r.validSeq = u.Seq, true
			s.invalidate(r)
		}
		if len(r.precursors) > 0 || s.cfg.AODV.RERRStale {
			lost = append(lost, Unreachable{Dest: u.Dest, Seq: u.Seq})
			precursors = append(precursors, r.precursors...)
		}
	}
	if len(lost) > 0 && s.rerrGoes(precursors) {
		s.sendRERR(lost, true, s.solePrecursor(precursors))
	}
}
