package node

import (
	"time"

	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/trace"
)

// linkQueue holds the unicast frames from one hosted node to one
// neighbour: the head is in flight, the rest wait, so delivery is FIFO per
// link.
type linkQueue struct {
	pending  []*outTx
	attempts int // transmissions of the head so far
}

// outTx is a frame waiting to be sent: a unicast (its encoded datagram,
// kept for retransmission) or a flood frame to relay.
type outTx struct {
	seq   uint64
	kind  string
	to    protocol.NodeID
	bytes []byte // unicast: the datagram

	// relay: the flood to forward.
	code           uint16
	body           []byte
	origin         protocol.NodeID
	oseq           uint64
	hops, hopLimit uint8 // hops before this transmission
	final          protocol.NodeID
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
	if err := h.data.Send(b); err != nil {
		h.log.logf("send", "%v", err)
		return
	}
	h.cnt.sent.Add(1)
}

// encode gives m's wire code and body, or false (logged) for a message
// the protocol's spec does not list or that is too large: a protocol bug.
func (h *Host) encode(n *hosted, m protocol.Message) (uint16, []byte, bool) {
	code, body, err := h.codec.Encode(m)
	if err != nil {
		h.log.logf("encode", "node %d: %v", n.id, err)
		return 0, nil, false
	}
	return code, body, true
}

func (h *Host) broadcast(n *hosted, m protocol.Message) {
	code, body, ok := h.encode(n, m)
	if !ok {
		return
	}
	n.seq++
	stamp := n.clock.Now()
	// Trace before sending: a receiver on the same host may log its recv
	// before this process gets back from the socket, and the wall clocks
	// of the pair estimate clock offsets.
	h.emit(n, &trace.Event{Ev: trace.EvSend, Kind: m.Kind(), Seq: n.seq, Bytes: len(body)}, stamp)
	h.send(&wire.Frame{Type: wire.TypeBroadcast, From: n.id, Seq: n.seq, Clock: stamp, Code: code, Body: body})
}

// unicast queues m for the neighbour with member index dest; the send is
// traced now, as the simulator does, and the frame goes out when the
// frames queued before it are acknowledged or given up.
func (h *Host) unicast(n *hosted, dest int, m protocol.Message) {
	code, body, ok := h.encode(n, m)
	if !ok {
		return
	}
	to := h.members[dest].ID
	n.seq++
	stamp := n.clock.Now()
	f := wire.Frame{Type: wire.TypeUnicast, Run: h.runID, From: n.id, To: to, Seq: n.seq, Clock: stamp, Code: code, Body: body}
	b, err := f.AppendTo(nil, h.opt.Key)
	if err != nil {
		h.log.logf("encode", "%v", err)
		return
	}
	h.emit(n, &trace.Event{Ev: trace.EvSend, Kind: m.Kind(), To: to, Seq: n.seq, Bytes: len(body)}, stamp)
	q := n.queues[dest]
	if q == nil {
		q = &linkQueue{}
		n.queues[dest] = q
	}
	if len(q.pending) >= QueueLimit {
		h.emitLocal(n, &trace.Event{Ev: trace.EvDrop, Kind: m.Kind(), To: to, Seq: n.seq, Reason: "queue"})
		return
	}
	q.pending = append(q.pending, &outTx{seq: n.seq, kind: m.Kind(), to: to, bytes: b})
	if len(q.pending) == 1 {
		h.transmitHead(n, dest, q)
	}
}

// transmitHead sends the head of a link queue (again) and arms its
// retransmission: RetryBase, doubling with every attempt.
func (h *Host) transmitHead(n *hosted, dest int, q *linkQueue) {
	head := q.pending[0]
	h.transmitBytes(head.bytes)
	wait := RetryBase << q.attempts
	q.attempts++
	h.sched.push(task{at: h.now() + wait, kind: taskRetx, n: n, dest: dest, id: head.seq})
}

// retransmit runs when the head of a link queue was not acknowledged in
// time.
func (h *Host) retransmit(n *hosted, dest int, seq uint64) {
	q := n.queues[dest]
	if q == nil || len(q.pending) == 0 || q.pending[0].seq != seq {
		return // acknowledged meanwhile
	}
	if q.attempts <= Retries {
		h.transmitHead(n, dest, q)
		return
	}
	head := q.pending[0]
	h.emitLocal(n, &trace.Event{Ev: trace.EvDrop, Kind: head.kind, To: head.to, Seq: head.seq, Reason: "no-ack"})
	h.advance(n, dest, q)
}

// advance drops the head of a link queue and sends the next frame.
func (h *Host) advance(n *hosted, dest int, q *linkQueue) {
	q.pending[0] = nil
	q.pending = q.pending[1:]
	q.attempts = 0
	if len(q.pending) == 0 {
		delete(n.queues, dest) // the queue's memory goes with it
		return
	}
	h.transmitHead(n, dest, q)
}

// acked handles an acknowledgement that node n heard from member from.
func (h *Host) acked(n *hosted, from int, seq uint64) {
	q := n.queues[from]
	if q != nil && len(q.pending) > 0 && q.pending[0].seq == seq {
		h.advance(n, from, q)
	}
}

// ack acknowledges the unicast frame f to its sender.
func (h *Host) ack(n *hosted, f *wire.Frame) {
	n.seq++
	h.send(&wire.Frame{Type: wire.TypeAck, From: n.id, To: f.From, Seq: n.seq, Clock: n.clock.Now(), AckSeq: f.Seq})
}

// originate starts a multi-hop message to dest (None: everyone).
func (h *Host) originate(n *hosted, dest protocol.NodeID, m protocol.Message) {
	code, body, ok := h.encode(n, m)
	if !ok {
		return
	}
	n.oseq++
	n.window(n.idx).accept(n.oseq)
	n.seq++
	stamp := n.clock.Now()
	h.emit(n, &trace.Event{Ev: trace.EvSend, Kind: m.Kind(), Seq: n.seq, Bytes: len(body),
		Origin: n.id, OSeq: n.oseq, Hops: 1, To: dest}, stamp)
	h.send(&wire.Frame{Type: wire.TypeFlood, From: n.id, Seq: n.seq, Clock: stamp, Origin: n.id, OriginSeq: n.oseq,
		Hops: 0, HopLimit: HopLimit, Final: dest, Code: code, Body: body})
}

// relay forwards a flood frame, its jitter over.
func (h *Host) relay(n *hosted, r *outTx) {
	n.seq++
	stamp := n.clock.Now()
	h.emit(n, &trace.Event{Ev: trace.EvRelay, Kind: r.kind, Seq: n.seq, Bytes: len(r.body),
		Origin: r.origin, OSeq: r.oseq, Hops: int(r.hops) + 1, To: r.final}, stamp)
	h.send(&wire.Frame{Type: wire.TypeFlood, From: n.id, Seq: n.seq, Clock: stamp, Origin: r.origin, OriginSeq: r.oseq,
		Hops: r.hops, HopLimit: r.hopLimit, Final: r.final, Code: r.code, Body: r.body})
}

// helloTick broadcasts n's hello and declares down the neighbours not
// heard for longer than the timeout, in member order.
func (h *Host) helloTick(n *hosted) {
	n.seq++
	stamp := n.clock.Now()
	if h.s.Trace.Hello {
		h.emit(n, &trace.Event{Ev: trace.EvSend, Kind: "hello", Seq: n.seq}, stamp)
	}
	h.send(&wire.Frame{Type: wire.TypeHello, From: n.id, Seq: n.seq, Clock: stamp})
	now := h.now()
	var gone []int
	for j, last := range n.nbrs {
		if now-last > h.timeout {
			gone = append(gone, j)
		}
	}
	sortInts(gone)
	for _, j := range gone {
		delete(n.nbrs, j)
		h.neighborEvent(n, j, false)
	}
	h.sched.push(task{at: now + h.hello, kind: taskHello, n: n})
}

func (h *Host) heardHello(n *hosted, from int) {
	_, known := n.nbrs[from]
	n.nbrs[from] = h.now()
	if !known {
		h.neighborEvent(n, from, true)
	}
}

func (h *Host) neighborEvent(n *hosted, peer int, up bool) {
	id := h.members[peer].ID
	ev := trace.Event{Ev: trace.EvNbrDown, Peer: id}
	if up {
		ev.Ev = trace.EvNbrUp
	}
	h.emitLocal(n, &ev)
	if up {
		n.proc.Step(protocol.NeighborUp{ID: id})
	} else {
		n.proc.Step(protocol.NeighborDown{ID: id})
	}
}

// window is n's record of the floods of origin (a member index) it has
// handled. One window per origin that ever reached n: bounded by the
// scenario's size.
func (n *hosted) window(origin int) *seqWindow {
	w := n.seen[origin]
	if w == nil {
		w = &seqWindow{}
		n.seen[origin] = w
	}
	return w
}

// unicastWindow is n's record of the unicasts from member from it has
// delivered.
func (n *hosted) unicastWindow(from int) *seqWindow {
	w := n.unicasts[from]
	if w == nil {
		w = &seqWindow{}
		n.unicasts[from] = w
	}
	return w
}

// relayDelay is the random wait before relaying.
func (h *Host) relayDelay() time.Duration {
	return time.Duration(h.jitter.Int64N(int64(RelayJitter)))
}
