package netstack

import (
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// Deliver sends m to node to across several hops: a flood that every
// node relays once, up to the hop limit, until it reaches to.
func (s *Stack) Deliver(to protocol.NodeID, m protocol.Message) {
	if s.cfg.Routing == RoutingAODV {
		s.routeDeliver(to, m)
		return
	}
	s.originate(to, m)
}

// Flood sends m to every node it reaches across several hops.
func (s *Stack) Flood(m protocol.Message) { s.originate(protocol.None, m) }

func (s *Stack) originate(dest protocol.NodeID, m protocol.Message) {
	if s.stopped {
		return
	}
	f := s.scratch(Frame{Type: Flood, To: -1, Msg: m, Origin: s.self, HopLimit: uint8(s.cfg.HopLimit), Final: dest})
	if !s.d.Encode(f) {
		return
	}
	s.oseq++
	f.OSeq = s.oseq
	windowOf(&s.floods, s.self).Accept(s.oseq)
	if s.cfg.MAC != nil {
		// On the DCF medium the flood waits a jitter before it leaves its
		// originator, as relays and route requests do (RFC 5148): nodes
		// that send together (an election every node starts at the same
		// instant) would otherwise collide, and their reliable channels'
		// retransmissions, after the same timeouts, collide again at every
		// try.
		own := *f
		jitter := time.Duration(s.rng.Int64N(int64(s.cfg.RelayJitter)))
		s.d.SetTimer(jitter, Timer{Kind: TimerRelay, Frame: &own})
		return
	}
	s.sendOwn(f)
}

// sendOwn transmits f, a flood frame of this node's.
func (s *Stack) sendOwn(f *Frame) {
	s.transmitNew(f, trace.Event{Ev: trace.EvSend, Kind: f.Msg.Kind(), Bytes: f.Bytes,
		Origin: s.id, OSeq: f.OSeq, Hops: 1, To: f.Final, Text: f.Says()})
}

// windowOf is the duplicate window of k in *m (floods: by origin;
// unicasts: by sender), made on first use: one per node that ever
// reached this one, bounded by the run's size.
func windowOf(m *map[int32]*Window, k int32) *Window {
	if *m == nil {
		*m = map[int32]*Window{}
	}
	w := (*m)[k]
	if w == nil {
		w = &Window{}
		(*m)[k] = w
	}
	return w
}

// floodArrive delivers a flood frame if it is for this node and relays it
// once, after a random jitter, if it may travel further.
func (s *Stack) floodArrive(f *Frame) Verdict {
	if !windowOf(&s.floods, f.Origin).Accept(f.OSeq) {
		return Handled // handled already: relays of relays end here
	}
	hops := int(f.Hops) + 1
	if f.Final == protocol.None || f.Final == s.id {
		if v := s.deliver(f, s.cfg.IDs[f.Origin], hops); v != Handled || s.stopped {
			return v
		}
	} else if !s.d.Decode(f) {
		return BadBody
	}
	limit := min(int(f.HopLimit), s.cfg.HopLimit)
	if f.Final == s.id || hops >= limit {
		return Handled
	}
	relay := &Frame{Type: Flood, To: -1, Msg: f.Msg, Bytes: f.Bytes, Code: f.Code, Body: f.Body,
		Origin: f.Origin, OSeq: f.OSeq, Hops: uint8(hops), HopLimit: uint8(limit), Final: f.Final}
	jitter := time.Duration(s.rng.Int64N(int64(s.cfg.RelayJitter)))
	s.d.SetTimer(jitter, Timer{Kind: TimerRelay, Frame: relay})
	return Handled
}

// relay forwards a flood frame or a route request, its jitter over, or
// sends this node's own flood frame (Hops 0), route request, route error
// or AODV hello after its jitter (or at once, the jitter 0).
func (s *Stack) relay(f *Frame) {
	if f.Type == Flood && f.Hops == 0 && f.Origin == s.self {
		s.sendOwn(f)
		return
	}
	switch f.Type {
	case RREQ:
		var kind string
		if f.Hops == 0 && f.Origin == s.self && f.HopLimit > 1 {
			kind = "retry" // a later try of this node's discovery
		}
		s.transmitNew(f, trace.Event{Ev: trace.EvRREQ, Kind: kind, Bytes: f.Bytes, Origin: s.cfg.IDs[f.Origin], OSeq: f.OSeq,
			To: f.Final, Hops: int(f.Hops) + 1})
		return
	case RERR:
		var kind string
		if f.Hops == 1 {
			kind = "forward"
		}
		s.transmitNew(f, trace.Event{Ev: trace.EvRERR, Kind: kind, Bytes: f.Bytes, Hops: len(f.Unreachable)})
		return
	case AODVHello:
		s.transmitNew(f, trace.Event{Ev: trace.EvRREP, Kind: "hello", Bytes: f.Bytes, Origin: s.id, To: s.id, Hops: 1})
		return
	}
	s.transmitNew(f, trace.Event{Ev: trace.EvRelay, Kind: f.Msg.Kind(), Bytes: f.Bytes,
		Origin: s.cfg.IDs[f.Origin], OSeq: f.OSeq, Hops: int(f.Hops) + 1, To: f.Final, Text: f.Says()})
}
