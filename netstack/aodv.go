package netstack

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"manetlab/internal/units"
	"manetlab/protocol"
	"manetlab/trace"
)

// Routing choices (Config.Routing).
const (
	RoutingFlood = "flood"
	RoutingAODV  = "aodv"
)

// AODVConfig are AODV's parameters, named as RFC 3561's section 10 names
// them and defaulted as it does (DefaultAODV; docs/routing.md). A
// scenario gives them under routing.aodv.
type AODVConfig struct {
	ActiveRouteTimeout units.Duration `yaml:"active_route_timeout"` // ACTIVE_ROUTE_TIMEOUT, 3 s
	NodeTraversalTime  units.Duration `yaml:"node_traversal_time"`  // NODE_TRAVERSAL_TIME, 40 ms
	NetDiameter        int            `yaml:"net_diameter"`         // NET_DIAMETER, 35 hops
	RREQRetries        int            `yaml:"rreq_retries"`         // RREQ_RETRIES, 2 (at the network's diameter)
	TTLStart           int            `yaml:"ttl_start"`            // TTL_START, 1
	TTLIncrement       int            `yaml:"ttl_increment"`        // TTL_INCREMENT, 2
	TTLThreshold       int            `yaml:"ttl_threshold"`        // TTL_THRESHOLD, 7
	TimeoutBuffer      int            `yaml:"timeout_buffer"`       // TIMEOUT_BUFFER, 2
	// Buffer bounds the messages waiting for a route at one node (RFC
	// 3561 leaves it to the implementation; ns-3's default is 64).
	Buffer int `yaml:"buffer"`
}

// DefaultAODV are RFC 3561's defaults.
func DefaultAODV() AODVConfig {
	return AODVConfig{ActiveRouteTimeout: units.Duration(3 * time.Second), NodeTraversalTime: units.Duration(40 * time.Millisecond),
		NetDiameter: 35, RREQRetries: 2, TTLStart: 1, TTLIncrement: 2, TTLThreshold: 7, TimeoutBuffer: 2, Buffer: 64}
}

// Validate names the first parameter out of its range, as
// "field: problem" (field as the scenario names it under routing.aodv).
func (c *AODVConfig) Validate() error {
	switch {
	case c.ActiveRouteTimeout < 0:
		return fmt.Errorf("active_route_timeout: must be positive (got %s)", c.activeRoute())
	case c.NodeTraversalTime < 0:
		return fmt.Errorf("node_traversal_time: must be positive (got %s)", c.NodeTraversalTime)
	case c.NetDiameter < 1 || c.NetDiameter > 255:
		return fmt.Errorf("net_diameter: must be 1 to 255 hops (got %d)", c.NetDiameter)
	case c.TTLStart < 1 || c.TTLStart > c.NetDiameter:
		return fmt.Errorf("ttl_start: must be 1 to net_diameter (%d) (got %d)", c.NetDiameter, c.TTLStart)
	case c.TTLIncrement < 1:
		return fmt.Errorf("ttl_increment: must be 1 or more (got %d)", c.TTLIncrement)
	case c.TTLThreshold < c.TTLStart || c.TTLThreshold > c.NetDiameter:
		return fmt.Errorf("ttl_threshold: must be ttl_start (%d) to net_diameter (%d) (got %d)", c.TTLStart, c.NetDiameter, c.TTLThreshold)
	case c.RREQRetries < 0 || c.RREQRetries > 16:
		return fmt.Errorf("rreq_retries: must be 0 to 16 (got %d)", c.RREQRetries)
	case c.TimeoutBuffer < 0:
		return fmt.Errorf("timeout_buffer: must be 0 or more (got %d)", c.TimeoutBuffer)
	case c.Buffer < 1:
		return fmt.Errorf("buffer: must be 1 or more messages (got %d)", c.Buffer)
	}
	return nil
}

func (c *AODVConfig) activeRoute() time.Duration   { return c.ActiveRouteTimeout.D() }
func (c *AODVConfig) nodeTraversal() time.Duration { return c.NodeTraversalTime.D() }

// netTraversal is NET_TRAVERSAL_TIME: 2 · NODE_TRAVERSAL_TIME · NET_DIAMETER.
func (c *AODVConfig) netTraversal() time.Duration {
	return 2 * c.nodeTraversal() * time.Duration(c.NetDiameter)
}

// ringTraversal is RING_TRAVERSAL_TIME for a request of that TTL.
func (c *AODVConfig) ringTraversal(ttl int) time.Duration {
	return 2 * c.nodeTraversal() * time.Duration(ttl+c.TimeoutBuffer)
}

// RouteDelay is protocol.Config.RouteDelay for c: with AODV, the sum of
// the expanding ring's waits before it asks the whole network; zero
// under flooding.
func (c *Config) RouteDelay() time.Duration {
	if c.Routing != RoutingAODV {
		return 0
	}
	a := &c.AODV
	var d time.Duration
	for ttl := a.TTLStart; ttl < a.NetDiameter; ttl = a.nextTTL(ttl) {
		d += a.ringTraversal(ttl)
	}
	return d
}

// nextTTL is the expanding ring's TTL after a try of ttl (below the
// network's diameter): TTL_INCREMENT more up to TTL_THRESHOLD, then
// NET_DIAMETER (RFC 3561 6.4).
func (c *AODVConfig) nextTTL(ttl int) int {
	if ttl < c.TTLThreshold && ttl+c.TTLIncrement <= c.TTLThreshold {
		return ttl + c.TTLIncrement
	}
	return c.NetDiameter
}

// pathDiscovery is PATH_DISCOVERY_TIME, how long a request is remembered.
func (c *AODVConfig) pathDiscovery() time.Duration { return 2 * c.netTraversal() }

// myRouteTimeout is MY_ROUTE_TIMEOUT, the lifetime a destination gives
// its replies.
func (c *AODVConfig) myRouteTimeout() time.Duration { return 2 * c.activeRoute() }

// Sizes of the routing messages on the wire, RFC 3561's formats for IPv4:
// they are what the routing overhead counts in bytes.
const (
	rreqBytes = 24
	rrepBytes = 20
	rerrBytes = 4 // plus 8 per unreachable destination
)

// route is an entry of a node's routing table.
type route struct {
	next       int32  // the next hop's member index
	hops       int    // hop count
	seq        uint32 // destination sequence number
	validSeq   bool
	valid      bool
	expires    time.Duration
	precursors []int32 // neighbours that route to the destination through this node
}

// discovery is a route discovery this node runs for one destination.
type discovery struct {
	gen     uint64 // which timer is current
	ttl     int
	retries int // attempts at the network's diameter after the first
	waiting []*Frame
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
	r.next, r.hops, r.valid = next, hops, true
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
	s.emit(trace.Event{Ev: trace.EvSend, Kind: m.Kind(), Seq: f.Seq, Bytes: f.Bytes, Origin: s.id, OSeq: f.OSeq, Hops: 1, To: to})
	s.forward(f, dest)
}

// dropData traces the drop of the routed message f for reason.
func (s *Stack) dropData(f *Frame, reason string) {
	s.emit(trace.Event{Ev: trace.EvDrop, Kind: f.Kind(), Origin: s.cfg.IDs[f.Origin], OSeq: f.OSeq, To: f.Final, Reason: reason})
}

// invalidate marks r invalid (RFC 3561 6.11), its entry kept for
// DELETE_PERIOD: 5 · max(ACTIVE_ROUTE_TIMEOUT, HELLO_INTERVAL).
func (s *Stack) invalidate(r *route) {
	r.valid = false
	r.expires = s.now() + 5*max(s.cfg.AODV.activeRoute(), s.cfg.Hello)
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
		s.sendRERR([]Unreachable{{Dest: f.Final, Seq: s.lastSeq(dest)}})
		return
	}
	if a.waiting >= s.cfg.AODV.Buffer {
		s.dropData(f, "buffer")
		return
	}
	d := a.finding[dest]
	if d == nil {
		d = &discovery{ttl: s.cfg.AODV.TTLStart}
		a.finding[dest] = d
		s.requestRoute(dest, d)
	}
	d.waiting = append(d.waiting, f)
	a.waiting++
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
	a.seq++
	a.rreqID++
	a.seen[rreqKey{s.self, a.rreqID}] = s.now() + c.pathDiscovery()
	rreq := Frame{Type: RREQ, To: -1, Origin: s.self, OSeq: a.rreqID, OrigSeq: a.seq, Final: s.cfg.IDs[dest],
		DestSeq: s.lastSeq(dest), TTL: uint8(d.ttl), Bytes: rreqBytes}
	if s.cfg.MAC != nil {
		// On the DCF medium the request waits a jitter, as relays do
		// (RFC 5148; ns-3's AODV jitters every broadcast by 0-10 ms):
		// nodes whose discoveries start together, and retry together
		// after the same waits, would otherwise collide at every try.
		jitter := time.Duration(s.rng.Int64N(int64(s.cfg.RelayJitter)))
		s.d.SetTimer(jitter, Timer{Kind: TimerRelay, Frame: &rreq})
	} else {
		f := s.scratch(rreq)
		s.transmitNew(f, trace.Event{Ev: trace.EvRREQ, Bytes: rreqBytes, Origin: s.id, OSeq: a.rreqID, To: f.Final, Hops: 1})
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
		s.forward(w, dest)
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
	case d.ttl < c.NetDiameter:
		d.ttl = c.nextTTL(d.ttl)
	case d.retries < c.RREQRetries:
		d.retries++
	default:
		delete(a.finding, dest)
		a.waiting -= len(d.waiting)
		for _, f := range d.waiting {
			s.dropData(f, "no-route")
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
	s.learn(f.From, f.From, 1, 0, false, c.activeRoute())
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
	dest, ok := s.cfg.Index[f.Final]
	if !ok {
		return
	}
	if dest == s.self {
		if f.DestSeq != 0 && f.DestSeq == a.seq+1 {
			a.seq++
		}
		s.sendRREP(&Frame{Type: RREP, Origin: f.Origin, Final: s.id, DestSeq: a.seq, Lifetime: c.myRouteTimeout()}, rev)
		return
	}
	if r := a.validRoute(dest, now); r != nil && r.validSeq && int32(r.seq-f.DestSeq) >= 0 {
		// An intermediate node's reply (RFC 3561 6.6.2).
		addPrecursor(r, f.From)
		if o := a.routes[f.Origin]; o != nil {
			addPrecursor(o, r.next)
		}
		s.sendRREP(&Frame{Type: RREP, Origin: f.Origin, Final: f.Final, DestSeq: r.seq, Hops: uint8(min(r.hops, 255)),
			Lifetime: r.expires - now}, rev)
		return
	}
	if f.TTL <= 1 {
		return
	}
	relay := &Frame{Type: RREQ, To: -1, Origin: f.Origin, OSeq: f.OSeq, OrigSeq: f.OrigSeq, Final: f.Final,
		DestSeq: max(f.DestSeq, s.lastSeq(dest)), Hops: uint8(min(hops, 255)), TTL: f.TTL - 1, Bytes: rreqBytes}
	jitter := time.Duration(s.rng.Int64N(int64(s.cfg.RelayJitter)))
	s.d.SetTimer(jitter, Timer{Kind: TimerRelay, Frame: relay})
}

// sendRREP sends the reply f back towards the requester over the reverse
// route rev. Its lifetime is whole milliseconds, what RFC 3561's reply
// (and the real driver's wire) carries: an intermediate node's, computed
// from an expiry, has a fraction that the simulator would otherwise keep
// and the real driver round off.
func (s *Stack) sendRREP(f *Frame, rev *route) {
	if rev == nil || !rev.valid {
		return
	}
	s.number(f)
	f.To, f.Bytes = rev.next, rrepBytes
	f.Lifetime = f.Lifetime.Truncate(time.Millisecond)
	s.emit(trace.Event{Ev: trace.EvRREP, Seq: f.Seq, Bytes: rrepBytes, Origin: s.cfg.IDs[f.Origin], To: f.Final,
		Hops: int(f.Hops) + 1})
	s.enqueue(f)
}

// heardRREP handles a route reply addressed to this node (RFC 3561 6.7):
// it learns the forward route, and either ends its own discovery or
// passes the reply on towards the requester.
func (s *Stack) heardRREP(f *Frame) {
	a := s.routing()
	c := &s.cfg.AODV
	s.learn(f.From, f.From, 1, 0, false, c.activeRoute())
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
	s.sendRREP(&Frame{Type: RREP, Origin: f.Origin, Final: f.Final, DestSeq: f.DestSeq, Hops: uint8(min(hops, 255)),
		Lifetime: f.Lifetime}, rev)
}

// heardData handles a routed data frame addressed to this node: it is the
// destination, or it forwards the frame one hop on.
func (s *Stack) heardData(f *Frame) {
	hops := int(f.Hops) + 1
	s.learn(f.From, f.From, 1, 0, false, s.cfg.AODV.activeRoute())
	if f.Final == s.id {
		s.refresh(f.Origin)
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
	s.number(fw)
	s.emit(trace.Event{Ev: trace.EvRelay, Kind: f.Kind(), Seq: fw.Seq, Bytes: fw.Bytes, Origin: s.cfg.IDs[f.Origin],
		OSeq: f.OSeq, Hops: hops + 1, To: f.Final})
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
	for dest, r := range a.routes {
		if r.valid && r.next == j {
			r.seq++
			s.invalidate(r)
			if len(r.precursors) > 0 {
				lost = append(lost, Unreachable{Dest: s.cfg.IDs[dest], Seq: r.seq})
			}
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
	if len(lost) > 0 {
		slices.SortFunc(lost, func(a, b Unreachable) int { return cmp.Compare(a.Dest, b.Dest) })
		s.sendRERR(lost)
	}
}

// MaxUnreachable bounds the destinations of one route error: the real
// driver's frame carries at most this many (wire.MaxUnreachable), so a
// longer list goes out as several route errors, in order.
const MaxUnreachable = 64

// sendRERR broadcasts a route error to the neighbours: one per
// MaxUnreachable destinations.
func (s *Stack) sendRERR(lost []Unreachable) {
	for len(lost) > 0 {
		n := min(len(lost), MaxUnreachable)
		f := s.scratch(Frame{Type: RERR, To: -1, Unreachable: lost[:n], Bytes: rerrBytes + 8*n})
		s.transmitNew(f, trace.Event{Ev: trace.EvRERR, Bytes: f.Bytes, Hops: n})
		lost = lost[n:]
	}
}

// heardRERR handles a route error from a neighbour: routes through it to
// the destinations listed become invalid, and the error goes on to the
// neighbours that used them.
func (s *Stack) heardRERR(f *Frame) {
	a := s.routing()
	var lost []Unreachable
	for _, u := range f.Unreachable {
		dest, ok := s.cfg.Index[u.Dest]
		if !ok {
			continue
		}
		if r := a.routes[dest]; r != nil && r.valid && r.next == f.From {
			r.seq, r.validSeq = u.Seq, true
			s.invalidate(r)
			if len(r.precursors) > 0 {
				lost = append(lost, Unreachable{Dest: u.Dest, Seq: u.Seq})
			}
		}
	}
	if len(lost) > 0 {
		s.sendRERR(lost)
	}
}
