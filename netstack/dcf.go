package netstack

import (
	"time"

	"manetlab/trace"
)

// macState is what a node's DCF is doing with the head of its queue.
type macState uint8

const (
	macIdle    macState = iota // nothing to send
	macContend                 // deferring or counting down the backoff
	macTx                      // the head is on the air
	macWaitAck                 // the head was sent; its acknowledgement is awaited
	macRTS                     // the head's RTS is on the air
	macWaitCTS                 // the head's RTS was sent; the CTS is awaited
	macGotCTS                  // the CTS came: the head goes SIFS after it
)

// mac is one node's 802.11 DCF: an interface queue, the contention
// window and backoff, the retransmission of unacknowledged frames.
type mac struct {
	q       []*Frame      // frames waiting; q[0] contends or is on the air
	from    time.Duration // the backoff counts from here while idle
	gen     uint64        // the live access, end-of-transmission or ack timer
	backoff int32         // slots left to count
	cw      int32
	retries int32 // failed attempts (after RTS/CTS: failed RTSs since the last CTS)
	long    int16 // after RTS/CTS: failed transmissions of the head itself (at most 64)
	state   macState
}

// macSend hands f to the medium: at once on the ideal medium; under DCF
// into the interface queue (a copy, unless f is a unicast frame the link
// queue keeps until the MAC is done with it).
func (s *Stack) macSend(f *Frame) {
	if s.cfg.MAC == nil {
		s.d.Transmit(f)
		return
	}
	m := &s.mac
	if len(m.q) >= s.cfg.MAC.Queue {
		if f.Type.Acknowledged() {
			s.macDone(f, false, "queue")
		} else {
			s.emit(trace.Event{Ev: trace.EvDrop, Kind: f.Kind(), Seq: f.Seq, Reason: "queue"})
		}
		return
	}
	if !f.Type.Acknowledged() {
		f = s.cfg.frameCopy(f)
	}
	m.q = append(m.q, f)
	if len(m.q) > 1 || m.state != macIdle {
		return
	}
	now := s.now()
	switch {
	case s.air.busy:
		if m.backoff == 0 {
			m.draw(s) // the medium is busy: back off
		}
	default:
		m.count(s, now)
		if m.backoff == 0 {
			// Immediate access: the medium is idle and no backoff is
			// left; go DIFS from now (ns-3's NeedBackoffUponAccess).
			m.from = max(m.from, now+s.cfg.MAC.difs)
		}
	}
	m.state = macContend
	m.schedule(s, now)
}

// draw picks a new backoff in [0, cw].
func (m *mac) draw(s *Stack) {
	m.backoff = int32(s.rng.IntN(int(m.cw) + 1))
}

// count takes the whole slots counted since m.from off the backoff; the
// medium has been idle since m.from less the interframe space.
func (m *mac) count(s *Stack, now time.Duration) {
	if m.backoff == 0 || now <= m.from {
		return
	}
	slot := s.cfg.MAC.Slot.D()
	n := int32(min((now-m.from)/slot, time.Duration(m.backoff)))
	m.backoff -= n
	m.from += time.Duration(n) * slot
}

// schedule arms the access timer when the medium is idle and the head
// contends: at the end of the wait and the backoff's slots.
func (m *mac) schedule(s *Stack, now time.Duration) {
	if m.state != macContend || s.air.busy {
		return
	}
	at := m.from + time.Duration(m.backoff)*s.cfg.MAC.Slot.D()
	m.gen++
	s.d.SetTimer(max(at-now, 0), Timer{Kind: TimerAccess, Ref: m.gen})
}

// busy: the medium became busy at now; the backoff freezes. An access
// due now goes ahead (a station cannot sense a frame begun in its slot).
func (m *mac) busy(s *Stack, now time.Duration) {
	if m.state == macIdle && s.cfg.MAC.IdleBackoff {
		// The backoff drawn after the last transmission counts down
		// while the medium is idle, queue empty or not (802.11's
		// post-backoff; ns-3 counts every Txop's slots).
		m.count(s, now)
		return
	}
	if m.state != macContend {
		return
	}
	m.count(s, now)
	if m.backoff == 0 && m.from <= now {
		return
	}
	m.gen++ // cancels the access timer
}

// idle: the medium became idle at now; the backoff counts again after
// the interframe space.
func (m *mac) idle(s *Stack, now time.Duration) {
	m.from = now + s.ifs()
	m.schedule(s, now)
}

// access runs the access timer: the head goes on the air.
func (s *Stack) access(gen uint64) {
	m := &s.mac
	if gen != m.gen || m.state != macContend && m.state != macGotCTS || len(m.q) == 0 {
		return
	}
	f := m.q[0]
	rts := s.cfg.MAC.usesRTS(f)
	if rts && m.state == macContend {
		s.sendRTS(f)
		return
	}
	if rts && m.long > 0 || !rts && m.retries > 0 {
		s.emit(trace.Event{Ev: trace.EvRetx, Kind: f.Kind(), To: s.cfg.IDs[f.To], Seq: f.Seq, Bytes: f.Bytes})
	}
	m.state = macTx
	s.radiate(f)
	m.gen++
	s.d.SetTimer(f.Airtime, Timer{Kind: TimerTxEnd, Ref: m.gen})
}

// radiate puts f on the air now, for its airtime.
func (s *Stack) radiate(f *Frame) {
	now := s.now()
	f.Airtime = s.cfg.MAC.Airtime(f)
	s.air.eifs = false
	s.txStart(now, now+f.Airtime)
	s.d.Transmit(f)
}

// txEnd runs at the end of a transmission: an unacknowledged frame is
// done; an acknowledged one waits for its acknowledgement.
func (s *Stack) txEnd(gen uint64) {
	s.carrier(s.now())
	m := &s.mac
	if gen != 0 && gen == m.gen && m.state == macRTS {
		m.state = macWaitCTS
		m.gen++
		s.d.SetTimer(s.cfg.MAC.ackWait, Timer{Kind: TimerAckWait, Ref: m.gen})
		return
	}
	if gen == 0 || gen != m.gen || m.state != macTx {
		return // an acknowledgement's end, or a stale timer
	}
	f := m.q[0]
	if !f.Type.Acknowledged() {
		s.macNext(f, true)
		return
	}
	m.state = macWaitAck
	m.gen++
	s.d.SetTimer(s.cfg.MAC.ackWait, Timer{Kind: TimerAckWait, Ref: m.gen})
}

// ackWait runs when an acknowledgement did not come: the frame contends
// again with a doubled window, or is given up after the retry limit.
func (s *Stack) ackWait(gen uint64) {
	m := &s.mac
	if gen != m.gen || m.state != macWaitAck && m.state != macWaitCTS {
		return
	}
	// retry_limit counts attempts (of the RTS, with RTS/CTS);
	// long_retry_limit those of a frame sent after RTS/CTS.
	if m.state == macWaitAck && s.cfg.MAC.usesRTS(m.q[0]) {
		if int(m.long)+1 >= s.cfg.MAC.LongRetries() {
			s.macNext(m.q[0], false)
			return
		}
		m.long++
	} else {
		if int(m.retries)+1 >= *s.cfg.MAC.RetryLimit {
			s.macNext(m.q[0], false)
			return
		}
		m.retries++
	}
	m.cw = int32(min(2*int(m.cw)+1, s.cfg.MAC.CWMax))
	m.draw(s)
	now := s.now()
	m.from = max(m.from, now+s.cfg.MAC.difs)
	m.state = macContend
	m.schedule(s, now)
}

// macAck handles an acknowledgement heard from member from.
//
// An acknowledgement that comes after its wait, while the frame contends
// or is on the air again, still counts: that never happens in the
// simulator (an acknowledgement ends within the wait, or is lost), but in
// real processes it arrives by datagram, late by the arrival lag
// (docs/node.md), and ignoring it would retransmit every frame to the
// retry limit.
func (s *Stack) macAck(from int32, seq uint64) {
	m := &s.mac
	if len(m.q) == 0 || m.q[0].To != from || m.q[0].Seq != seq || !m.q[0].Type.Acknowledged() {
		return
	}
	if m.state != macWaitAck && m.retries == 0 {
		return
	}
	m.gen++
	s.macNext(m.q[0], true)
}

// macNext ends the head's turn (sent, acknowledged, or given up), draws
// the backoff that follows every transmission, and lets the next frame
// contend.
func (s *Stack) macNext(f *Frame, ok bool) {
	m := &s.mac
	// The queue keeps its array (a few frames at most): taking the head
	// by reslicing and dropping the empty queue had every next frame
	// allocate a new one (a fifth of a DCF run's allocations).
	n := copy(m.q, m.q[1:])
	m.q[n] = nil
	m.q = m.q[:n]
	m.retries, m.long, m.cw = 0, 0, int32(s.cfg.MAC.CWMin)
	m.draw(s)
	m.state = macIdle
	now := s.now()
	if len(m.q) > 0 {
		m.state = macContend
		m.schedule(s, now)
	}
	if f.Type.Acknowledged() {
		s.macDone(f, ok, "no-ack")
	} else {
		s.cfg.frameFree(f)
	}
}

// frameCopy is a copy of f in a frame the MAC queues own, re-used once
// sent: every broadcast on the DCF medium needs one.
func (c *Config) frameCopy(f *Frame) *Frame {
	var p *Frame
	if n := len(c.macFrames); n > 0 {
		p = c.macFrames[n-1]
		c.macFrames = c.macFrames[:n-1]
	} else {
		p = new(Frame)
	}
	*p = *f
	return p
}

// frameFree keeps f, a frame of frameCopy's that nothing refers to any
// more, for re-use.
func (c *Config) frameFree(f *Frame) {
	*f = Frame{}
	if len(c.macFrames) < 4096 {
		c.macFrames = append(c.macFrames, f)
	}
}

// sendAck acknowledges frame seq from member to, SIFS after its end,
// without carrier sense.
func (s *Stack) sendAck(to int32, seq uint64) {
	s.d.SetTimer(s.cfg.MAC.SIFS.D(), Timer{Kind: TimerAckSend, Peer: to, Ref: seq})
}

// ackSend puts a due acknowledgement on the air, unless this node is
// transmitting.
func (s *Stack) ackSend(to int32, seq uint64) {
	if s.now() < s.air.txEnd {
		return
	}
	f := s.scratch(Frame{Type: Ack, To: to, AckSeq: seq})
	s.number(f)
	s.radiate(f)
	s.d.SetTimer(f.Airtime, Timer{Kind: TimerTxEnd})
}

// usesRTS reports whether f goes after an RTS/CTS exchange: an
// acknowledged frame of more than rts_threshold bytes on the air.
func (d *DCF) usesRTS(f *Frame) bool {
	return d.RTSThreshold > 0 && f.Type.Acknowledged() && WireBytes(f)+*d.Overhead > d.RTSThreshold
}

// sendRTS puts the RTS for the head f on the air: its NAV covers the CTS,
// f and f's acknowledgement, with the SIFS between.
func (s *Stack) sendRTS(f *Frame) {
	m, d := &s.mac, s.cfg.MAC
	nav := 3*d.SIFS.D() + d.ackAir + d.Airtime(f) + d.ackAir
	r := s.scratch(Frame{Type: RTS, From: s.self, To: f.To, Seq: f.Seq, Lifetime: nav})
	m.state = macRTS
	s.radiate(r)
	m.gen++
	s.d.SetTimer(r.Airtime, Timer{Kind: TimerTxEnd, Ref: m.gen})
}

// heardRTS answers an RTS for this node with a CTS SIFS after it, unless
// the NAV says the medium is reserved.
func (s *Stack) heardRTS(f *Frame) {
	if s.cfg.MAC == nil || s.now() < s.air.nav {
		return
	}
	d := s.cfg.MAC
	cts := &Frame{Type: CTS, From: s.self, To: f.From, AckSeq: f.Seq, Lifetime: max(f.Lifetime-d.SIFS.D()-d.ackAir, 0)}
	s.d.SetTimer(d.SIFS.D(), Timer{Kind: TimerAckSend, Peer: f.From, Ref: f.Seq, Frame: cts})
}

// heardCTS: the CTS for the head's RTS came; the head goes SIFS after it.
func (s *Stack) heardCTS(f *Frame) {
	m := &s.mac
	if m.state != macWaitCTS || len(m.q) == 0 || m.q[0].To != f.From || m.q[0].Seq != f.AckSeq {
		return
	}
	m.retries = 0
	m.state = macGotCTS
	m.gen++
	s.d.SetTimer(s.cfg.MAC.SIFS.D(), Timer{Kind: TimerAccess, Ref: m.gen})
}

// ctsSend puts a due CTS on the air, unless this node is transmitting.
func (s *Stack) ctsSend(cts *Frame) {
	if s.now() < s.air.txEnd {
		return
	}
	f := s.scratch(*cts)
	s.radiate(f)
	s.d.SetTimer(f.Airtime, Timer{Kind: TimerTxEnd})
}

// setNAV: an RTS or CTS for another node reserves the medium until
// until; it is busy to this node till then (virtual carrier sense).
func (s *Stack) setNAV(now, until time.Duration) {
	if until <= s.air.nav || until <= now {
		return
	}
	s.air.nav = until
	s.d.SetTimer(until-now, Timer{Kind: TimerTxEnd}) // re-senses the medium then
}
