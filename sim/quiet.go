package sim

import (
	"time"

	"manetlab/netstack"
	"manetlab/trace"
)

// Quiescence (docs/trace.md, "quiet"): at the end of a run the simulator
// records whether anything was left to happen to the protocols. A run is
// quiescent when no protocol message is in flight or queued (no frame
// with a message on the air or due to arrive, no unicast waiting on a
// link, no message waiting for a route, no flood relay pending), no
// protocol timer is armed at a live node, and no fault, command or boot
// is scheduled later; the network's own periodic hellos, and the
// acknowledgements of frames already delivered, aside. Nothing then
// changes a protocol's state again but a change of the neighbours that
// the hellos report. The record is written at the end, its value the
// time in seconds of the protocols' last step (stepped): the state the
// run ends in is the state it reached then.

// recordQuiet writes the quiet record to the run file when the run is
// quiescent.
func (w *world) recordQuiet() {
	if !w.quiescent() {
		return
	}
	since := min(w.stepped, w.end).Seconds()
	w.out.run(&trace.Event{T: int64(w.end), Ev: trace.EvQuiet, Value: &since})
}

// quiescent reports whether nothing is left to happen to the protocols.
func (w *world) quiescent() bool {
	for _, n := range w.nodes {
		if n.alive && (len(n.timers) > 0 || !n.stack.Idle()) {
			return false
		}
	}
	if w.beyond != nil && w.pendingWork(*w.beyond) {
		return false
	}
	busy := false
	check := func(_ time.Duration, v queued) {
		if !busy && w.pendingWork(item{kind: v.kind, node: v.node, gen: v.gen, ref: v.ref, f: v.f}) {
			busy = true
		}
	}
	w.q.heap.Each(check)
	for i := range w.q.lanes {
		ln := &w.q.lanes[i]
		for _, l := range ln.items[ln.head:] {
			check(l.at, l.v)
		}
	}
	return !busy
}

// pendingWork reports whether the queued item it may still change a
// protocol's state: a frame that carries a message, a live node's
// protocol timer or stack work on a message, a fault, a command, a boot.
// Hello ticks, hello frames, acknowledgements, RTS and CTS and the items of a node
// that crashed since they were queued do not.
func (w *world) pendingWork(it item) bool {
	switch it.kind {
	case itemStart, itemFault, itemCommand:
		return true
	case itemArrive, itemAirStart, itemAirEnd:
		return it.f != nil && it.f.Type != netstack.Hello && it.f.Type != netstack.Ack &&
			it.f.Type != netstack.RTS && it.f.Type != netstack.CTS
	case itemHello, itemAccess, itemTxEnd, itemAckWait, itemAckSend:
		// The MAC's own timers: a protocol frame they serve is in its
		// queue, which Stack.Idle looks at.
		return false
	}
	n := w.nodes[it.node]
	if !n.alive || n.gen != it.gen {
		return false
	}
	if it.kind == itemTimer {
		for _, t := range n.timers {
			if t.id == it.ref {
				return true
			}
		}
		return false
	}
	return true // a retransmission, a relay, a route discovery
}
