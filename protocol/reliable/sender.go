package reliable

import (
	"math"
	"time"

	"manetlab/protocol"
)

// outbound is the sending side of the session with one peer.
type outbound[T protocol.Message] struct {
	conn    uint32 // the current session; 0 before the first
	open    bool   // a session is in progress; false after a Failure
	acked   uint32 // every Seq up to acked is acknowledged
	sent    uint32 // the highest Seq transmitted
	queue   []T    // unacknowledged messages: Seq acked+1, acked+2, ...
	retries int    // retransmissions since the last progress
	timer   protocol.TimerID
}

func (c *Channel[T]) send(to protocol.NodeID, m T) {
	o := c.out[to]
	if o == nil {
		o = &outbound[T]{}
		c.out[to] = o
	}
	if !o.open {
		*o = outbound[T]{conn: o.conn + 1, open: true}
	}
	o.queue = append(o.queue, m)
	c.transmit(to, o)
}

// transmit sends the queued messages that fit in the window for the first
// time and makes sure a retransmission timer runs while any is in flight.
func (c *Channel[T]) transmit(to protocol.NodeID, o *outbound[T]) {
	for o.sent < o.acked+uint32(len(o.queue)) && o.sent-o.acked < Window {
		o.sent++
		c.env.Deliver(to, c.frame(o, o.sent, false))
	}
	if o.sent > o.acked && o.timer == 0 {
		o.timer = c.env.SetTimer(c.backoff(o.retries), c.cfg.Timer, int64(to))
	}
}

func (c *Channel[T]) frame(o *outbound[T], seq uint32, retx bool) Data[T] {
	return Data[T]{Inc: c.inc, Conn: o.conn, Seq: seq, Base: o.acked + 1, Retx: retx, Msg: o.queue[seq-o.acked-1]}
}

// backoff is the timeout after the given number of retransmissions:
// Timeout doubled that many times, held below overflow; before the first
// retransmission, Timeout + RouteDelay (Config.RouteDelay).
func (c *Channel[T]) backoff(retries int) time.Duration {
	if retries == 0 {
		return c.cfg.FirstWait()
	}
	d := c.cfg.Timeout
	for i := 0; i < retries && d <= math.MaxInt64/2; i++ {
		d *= 2
	}
	return d
}

func (c *Channel[T]) receiveAck(from protocol.NodeID, a Ack) {
	o := c.out[from]
	// Acks of an earlier incarnation or session, stale ones and ones for
	// frames never sent are ignored.
	if o == nil || !o.open || a.Inc != c.inc || a.Conn != o.conn || a.Seq <= o.acked || a.Seq > o.sent {
		return
	}
	n := a.Seq - o.acked
	clear(o.queue[:n]) // let the acknowledged messages be collected
	o.queue = o.queue[n:]
	o.acked = a.Seq
	o.retries = 0
	c.stopTimer(o)
	c.transmit(from, o)
}

func (c *Channel[T]) stopTimer(o *outbound[T]) {
	if o.timer != 0 {
		c.env.CancelTimer(o.timer)
		o.timer = 0
	}
}

// timeout retransmits every frame in flight to the timer's peer, or
// declares the peer unreachable once Retries retransmissions went
// unanswered.
func (c *Channel[T]) timeout(e protocol.Timeout, out *Output[T]) {
	peer := protocol.NodeID(e.Arg)
	o := c.out[peer]
	if o == nil || o.timer != e.ID || e.ID == 0 {
		return // a timer this channel no longer waits for
	}
	o.timer = 0
	if o.sent == o.acked {
		return
	}
	if o.retries >= c.cfg.Retries {
		out.Unreachable = append(out.Unreachable, Failure[T]{Peer: peer, Unacked: o.queue})
		*o = outbound[T]{conn: o.conn}
		return
	}
	o.retries++
	for seq := o.acked + 1; seq <= o.sent; seq++ {
		c.env.Deliver(peer, c.frame(o, seq, true))
	}
	o.timer = c.env.SetTimer(c.backoff(o.retries), c.cfg.Timer, int64(peer))
}
