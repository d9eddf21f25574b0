package sim

import (
	"sort"

	"manetlab/protocol"
	"manetlab/trace"
)

// helloTick broadcasts n's hello and declares down the neighbours it has
// not heard for longer than the timeout.
func (w *world) helloTick(n *node) {
	w.send(n, &frame{kind: frameHello, to: -1})
	var gone []int32
	for j, last := range n.nbrs {
		if w.now-last > w.timeout {
			gone = append(gone, j)
		}
	}
	// Map order is random; protocols must see a reproducible order.
	sort.Slice(gone, func(a, b int) bool { return gone[a] < gone[b] })
	for _, j := range gone {
		delete(n.nbrs, j)
		w.neighborEvent(n, j, false)
		if !n.alive {
			return
		}
	}
	w.q.push(item{at: w.now + w.hello, kind: itemHello, node: int32(n.index), gen: n.gen})
}

func (w *world) heardHello(r *node, from int32) {
	_, known := r.nbrs[from]
	r.nbrs[from] = w.now
	if !known {
		w.neighborEvent(r, from, true)
	}
}

func (w *world) neighborEvent(n *node, peer int32, up bool) {
	id := w.nodes[peer].id
	ev := trace.Event{T: int64(w.now), Node: n.id, Ev: trace.EvNbrDown, Peer: id}
	if up {
		ev.Ev = trace.EvNbrUp
	}
	w.out.node(n.index, &ev)
	if up {
		n.proc.Step(protocol.NeighborUp{ID: id})
	} else {
		n.proc.Step(protocol.NeighborDown{ID: id})
	}
}
