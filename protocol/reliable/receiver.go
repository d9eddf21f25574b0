package reliable

import "manetlab/protocol"

// inbound is the receiving side of the session with one sender.
type inbound[T protocol.Message] struct {
	inc  uint64
	conn uint32
	next uint32       // the Seq to deliver next
	held map[uint32]T // arrived early, within Window of next
}

// newer reports whether session (inc, conn) comes after (inc0, conn0).
func newer(inc uint64, conn uint32, inc0 uint64, conn0 uint32) bool {
	return inc > inc0 || inc == inc0 && conn > conn0
}

// receiveData delivers d if it is next in its session, holds it if it is
// early, drops it if it is a duplicate, and acknowledges in every case but
// one: a frame of a session older than the sender's current one is ignored.
func (c *Channel[T]) receiveData(from protocol.NodeID, d Data[T], out *Output[T]) {
	in := c.in[from]
	switch {
	case in == nil || newer(d.Inc, d.Conn, in.inc, in.conn):
		// A new session, a recovered sender, or this node recovered and
		// knows nothing: start where the sender's unacknowledged frames do.
		in = &inbound[T]{inc: d.Inc, conn: d.Conn, next: max(d.Base, 1)}
		c.in[from] = in
	case newer(in.inc, in.conn, d.Inc, d.Conn):
		return
	}
	switch {
	case d.Seq < in.next: // a duplicate: the ack below repairs a lost one
	case d.Seq-in.next >= Window: // too far ahead to hold
	case d.Seq == in.next:
		out.Delivered = append(out.Delivered, Delivery[T]{From: from, Msg: d.Msg})
		in.next++
		for {
			m, ok := in.held[in.next]
			if !ok {
				break
			}
			delete(in.held, in.next)
			out.Delivered = append(out.Delivered, Delivery[T]{From: from, Msg: m})
			in.next++
		}
	default:
		if in.held == nil {
			in.held = map[uint32]T{}
		}
		in.held[d.Seq] = d.Msg
	}
	c.env.Deliver(from, Ack{Chan: c.cfg.Timer, Inc: d.Inc, Conn: d.Conn, Seq: in.next - 1})
}
