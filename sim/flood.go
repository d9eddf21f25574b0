package sim

import (
	"time"

	"manetlab/protocol"
)

// originate starts a multi-hop message: a flood frame that every node
// relays once, up to the hop limit, until it reaches dest (None: everyone).
func (w *world) originate(n *node, dest protocol.NodeID, m protocol.Message) {
	n.oseq++
	n.seen[floodKey{int32(n.index), n.oseq}] = struct{}{}
	w.send(n, w.newFrame(frame{kind: frameFlood, msg: m, to: -1, origin: int32(n.index), oseq: n.oseq, dest: dest, hops: 1}))
}

func (w *world) floodArrive(r *node, f *frame) {
	k := floodKey{f.origin, f.oseq}
	if _, dup := r.seen[k]; dup {
		return
	}
	r.seen[k] = struct{}{}
	if f.dest == protocol.None || f.dest == r.id {
		w.deliver(r, f, w.nodes[f.origin].id, f.hops)
		if !r.alive {
			return
		}
	}
	if f.dest == r.id || f.hops >= w.opt.HopLimit {
		return
	}
	relay := w.newFrame(frame{kind: frameFlood, msg: f.msg, bytes: f.bytes, to: -1, origin: f.origin, oseq: f.oseq, dest: f.dest, hops: f.hops + 1})
	// A short random wait before relaying, as flooding implementations do
	// to avoid every neighbour retransmitting at the same instant.
	jitter := time.Duration(w.rng.Int64N(int64(time.Millisecond)))
	w.q.push(item{at: w.now + jitter, kind: itemRelay, node: int32(r.index), gen: r.gen, f: relay})
}
