package node

import (
	"time"

	"manetlab/netstack"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/trace"
)

// hostLink is a hosted node's netstack.Driver: the stack's frames are
// encoded, signed and multicast on the data group, its timers go on the
// loop's schedule, its events to the node's protocol and trace.
type hostLink struct {
	h *Host
	n *hosted
}

func (l *hostLink) Now() time.Duration { return l.h.now() }

// Transmit encodes f as a datagram stamped with the node's clock (and, on
// the DCF medium, with its start and airtime), signs it and multicasts
// it.
func (l *hostLink) Transmit(f *netstack.Frame) {
	h, n := l.h, l.n
	wf := wire.Frame{Type: wireTypes[f.Type], From: n.id, Seq: f.Seq, Clock: n.clock.Now(), AckSeq: f.AckSeq, Code: f.Code, Body: f.Body}
	if f.To >= 0 {
		wf.To = h.members[f.To].ID
	}
	if f.Airtime != 0 {
		// On the DCF medium: the transmission's start by this node's run
		// clock, which the stack's own timers follow too.
		wf.Air = wire.Air{Start: max(h.now(), 0), Airtime: f.Airtime}
	}
	switch f.Type {
	case netstack.Flood, netstack.Data:
		wf.Origin, wf.OriginSeq = h.members[f.Origin].ID, f.OSeq
		wf.Hops, wf.HopLimit, wf.Final = f.Hops, f.HopLimit, f.Final
	case netstack.RREQ:
		wf.Origin, wf.OriginSeq, wf.OrigSeq = h.members[f.Origin].ID, f.OSeq, f.OrigSeq
		wf.Final, wf.DestSeq, wf.Hops, wf.TTL = f.Final, f.DestSeq, f.Hops, f.TTL
	case netstack.RREP, netstack.AODVHello:
		wf.Origin, wf.Final, wf.DestSeq, wf.Hops = h.members[f.Origin].ID, f.Final, f.DestSeq, f.Hops
		wf.LifetimeMS = wire.LifetimeMillis(f.Lifetime)
		wf.AckRequired = f.AckRequired
	case netstack.RERR:
		// The stack's destinations, in its buffer: the wire type has the
		// same fields.
		wf.Unreachable = h.unreach[:0]
		for _, u := range f.Unreachable {
			wf.Unreachable = append(wf.Unreachable, wire.Unreachable(u))
		}
		h.unreach = wf.Unreachable
	}
	h.send(&wf)
}

// wireTypes are the wire's frame types of the stack's.
var wireTypes = [...]wire.Type{netstack.Hello: wire.TypeHello, netstack.Broadcast: wire.TypeBroadcast,
	netstack.Unicast: wire.TypeUnicast, netstack.Ack: wire.TypeAck, netstack.Flood: wire.TypeFlood,
	netstack.Data: wire.TypeData, netstack.RREQ: wire.TypeRREQ, netstack.RREP: wire.TypeRREP, netstack.RERR: wire.TypeRERR,
	netstack.AODVHello: wire.TypeAODVHello, netstack.RREPAck: wire.TypeRREPAck}

// stackType is the stack's frame type of a wire type (0 for none).
func stackType(t wire.Type) netstack.Type {
	for i, w := range wireTypes {
		if w == t && i > 0 {
			return netstack.Type(i)
		}
	}
	return 0
}

// Encode encodes the message once; its body goes out with every
// transmission and relay of the frame.
func (l *hostLink) Encode(f *netstack.Frame) bool {
	code, body, err := l.h.codec.Encode(f.Msg)
	if err != nil {
		// A message the protocol's spec does not list, or too large: a
		// protocol bug.
		l.h.log.logf("encode", "node %d: %v", l.n.id, err)
		return false
	}
	f.Code, f.Body, f.Bytes = code, body, len(body)
	return true
}

// Decode decodes the body of the frame being received, once for all the
// hosted nodes that hear it.
func (l *hostLink) Decode(f *netstack.Frame) bool {
	if f.Msg != nil {
		return true
	}
	rf := l.h.rx
	if rf == nil || &rf.nf != f {
		return false
	}
	m, ok := l.h.message(rf)
	f.Msg = m
	return ok
}

func (l *hostLink) Up(ev protocol.Event) {
	if _, ok := ev.(protocol.Receive); ok {
		l.h.cnt.delivered.Add(1)
	}
	l.n.proc.Step(ev)
}

func (l *hostLink) SetTimer(after time.Duration, t netstack.Timer) {
	l.h.sched.push(task{at: l.h.now() + after, kind: taskNet, n: l.n, inc: l.n.inc, net: t})
}

// Trace writes ev to the node's trace. The reception of the frame being
// received (recv, or a drop by the radio) is stamped by merging the
// frame's clock into the node's; every other event by a tick of the
// node's clock.
func (l *hostLink) Trace(ev *trace.Event) {
	h, n := l.h, l.n
	if rf := h.rx; rf != nil && !h.rxStamped && (ev.Ev == trace.EvRecv || ev.Ev == trace.EvDrop && ev.From != 0) {
		h.rxStamped = true
		h.emit(n, ev, n.clock.Update(rf.f.Clock))
		return
	}
	h.emitLocal(n, ev)
}

// send signs and multicasts one frame on the data group.
func (h *Host) send(f *wire.Frame) []byte {
	f.Run = h.runID
	var err error
	h.txbuf, err = f.AppendTo(h.txbuf[:0], h.opt.Key)
	if err != nil {
		h.log.logf("encode", "%v", err)
		return nil
	}
	h.transmitBytes(h.txbuf)
	return h.txbuf
}

func (h *Host) transmitBytes(b []byte) {
	if h.virt != nil {
		h.virt.transmit(b)
		h.cnt.sent.Add(1)
		return
	}
	if err := h.data.Send(b); err != nil {
		h.log.logf("send", "%v", err)
		return
	}
	h.cnt.sent.Add(1)
}
