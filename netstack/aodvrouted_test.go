package netstack

import (
	"testing"
	"time"

	"manetlab/internal/units"
	"manetlab/protocol"
)

// routedStack is aodvStack with routed_control (and ring_from_hops, so
// that a discovery for a neighbour starts at TTL 3 as in ns-3) as given,
// and member 1 (ID 2) a neighbour known from its hello whose route has
// been invalidated (its link broke).
func routedStack(t *testing.T, routed bool) (*Stack, *recorder) {
	t.Helper()
	s, d := aodvStack(5)
	s.cfg.AODV.RoutedControl, s.cfg.AODV.RingFromHops = routed, true
	s.heardAODVHello(&Frame{Type: AODVHello, From: 1, To: -1, Origin: 1, Final: 2, DestSeq: 4, Lifetime: 2 * time.Second})
	s.invalidate(s.routing().routes[1])
	return s, d
}

// TestRoutedControl: with routed_control (ns-3's way) a reply passed on
// towards a neighbour whose route is invalid waits for a discovery of
// that neighbour (TTL: its old hop count + 2) and goes when the
// neighbour's own reply gives the route; AODV messages heard from the
// neighbour leave its hello route invalid, but a request's first copy
// makes it valid again. Without it the reply goes at once and any
// message heard makes the route valid.
func TestRoutedControl(t *testing.T) {
	for _, routed := range []bool{false, true} {
		s, d := routedStack(t, routed)
		s.learn(2, 1, 2, 7, true, time.Minute) // the requester, ID 3, through ID 2
		s.Heard(&Frame{Type: RREP, From: 3, To: 0, Seq: 1, Origin: 2, Final: 5, DestSeq: 3, Lifetime: time.Minute}, Received)
		reqs, reps := d.sent(RREQ), d.sent(RREP)
		if !routed {
			if len(reps) != 1 || reps[0].To != 1 || len(reqs) != 0 {
				t.Fatalf("link layer: %d replies (to %v), %d requests; want the reply to member 1 at once", len(reps), reps, len(reqs))
			}
			s.heardFrom(1)
			if s.routing().validRoute(1, d.now) == nil {
				t.Errorf("link layer: a message heard from member 1 left its route invalid")
			}
			continue
		}
		if len(reps) != 0 || len(reqs) != 1 || reqs[0].Final != 2 || reqs[0].TTL != 3 {
			t.Fatalf("routed: %d replies, requests %+v; want no reply yet and one request for ID 2 at TTL 3", len(reps), reqs)
		}
		// Member 1 heard again (a route error): its hello route stays invalid.
		s.Heard(&Frame{Type: RERR, From: 1, To: -1, Seq: 2, Unreachable: []Unreachable{{Dest: 5, Seq: 1}}}, Received)
		if s.routing().validRoute(1, d.now) != nil {
			t.Errorf("routed: a route error from member 1 made its invalid hello route valid (ns-3 leaves it)")
		}
		// Its reply to the discovery gives the route: the reply goes.
		s.Heard(&Frame{Type: RREP, From: 1, To: 0, Seq: 3, Origin: 0, Final: 2, DestSeq: 5, Lifetime: time.Minute}, Received)
		if reps = d.sent(RREP); len(reps) != 1 || reps[0].To != 1 || reps[0].Origin != 2 {
			t.Errorf("routed: after the neighbour's reply, replies %+v; want the waiting one to member 1", reps)
		}
	}
	// A request's first copy from the neighbour makes its route valid.
	s, d := routedStack(t, true)
	s.Heard(&Frame{Type: RREQ, From: 1, To: -1, Seq: 4, Origin: 2, OSeq: 1, OrigSeq: 1, Final: 4, TTL: 5}, Received)
	r := s.routing().validRoute(1, d.now)
	if r == nil || r.validSeq || r.expires != d.now+s.cfg.AODV.activeRoute() {
		t.Errorf("routed: after a request from member 1, its route %+v; want valid, no sequence number, active_route_timeout", r)
	}
}

// TestRREPAck: with rrep_ack a node answering for a destination that is
// its neighbour asks for an acknowledgement, and the reply's receiver
// sends a RREP-ACK to it; with routed_control and no valid route to the
// replier the acknowledgement waits for a discovery of it.
func TestRREPAck(t *testing.T) {
	s, d := aodvStack(5)
	s.cfg.AODV.RREPAck = true
	s.learn(3, 3, 1, 9, true, time.Minute) // ID 4, a neighbour
	s.learn(4, 3, 2, 9, true, time.Minute) // ID 5, through it
	for i, dest := range []protocol.NodeID{4, 5} {
		s.Heard(&Frame{Type: RREQ, From: 1, To: -1, Seq: uint64(i + 1), Origin: 2, OSeq: uint64(i + 1), OrigSeq: 1, Final: dest, DestSeq: 1, TTL: 5}, Received)
		if r := d.sent(RREP); len(r) > 0 {
			s.Heard(&Frame{Type: Ack, From: 1, To: 0, AckSeq: r[len(r)-1].Seq}, Received) // the link's: the next may go
		}
	}
	reps := d.sent(RREP)
	if len(reps) != 2 || !reps[0].AckRequired || reps[1].AckRequired {
		t.Fatalf("replies %+v; want two, the first (destination a neighbour) asking for an acknowledgement", reps)
	}
	for _, routed := range []bool{false, true} {
		s, d := routedStack(t, routed)
		s.cfg.AODV.RREPAck = true
		s.learn(2, 2, 1, 7, true, time.Minute)
		s.Heard(&Frame{Type: RREP, From: 1, To: 0, Seq: 1, Origin: 0, Final: 5, DestSeq: 3, Hops: 1, Lifetime: time.Minute, AckRequired: true}, Received)
		acks, reqs := d.sent(RREPAck), d.sent(RREQ)
		if !routed && (len(acks) != 1 || acks[0].To != 1) {
			t.Errorf("link layer: acknowledgements %+v; want one to member 1", acks)
		}
		if routed && (len(acks) != 0 || len(reqs) != 1 || reqs[0].Final != 2) {
			t.Errorf("routed: acknowledgements %+v, requests %+v; want none yet and a discovery of ID 2", acks, reqs)
		}
	}
}

// relayDue runs the stack's pending jitter timers (TimerRelay), in
// order, as if their jitter were over.
func relayDue(s *Stack, d *recorder) {
	for len(d.timers) > 0 {
		ts := d.timers
		d.timers = nil
		for _, t := range ts {
			if t.Kind == TimerRelay {
				s.Timer(t)
			}
		}
	}
}

// TestRERRSolePrecursor: with routed_control (ns-3's SendRerrMessage) a
// route error for routes with one precursor needs a valid route to that
// neighbour when its jitter is over: the precursor lost meanwhile, the
// error waits for a discovery of it and goes after its reply. Without
// routed_control, or with the route still valid, it goes at once.
func TestRERRSolePrecursor(t *testing.T) {
	for _, c := range []struct {
		routed, lose bool
		wantNow      bool
	}{{false, true, true}, {true, false, true}, {true, true, false}} {
		s, d := routedStack(t, c.routed)
		s.cfg.AODV.Jitter = units.Duration(10 * time.Millisecond)
		s.heardAODVHello(&Frame{Type: AODVHello, From: 2, To: -1, Origin: 2, Final: 3, DestSeq: 4, Lifetime: 2 * time.Second})
		s.learn(3, 3, 1, 9, true, time.Minute)
		addPrecursor(s.learn(4, 3, 2, 9, true, time.Minute), 2) // ID 5 through ID 4, for ID 3
		s.linkBroken(3)
		if c.lose {
			s.invalidate(s.routing().routes[2]) // ID 3 lost within the jitter
		}
		relayDue(s, d)
		errs, reqs := d.sent(RERR), d.sent(RREQ)
		if c.wantNow {
			if len(errs) != 1 || len(reqs) != 0 {
				t.Errorf("routed %v, lost %v: errors %+v, requests %+v; want the error at once", c.routed, c.lose, errs, reqs)
			}
			continue
		}
		if len(errs) != 0 || len(reqs) != 1 || reqs[0].Final != 3 {
			t.Fatalf("routed, lost: errors %+v, requests %+v; want no error yet and a discovery of ID 3", errs, reqs)
		}
		s.Heard(&Frame{Type: RREP, From: 2, To: 0, Seq: 5, Origin: 0, Final: 3, DestSeq: 6, Lifetime: time.Minute}, Received)
		relayDue(s, d)
		if errs = d.sent(RERR); len(errs) != 1 || len(errs[0].Unreachable) == 0 || errs[0].Unreachable[0].Dest != 5 {
			t.Errorf("routed, lost: after ID 3's reply, errors %+v; want the one about ID 5", errs)
		}
	}
}
