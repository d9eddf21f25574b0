package sim

import (
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/trace"
)

type frameKind uint8

const (
	frameBroadcast frameKind = iota
	frameUnicast
	frameFlood
	frameHello
)

// frame is one radio transmission. A multi-hop message is a new frame at
// every hop, sharing its origin and origin sequence.
type frame struct {
	kind  frameKind
	from  int32  // transmitting node index
	seq   uint64 // transmitter's sequence number
	msg   protocol.Message
	bytes int
	to    int32 // unicast destination index; -1 otherwise
	rx    []radio.Reception

	origin int32 // multi-hop: originating node index
	oseq   uint64
	dest   protocol.NodeID // multi-hop: destination; None = everyone
	hops   int
}

// msgSize is the size of m encoded as msgpack.Marshal encodes it,
// counted rather than kept.
func (w *world) msgSize(m protocol.Message) int {
	if w.enc == nil {
		w.enc = msgpack.NewEncoder(&w.size)
	}
	w.size = 0
	if err := w.enc.Encode(m); err != nil {
		w.enc = nil // start afresh after a failed encoding
		return 0
	}
	return int(w.size)
}

// byteCount is an io.Writer that counts what it is given.
type byteCount int

func (c *byteCount) Write(b []byte) (int, error) {
	*c += byteCount(len(b))
	return len(b), nil
}

func (c *byteCount) WriteByte(byte) error {
	*c++
	return nil
}

// newFrame is a frame like f, re-using one that is done with.
func (w *world) newFrame(f frame) *frame {
	n := len(w.frames)
	if n == 0 {
		p := new(frame)
		*p = f
		return p
	}
	p := w.frames[n-1]
	w.frames = w.frames[:n-1]
	f.rx = p.rx[:0]
	*p = f
	return p
}

// freeFrame keeps f for re-use: nothing refers to it any more.
func (w *world) freeFrame(f *frame) {
	f.msg = nil
	if len(w.frames) < 1024 {
		w.frames = append(w.frames, f)
	}
}

// send transmits a broadcast, flood or hello frame from n: the radio model
// decides now who hears it, and they get it one delay later.
func (w *world) send(n *node, f *frame) {
	n.seq++
	f.from, f.seq = int32(n.index), n.seq
	w.res.Frames++
	if f.kind == frameHello {
		w.res.Hellos++
	} else if f.bytes == 0 {
		f.bytes = w.msgSize(f.msg)
	}
	if w.traced(f) {
		ev := trace.Event{T: int64(w.now), Node: n.id, Ev: trace.EvSend, Kind: w.kindOf(f), Seq: f.seq, Bytes: f.bytes}
		if f.kind == frameFlood {
			ev.Origin, ev.OSeq, ev.Hops, ev.To = w.nodes[f.origin].id, f.oseq, f.hops, f.dest
			if f.origin != f.from {
				ev.Ev = trace.EvRelay
			}
		}
		if f.kind == frameBroadcast || f.kind == frameFlood && f.origin == f.from {
			w.res.Messages[ev.Kind]++
		}
		w.out.node(n.index, &ev)
	}
	f.rx = w.medium.Transmit(n.index, w.now, f.rx[:0])
	w.q.push(item{at: w.now + w.delay, kind: itemArrive, node: int32(n.index), f: f, to: -1})
}

func (w *world) traced(f *frame) bool { return f.kind != frameHello || w.s.Trace.Hello }

func (w *world) kindOf(f *frame) string {
	if f.kind == frameHello {
		return "hello"
	}
	return f.msg.Kind()
}

// unicast sends m to one neighbour with per-hop acknowledgement: up to
// Retries retransmissions, each costing a data and an ack time, delivered
// in FIFO order per link.
func (w *world) unicast(n *node, to int32, m protocol.Message) {
	n.seq++
	f := w.newFrame(frame{kind: frameUnicast, from: int32(n.index), seq: n.seq, msg: m, bytes: w.msgSize(m), to: to})
	w.res.Frames++
	w.res.Messages[m.Kind()]++
	dst := w.nodes[to]
	w.out.node(n.index, &trace.Event{T: int64(w.now), Node: n.id, Ev: trace.EvSend, Kind: m.Kind(), To: dst.id, Seq: f.seq, Bytes: f.bytes})
	for a := 0; a <= w.opt.Retries; a++ {
		w.rx = w.medium.Transmit(n.index, w.now, w.rx[:0])
		if !heard(w.rx, to) {
			continue
		}
		at := w.now + w.delay + time.Duration(a)*2*w.delay
		if last := n.fifo[to]; at <= last {
			at = last + 1
		}
		n.fifo[to] = at
		w.q.push(item{at: at, kind: itemArrive, node: int32(n.index), f: f, to: to})
		return
	}
	w.out.node(n.index, &trace.Event{T: int64(w.now), Node: n.id, Ev: trace.EvDrop, Kind: m.Kind(), To: dst.id, Seq: f.seq, Reason: "no-ack"})
}

func heard(rx []radio.Reception, to int32) bool {
	for _, r := range rx {
		if r.Node == int(to) {
			return r.Outcome == radio.Received
		}
	}
	return false
}

// arrive hands a frame to the nodes that heard it.
func (w *world) arrive(it item) {
	f := it.f
	defer w.freeFrame(f)
	if it.to >= 0 {
		if r := w.nodes[it.to]; r.alive {
			w.deliver(r, f, w.nodes[f.from].id, 1)
		}
		return
	}
	// Touch every receiver's state first: these loads do not depend on
	// each other, so the CPU overlaps their cache misses, which in the
	// loop below it would take one by one (on a large run, most of the
	// time of a frame).
	var warm uint64
	for _, rc := range f.rx {
		r := &w.all[rc.Node]
		warm += uint64(r.gen) + uint64(r.nbrBuf[len(r.nbrBuf)/2].last)
	}
	w.warm += warm
	for _, rc := range f.rx {
		r := w.nodes[rc.Node]
		if !r.alive {
			continue
		}
		if rc.Outcome != radio.Received {
			if w.traced(f) {
				w.out.node(r.index, &trace.Event{T: int64(w.now), Node: r.id, Ev: trace.EvDrop, Kind: w.kindOf(f),
					From: w.nodes[f.from].id, Seq: f.seq, Reason: rc.Outcome.DropReason()})
			}
			continue
		}
		switch f.kind {
		case frameHello:
			w.heardHello(r, f.from)
		case frameBroadcast:
			w.deliver(r, f, w.nodes[f.from].id, 1)
		case frameFlood:
			w.floodArrive(r, f)
		}
	}
}

// deliver traces a reception and steps the receiver's protocol.
func (w *world) deliver(r *node, f *frame, from protocol.NodeID, hops int) {
	ev := trace.Event{T: int64(w.now), Node: r.id, Ev: trace.EvRecv, Kind: f.msg.Kind(), From: w.nodes[f.from].id, Seq: f.seq}
	if f.kind == frameFlood {
		ev.Origin, ev.OSeq, ev.Hops = from, f.oseq, hops
	}
	w.out.node(r.index, &ev)
	r.proc.Step(protocol.Receive{From: from, Hops: hops, Msg: f.msg})
}
