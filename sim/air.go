package sim

import (
	"manetlab/netstack"
)

// onAir is a frame on the DCF medium: the receivers it started at (each
// in the life it had then), to end it at the same ones.
type onAir struct {
	id  uint64
	f   *netstack.Frame
	rcv []airRcv
}

type airRcv struct {
	node int32
	gen  uint32
}

// airStart starts a frame at every live node within the medium's reach:
// each is told its power, whether it senses it, and its radio's verdict
// on the frame alone (netstack.Radio, which the real node applies too;
// drawn from the receiver's own stream, as on the ideal medium); the
// frame ends at them after its airtime (airEnd).
func (w *world) airStart(it item) {
	f := it.f
	w.airID++
	slot := w.airSlot()
	a := &w.airs[slot] // stable: nothing below starts another frame
	a.id, a.f, a.rcv = w.airID, f, a.rcv[:0]
	end := w.now + f.Airtime
	rx := w.medium.Near(int(f.From), w.now, &w.rx)
	var warm uint64
	for _, rc := range rx {
		r := &w.all[rc.Node]
		warm += uint64(r.gen) + r.stack.Warm()
	}
	w.warm += warm
	for _, rc := range rx {
		r := &w.all[rc.Node]
		if !r.alive || w.isCut(f.From, int32(rc.Node)) {
			continue
		}
		sig := netstack.Signal{ID: a.id, Frame: f, Start: w.now, End: end}
		w.air.Signal(&sig, int(f.From), rc.Node, rc.Dist, r.radioRng)
		a.rcv = append(a.rcv, airRcv{node: int32(rc.Node), gen: r.gen})
		r.stack.SignalStart(sig)
	}
	w.q.push(item{at: end, kind: itemAirEnd, node: it.node, f: f, ref: uint64(slot)})
}

// airSlot is a free slot of w.airs, for a frame starting on the air.
func (w *world) airSlot() int {
	if n := len(w.airFree); n > 0 {
		i := w.airFree[n-1]
		w.airFree = w.airFree[:n-1]
		return i
	}
	w.airs = append(w.airs, onAir{})
	return len(w.airs) - 1
}

// airEnd ends a frame at the receivers it started at, those still in the
// same life.
func (w *world) airEnd(it item) {
	a := &w.airs[it.ref] // stable: nothing below starts another frame
	var warm uint64      // see airStart
	hello := a.f.Type == netstack.Hello
	for _, rc := range a.rcv {
		r := &w.all[rc.node]
		warm += uint64(r.gen) + r.stack.Warm()
		if hello {
			warm += r.stack.WarmNeighbors()
		}
	}
	w.warm += warm
	for _, rc := range a.rcv {
		r := &w.all[rc.node]
		if r.alive && r.gen == rc.gen {
			r.stack.SignalEnd(a.id)
		}
	}
	w.freeFrame(a.f)
	a.f = nil
	w.airFree = append(w.airFree, int(it.ref))
}
