package node

import (
	"net/netip"
	"time"

	"manetlab/internal/geo"
	"manetlab/netstack"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/radio"
)

// admit applies the checks every frame passes first: its clock is not too
// far ahead and it was not sent before this process started.
func (h *Host) admit(f *wire.Frame, src netip.Addr) bool {
	if reason, err := h.fresh(f); err != nil {
		h.reject(reason, "%v", err)
		if reason == "clock" && f.Type != wire.TypeLocation {
			h.refuse(f.From, reason, src)
		}
		return false
	}
	return true
}

// receive runs a decoded frame of this run through the rest of the
// pipeline: the clock and freshness checks, the sender, the body (decoded
// and checked field by field), and only then state: own frames,
// duplicates, then for every hosted node the radio model and the
// destination. A frame that fails a check has changed nothing.
func (h *Host) receive(rf *rxFrame) {
	f := &rf.f
	if !h.admit(f, rf.src) {
		return
	}
	if f.Type == wire.TypeLocation {
		h.location(f)
		return
	}
	si, ok := h.index[f.From]
	if !ok {
		h.reject("sender", "%s frame from node %d, which is not in the scenario", f.Type, f.From)
		return
	}
	switch f.Type {
	case wire.TypeFlood, wire.TypeData, wire.TypeRREQ, wire.TypeRREP, wire.TypeAODVHello:
		if _, ok := h.index[f.Origin]; !ok {
			h.reject("sender", "%s frame from origin %d, which is not in the scenario", f.Type, f.Origin)
			return
		}
	}
	if f.Type.HasBody() {
		if _, ok := h.message(rf); !ok {
			return
		}
	}
	h.stackFrame(rf, si)
	if !h.airOK(rf) {
		return
	}
	own := h.byID[f.From]
	if own != nil {
		// The address this process's frames come from, as the others
		// see them (Stats.Addr): its own, looped back.
		h.cnt.ownAddr(rf.src)
		h.reject("own", "")
		if len(h.nodes) == 1 {
			return
		}
	}
	// A unicast (routed data, a route reply) is retransmitted with its
	// sequence number until acknowledged, and a copy the radio model
	// dropped at its receiver must not shadow the retransmission: these
	// are checked per receiver, by the stack, after the radio.
	if !acknowledged(f.Type) && !h.senders[si].Accept(f.Seq) {
		h.reject("duplicate", "%s frame (%d, %d) seen before", f.Type, f.From, f.Seq)
		return
	}
	if h.air != nil {
		h.airStart(rf, si, own)
		return
	}
	h.rx = rf
	defer func() { h.rx = nil }()
	for _, r := range h.nodes {
		if r == own || !r.alive {
			continue
		}
		if (acknowledged(f.Type) || f.Type == wire.TypeAck) && f.To != r.id {
			continue // not modelled as overheard, as in the simulator
		}
		if r.cutFrom(si) {
			h.reject("cut", "")
			continue
		}
		d := geo.Dist(h.position(si), h.position(r.idx))
		if d > h.maxRange {
			h.reject(radio.OutOfRange.DropReason(), "")
			continue // beyond every reception: no draw, no trace
		}
		o := radio.Hear(h.prop, h.loss, si, r.idx, d, r.radioRng)
		if o != radio.Received {
			h.reject(o.DropReason(), "")
		}
		h.rxStamped = false
		v := r.stack.Heard(&rf.nf, o)
		if o == radio.Received && !h.rxStamped {
			r.clock.Update(f.Clock)
		}
		switch v {
		case netstack.BadBody:
			return // counted and logged by message
		case netstack.Duplicate:
			// A retransmission whose ack was lost (or a replay):
			// acknowledged again, delivered once.
			h.reject("duplicate", "unicast frame (%d, %d) delivered before", f.From, f.Seq)
		}
	}
}

// acknowledged reports whether frames of type t are sent to one neighbour,
// which acknowledges them: unicast, routed data, route replies and their
// acknowledgements.
func acknowledged(t wire.Type) bool {
	return t == wire.TypeUnicast || t == wire.TypeData || t == wire.TypeRREP || t == wire.TypeRREPAck
}

// stackFrame fills rf.nf, the stack's view of the frame from member si.
func (h *Host) stackFrame(rf *rxFrame, si int) {
	f := &rf.f
	nf := netstack.Frame{Type: stackType(f.Type), From: int32(si), To: -1, Seq: f.Seq, AckSeq: f.AckSeq,
		Code: f.Code, Body: f.Body, Bytes: len(f.Body)}
	switch f.Type {
	case wire.TypeFlood, wire.TypeData:
		nf.Origin, nf.OSeq = int32(h.index[f.Origin]), f.OriginSeq
		nf.Hops, nf.HopLimit, nf.Final = f.Hops, f.HopLimit, f.Final
	case wire.TypeRREQ:
		nf.Origin, nf.OSeq, nf.OrigSeq = int32(h.index[f.Origin]), f.OriginSeq, f.OrigSeq
		nf.Final, nf.DestSeq, nf.Hops, nf.TTL = f.Final, f.DestSeq, f.Hops, f.TTL
	case wire.TypeRREP, wire.TypeAODVHello:
		nf.Origin, nf.Final, nf.DestSeq, nf.Hops = int32(h.index[f.Origin]), f.Final, f.DestSeq, f.Hops
		nf.Lifetime = f.Lifetime()
		nf.AckRequired = f.AckRequired
	case wire.TypeRERR:
		// Destinations that are no members stay: the stack ignores them.
		nf.Unreachable = make([]netstack.Unreachable, len(f.Unreachable))
		for i, u := range f.Unreachable {
			nf.Unreachable[i] = netstack.Unreachable(u)
		}
	}
	if i, ok := h.index[f.To]; ok && f.To != protocol.None {
		nf.To = int32(i)
	}
	if rf.decoded && !rf.bad {
		nf.Msg = rf.msg
	}
	rf.nf = nf
}

// message decodes a frame's body once; false (counted and logged) if it
// does not decode.
func (h *Host) message(rf *rxFrame) (protocol.Message, bool) {
	if !rf.decoded {
		rf.decoded = true
		m, err := h.codec.Decode(rf.f.Code, rf.f.Body)
		if err != nil {
			rf.bad = true
			h.reject(wire.Reason(err), "%s frame (%d, %d): %v", rf.f.Type, rf.f.From, rf.f.Seq, err)
			h.refuse(rf.f.From, wire.Reason(err), rf.src)
		}
		rf.msg = m
	}
	return rf.msg, !rf.bad
}

// AirSkew is how far from the receiver's run clock a frame's stamped
// start may be on the DCF medium: further, the clocks disagree (or the
// datagram took that long), and the frame is judged by its arrival
// instead (docs/node.md, "The DCF medium in real processes").
const AirSkew = 5 * time.Millisecond

// airOK checks a frame's air section against the medium: one on the
// DCF medium, none on the ideal one, and the airtime the scenario gives
// the frame; false (counted and logged) if not.
func (h *Host) airOK(rf *rxFrame) bool {
	f := &rf.f
	switch {
	case h.air == nil && f.Air.Airtime == 0:
		return true
	case h.air == nil:
		h.refuse(f.From, "air", rf.src)
		h.reject("air", "%s frame (%d, %d) with an air section: its sender is on the DCF medium, this run on the ideal one", f.Type, f.From, f.Seq)
		return false
	case f.Air.Airtime == 0:
		h.refuse(f.From, "air", rf.src)
		h.reject("air", "%s frame (%d, %d) without an air section: its sender is on the ideal medium, this run on the DCF one", f.Type, f.From, f.Seq)
		return false
	}
	if want := h.net.MAC.Airtime(&rf.nf); f.Air.Airtime != want {
		h.refuse(f.From, "air", rf.src)
		h.reject("air", "%s frame (%d, %d) says an airtime of %v, the scenario gives it %v", f.Type, f.From, f.Seq, f.Air.Airtime, want)
		return false
	}
	rf.nf.Airtime = f.Air.Airtime
	return true
}

// onAir is a frame on the DCF medium at the hosted nodes it started at,
// each in the life it had then, to end it at the same ones.
type onAir struct {
	id  uint64
	rf  *rxFrame
	rcv []airRcv
}

type airRcv struct {
	n   *hosted
	inc uint32
}

// airStart starts a frame of the DCF medium at every live hosted node
// within the medium's reach, as the simulator's airStart does: its power,
// whether it is sensed and the radio's verdict on it alone
// (netstack.Radio, drawing from the receiver's stream), from the start
// its sender stamped plus the signal delay; it ends there its airtime
// later (airEnd). A stamp further than AirSkew from this node's clock is
// not believed: the frame is taken to start now.
func (h *Host) airStart(rf *rxFrame, si int, own *hosted) {
	f := &rf.f
	now := h.now()
	start := f.Air.Start + netstack.SignalDelay
	h.cnt.lag(now - start)
	if d := start - now; d > AirSkew || d < -AirSkew {
		h.cnt.airSkewed.Add(1)
		h.log.notef("air-skew", "%s frame (%d, %d) stamped %v, %v from this node's clock %v: judged by its arrival",
			f.Type, f.From, f.Seq, f.Air.Start, d, now)
		start = now
	}
	end := start + f.Air.Airtime
	h.airID++
	a := &onAir{id: h.airID, rf: rf}
	for _, r := range h.nodes {
		if r == own || !r.alive {
			continue
		}
		if r.cutFrom(si) {
			h.reject("cut", "")
			continue // never on the air here
		}
		d := geo.Dist(h.position(si), h.position(r.idx))
		if d > h.maxRange {
			h.reject(radio.OutOfRange.DropReason(), "")
		}
		if d > h.air.Reach {
			continue // not on the air here at all
		}
		sig := netstack.Signal{ID: a.id, Frame: &rf.nf, Start: start, End: end}
		h.air.Signal(&sig, si, r.idx, d, r.radioRng)
		a.rcv = append(a.rcv, airRcv{n: r, inc: r.inc})
		r.stack.SignalStart(sig)
	}
	if len(a.rcv) > 0 {
		h.sched.push(task{at: end, kind: taskAirEnd, air: a})
	}
}

// airEnd ends a frame at the hosted nodes it started at, those still in
// the same life: each decides whether it received it.
func (h *Host) airEnd(a *onAir) {
	rf := a.rf
	h.rx = rf
	defer func() { h.rx = nil }()
	for _, rc := range a.rcv {
		r := rc.n
		if !r.alive || r.inc != rc.inc {
			continue
		}
		h.rxStamped = false
		o, v := r.stack.SignalEnd(a.id)
		switch {
		case o == radio.Received && !h.rxStamped:
			r.clock.Update(rf.f.Clock)
		case o != 0 && o != radio.Received:
			h.reject(o.DropReason(), "")
		}
		if v == netstack.Duplicate {
			h.reject("duplicate", "unicast frame (%d, %d) delivered before", rf.f.From, rf.f.Seq)
		}
	}
}
