package netstack

import (
	"manetlab/protocol"
	"manetlab/trace"
)

// linkQueue holds the unicast frames from this node to one neighbour: the
// head is in flight, the rest wait, so delivery is FIFO per link.
type linkQueue struct {
	pending  []*Frame
	attempts int // transmissions of the head so far
}

// Send sends m to the neighbour to in one hop: queued behind the frames
// already waiting on that link, acknowledged by the receiver, and
// retransmitted after RetryBase, doubling, up to Retries times before it
// is dropped ("no-ack"). The send is traced now; a retransmission is
// traced as "retx".
func (s *Stack) Send(to protocol.NodeID, m protocol.Message) {
	j, ok := s.cfg.Index[to]
	if !ok || s.stopped {
		return
	}
	f := &Frame{Type: Unicast, To: j, Msg: m}
	if !s.d.Encode(f) {
		return
	}
	s.number(f)
	s.emit(trace.Event{Ev: trace.EvSend, Kind: m.Kind(), To: to, Seq: f.Seq, Bytes: f.Bytes, Text: f.Says()})
	s.enqueue(f)
}

// enqueue puts f, numbered and traced, on the link queue to its receiver
// f.To; it is sent when the frames queued before it are acknowledged or
// given up.
func (s *Stack) enqueue(f *Frame) {
	j := f.To
	if s.queues == nil {
		s.queues = map[int32]*linkQueue{}
	}
	q := s.queues[j]
	if q == nil {
		q = &linkQueue{}
		s.queues[j] = q
	}
	if len(q.pending) >= s.cfg.QueueLimit {
		s.emit(trace.Event{Ev: trace.EvDrop, Kind: f.Kind(), To: s.cfg.IDs[j], Seq: f.Seq, Reason: "queue"})
		return
	}
	q.pending = append(q.pending, f)
	if len(q.pending) == 1 {
		s.transmitHead(j, q)
	}
}

// transmitHead sends the head of a link queue (again) and arms its
// retransmission: RetryBase, doubling with every attempt. Under DCF the
// MAC acknowledges and retransmits, and says when it is done (macDone).
func (s *Stack) transmitHead(dest int32, q *linkQueue) {
	head := q.pending[0]
	if s.cfg.MAC != nil {
		s.macSend(head)
		return
	}
	if q.attempts > 0 {
		s.emit(trace.Event{Ev: trace.EvRetx, Kind: head.Kind(), To: s.cfg.IDs[dest], Seq: head.Seq, Bytes: head.Bytes})
	}
	s.d.Transmit(head)
	wait := s.cfg.RetryBase << q.attempts
	q.attempts++
	s.d.SetTimer(wait, Timer{Kind: TimerRetx, Peer: dest, Ref: head.Seq})
}

// retransmit runs when the head of a link queue may not have been
// acknowledged in time.
func (s *Stack) retransmit(dest int32, seq uint64) {
	q := s.queues[dest]
	if q == nil || len(q.pending) == 0 || q.pending[0].Seq != seq {
		return // acknowledged meanwhile
	}
	if q.attempts <= s.cfg.Retries {
		s.transmitHead(dest, q)
		return
	}
	s.giveUp(dest, q, "no-ack")
}

// giveUp drops the head of a link queue for reason and sends the next
// frame; a frame not acknowledged breaks the link's routes.
func (s *Stack) giveUp(dest int32, q *linkQueue, reason string) {
	head := q.pending[0]
	s.emit(trace.Event{Ev: trace.EvDrop, Kind: head.Kind(), To: s.cfg.IDs[dest], Seq: head.Seq, Reason: reason})
	s.advance(dest, q)
	if reason == "no-ack" && s.cfg.Routing == RoutingAODV {
		if head.Type == RREP {
			s.replyLost(dest)
		}
		if s.cfg.AODV.linkFeedback() {
			s.linkBroken(dest)
		}
	}
}

// macDone: the DCF is done with f, the head of its link queue:
// acknowledged (ok), or given up for reason.
func (s *Stack) macDone(f *Frame, ok bool, reason string) {
	q := s.queues[f.To]
	if q == nil || len(q.pending) == 0 || q.pending[0] != f {
		return
	}
	if ok {
		s.advance(f.To, q)
		return
	}
	s.giveUp(f.To, q, reason)
}

// advance drops the head of a link queue and sends the next frame.
func (s *Stack) advance(dest int32, q *linkQueue) {
	q.pending[0] = nil
	q.pending = q.pending[1:]
	q.attempts = 0
	if len(q.pending) == 0 {
		delete(s.queues, dest) // the queue's memory goes with it
		return
	}
	s.transmitHead(dest, q)
}

// acked handles an acknowledgement from member from.
func (s *Stack) acked(from int32, seq uint64) {
	q := s.queues[from]
	if q != nil && len(q.pending) > 0 && q.pending[0].Seq == seq {
		s.advance(from, q)
	}
}

// heardUnicast acknowledges an acknowledged frame addressed to this node
// (a unicast, routed data or a route reply) and handles it once: a
// retransmission whose acknowledgement was lost is acknowledged again,
// not handled again.
func (s *Stack) heardUnicast(f *Frame) Verdict {
	if f.Type.HasBody() && !s.d.Decode(f) {
		return BadBody // not acknowledged: the sender gives up
	}
	first := windowOf(&s.unicasts, f.From).Accept(f.Seq)
	from := s.cfg.IDs[f.From]
	if first && f.Type == Unicast {
		s.traceRecv(f, from, 1)
	}
	s.emit(trace.Event{Ev: trace.EvAck, Kind: f.Kind(), To: from, Seq: f.Seq})
	if s.cfg.MAC != nil {
		s.sendAck(f.From, f.Seq)
	} else {
		s.transmitNew(s.scratch(Frame{Type: Ack, To: f.From, AckSeq: f.Seq}), trace.Event{})
	}
	if !first {
		return Duplicate
	}
	switch f.Type {
	case Data:
		s.heardData(f)
	case RREP:
		s.heardRREP(f)
	case RREPAck:
		s.heardRREPAck(f.From)
	default:
		s.d.Up(protocol.Receive{From: from, Hops: 1, Msg: f.Msg})
	}
	return Handled
}
