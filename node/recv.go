package node

import (
	"slices"

	"manetlab/internal/geo"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/trace"
)

// admit applies the checks every frame passes first: its clock is not too
// far ahead and it was not sent before this process started.
func (h *Host) admit(f *wire.Frame) bool {
	if reason, err := h.fresh(f); err != nil {
		h.reject(reason, "%v", err)
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
	if !h.admit(f) {
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
	if f.Type == wire.TypeFlood {
		if _, ok := h.index[f.Origin]; !ok {
			h.reject("sender", "flood from origin %d, which is not in the scenario", f.Origin)
			return
		}
	}
	if f.Type.HasBody() {
		if _, ok := h.message(rf); !ok {
			return
		}
	}
	own := h.byID[f.From]
	if own != nil {
		h.reject("own", "")
		if len(h.nodes) == 1 {
			return
		}
	}
	// A unicast is retransmitted with its sequence number until
	// acknowledged, and a copy the radio model dropped at its receiver must
	// not shadow the retransmission: unicasts are checked per receiver,
	// after the radio, below.
	if f.Type != wire.TypeUnicast && !h.senders[si].accept(f.Seq) {
		h.reject("duplicate", "%s frame (%d, %d) seen before", f.Type, f.From, f.Seq)
		return
	}
	for _, r := range h.nodes {
		if r == own || !r.alive {
			continue
		}
		if (f.Type == wire.TypeUnicast || f.Type == wire.TypeAck) && f.To != r.id {
			continue // not modelled as overheard, as in the simulator
		}
		if o, d := h.hear(r, si); o != radio.Received {
			h.reject(o.DropReason(), "")
			// The simulator traces drops within MaxRange only, and not
			// those of unicast attempts, which are retransmitted.
			if d <= h.prop.MaxRange() && (f.Type == wire.TypeBroadcast || f.Type == wire.TypeFlood ||
				f.Type == wire.TypeHello && h.s.Trace.Hello) {
				kind := "hello"
				if f.Type != wire.TypeHello {
					m, ok := h.message(rf)
					if !ok {
						return
					}
					kind = m.Kind()
				}
				h.emit(r, &trace.Event{Ev: trace.EvDrop, Kind: kind, From: f.From, Seq: f.Seq, Reason: o.DropReason()}, r.clock.Update(f.Clock))
			}
			continue
		}
		switch f.Type {
		case wire.TypeHello:
			r.clock.Update(f.Clock)
			h.heardHello(r, si)
		case wire.TypeAck:
			r.clock.Update(f.Clock)
			h.acked(r, si, f.AckSeq)
		case wire.TypeBroadcast:
			if !h.deliver(r, rf, f.From, 1) {
				return
			}
		case wire.TypeUnicast:
			if _, ok := h.message(rf); !ok {
				return // not acknowledged: the sender gives up
			}
			h.ack(r, f)
			if !r.unicastWindow(si).accept(f.Seq) {
				// A retransmission whose ack was lost (or a replay):
				// acknowledged again, delivered once.
				h.reject("duplicate", "unicast frame (%d, %d) delivered before", f.From, f.Seq)
				r.clock.Update(f.Clock)
				continue
			}
			h.deliver(r, rf, f.From, 1)
		case wire.TypeFlood:
			if !h.floodArrive(r, rf) {
				return
			}
		}
	}
}

// hear applies the radio model to a frame from member si at hosted node
// r: the distance between their current positions, propagation, then
// loss, with r's seeded random source.
func (h *Host) hear(r *hosted, si int) (radio.Outcome, float64) {
	d := geo.Dist(h.position(si), h.position(r.idx))
	switch {
	case !h.prop.Receive(d, r.radioRng):
		return radio.OutOfRange, d
	case h.loss.Lost(si, r.idx, d, r.radioRng):
		return radio.Lost, d
	}
	return radio.Received, d
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
		}
		rf.msg = m
	}
	return rf.msg, !rf.bad
}

// deliver traces a reception at r and steps r's protocol; false if the
// body does not decode.
func (h *Host) deliver(r *hosted, rf *rxFrame, from protocol.NodeID, hops int) bool {
	m, ok := h.message(rf)
	if !ok {
		return false
	}
	f := &rf.f
	ev := trace.Event{Ev: trace.EvRecv, Kind: m.Kind(), From: f.From, Seq: f.Seq}
	if f.Type == wire.TypeFlood {
		ev.Origin, ev.OSeq, ev.Hops = from, f.OriginSeq, hops
	}
	h.emit(r, &ev, r.clock.Update(f.Clock))
	h.cnt.delivered.Add(1)
	r.proc.Step(protocol.Receive{From: from, Hops: hops, Msg: m})
	return true
}

// floodArrive handles a flood frame r heard: deliver it if it is for r,
// relay it once if it may travel further; false if the body is bad.
func (h *Host) floodArrive(r *hosted, rf *rxFrame) bool {
	f := &rf.f
	if !r.window(h.index[f.Origin]).accept(f.OriginSeq) {
		r.clock.Update(f.Clock)
		return true // handled already: relays of relays end here
	}
	hops := int(f.Hops) + 1
	if f.Final == protocol.None || f.Final == r.id {
		if !h.deliver(r, rf, f.Origin, hops) {
			return false
		}
	} else {
		if _, ok := h.message(rf); !ok {
			return false
		}
		r.clock.Update(f.Clock)
	}
	limit := min(f.HopLimit, HopLimit)
	if f.Final == r.id || hops >= int(limit) || !r.alive {
		return true
	}
	m := rf.msg
	h.sched.push(task{at: h.now() + h.relayDelay(), kind: taskRelay, n: r, relay: &outTx{
		kind: m.Kind(), code: f.Code, body: f.Body, origin: f.Origin, oseq: f.OriginSeq,
		hops: uint8(hops), hopLimit: limit, final: f.Final}})
	return true
}

func sortInts(s []int) { slices.Sort(s) }
