package sim

import (
	"fmt"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/trace"
)

// link is a node's netstack.Driver in the simulator: the stack's frames go
// on the medium, its timers in the event queue, its events to the
// protocol and the node's trace.
type link struct {
	w *world
	n *node
}

func (l *link) Now() time.Duration { return l.w.now }

// Transmit puts a copy of f on the air: on the ideal medium it reaches
// its receivers one radio delay later, where each decides with its own
// radio (arrive); on the DCF medium it starts at them after the signal
// delay, for its airtime (airStart).
func (l *link) Transmit(f *netstack.Frame) {
	w := l.w
	w.res.Frames++
	if f.Type == netstack.Hello {
		w.res.Hellos++
	}
	if w.net.MAC != nil {
		w.q.push(item{at: w.now + netstack.SignalDelay, kind: itemAirStart, node: f.From, f: w.newFrame(f)})
		return
	}
	w.q.push(item{at: w.now + w.delay, kind: itemArrive, node: f.From, f: w.newFrame(f)})
}

// Encode sizes the message: its msgpack encoding's length, counted
// rather than kept.
func (l *link) Encode(f *netstack.Frame) bool {
	f.Bytes = l.w.msgSize(f.Msg)
	return true
}

// Decode has nothing to do: the simulator's frames carry their message.
func (l *link) Decode(*netstack.Frame) bool { return true }

func (l *link) Up(ev protocol.Event) {
	l.w.stepped = l.w.now
	l.n.proc.Step(ev)
}

func (l *link) SetTimer(after time.Duration, t netstack.Timer) {
	if t.Kind == 0 || int(t.Kind) >= len(timerItems) {
		panic(fmt.Sprintf("sim: unknown stack timer kind %d", t.Kind))
	}
	l.w.q.push(item{at: l.w.now + after, kind: timerItems[t.Kind], node: int32(l.n.index), gen: l.n.gen,
		to: t.Peer, ref: t.Ref, f: t.Frame})
}

// timerItems are the queue's item kinds of the stack's timer kinds.
var timerItems = [...]itemKind{netstack.TimerHello: itemHello, netstack.TimerRetx: itemRetx,
	netstack.TimerRelay: itemRelay, netstack.TimerDiscovery: itemDiscovery,
	netstack.TimerAccess: itemAccess, netstack.TimerTxEnd: itemTxEnd,
	netstack.TimerAckWait: itemAckWait, netstack.TimerAckSend: itemAckSend}

func (l *link) Trace(ev *trace.Event) {
	ev.T, ev.Node = int64(l.w.now), l.n.id
	if ev.Ev == trace.EvSend && ev.Kind != "hello" {
		l.w.res.Messages[ev.Kind]++
	}
	l.w.out.node(l.n.index, ev)
}

// netTimer hands a stack timer back to its node's stack.
func (w *world) netTimer(n *node, it item) {
	n.stack.Timer(netstack.Timer{Kind: itemTimers[it.kind], Peer: it.to, Ref: it.ref, Frame: it.f})
}

// itemTimers are the stack's timer kinds of the queue's item kinds
// (timerItems reversed; 0 for the items that are not stack timers).
var itemTimers = func() (t [itemAckSend + 1]netstack.TimerKind) {
	for k, ik := range timerItems {
		if k > 0 {
			t[ik] = netstack.TimerKind(k)
		}
	}
	return t
}()

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

// newFrame is a copy of f, in a frame that is done with if there is one.
func (w *world) newFrame(f *netstack.Frame) *netstack.Frame {
	n := len(w.frames)
	if n == 0 {
		p := new(netstack.Frame)
		*p = *f
		return p
	}
	p := w.frames[n-1]
	w.frames = w.frames[:n-1]
	*p = *f
	return p
}

// freeFrame keeps f for re-use: nothing refers to it any more.
func (w *world) freeFrame(f *netstack.Frame) {
	f.Msg = nil
	if len(w.frames) < 1024 {
		w.frames = append(w.frames, f)
	}
}

// arrive hands a frame to the live nodes whose radio it reaches: the
// medium lists those within the propagation model's maximum range at the
// time of arrival, and each receiver's radio decides with its own random
// source, as a real node's does. A unicast or an acknowledgement is heard
// by its receiver alone (overhearing is not modelled).
func (w *world) arrive(it item) {
	f := it.f
	defer w.freeFrame(f)
	if f.To >= 0 {
		r := &w.all[f.To]
		if !r.alive {
			return
		}
		if d := w.medium.Dist(int(f.From), int(f.To), w.now); d <= w.maxRange && !w.isCut(f.From, f.To) {
			r.stack.Heard(f, radio.Hear(w.prop, w.loss, int(f.From), int(f.To), d, r.radioRng))
		}
		return
	}
	rx := w.medium.Near(int(f.From), w.now, &w.rx)
	w.warmNodes(rx, f.Type == netstack.Hello)
	for _, rc := range rx {
		r := &w.all[rc.Node]
		if r.alive && !w.isCut(f.From, int32(rc.Node)) {
			r.stack.Heard(f, radio.Hear(w.prop, w.loss, int(f.From), rc.Node, rc.Dist, r.radioRng))
		}
	}
}

// warmNodes touches the state of every receiver in rx before they are
// visited: these loads do not depend on each other, so the CPU overlaps
// their cache misses, which the loop that visits them would take one by
// one (on a large run, most of the time of a frame). For a hello, each
// receiver's neighbour table too (Stack.WarmNeighbors).
func (w *world) warmNodes(rx []radio.Reception, hello bool) {
	var warm uint64
	if hello {
		for _, rc := range rx {
			r := &w.all[rc.Node]
			warm += uint64(r.gen) + r.stack.WarmNeighbors()
		}
	} else {
		for _, rc := range rx {
			warm += uint64(w.all[rc.Node].gen)
		}
	}
	w.warm += warm
}
