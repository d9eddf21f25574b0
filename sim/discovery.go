package sim

import (
	"cmp"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// helloTick broadcasts n's hello and declares down the neighbours it has
// not heard for longer than the timeout.
func (w *world) helloTick(n *node) {
	w.send(n, w.newFrame(frame{kind: frameHello, to: -1}))
	// Down in ascending index order, which protocols see.
	var gone []int32
	kept := n.nbrs[:0]
	for _, nb := range n.nbrs {
		if w.now-nb.last > w.timeout {
			gone = append(gone, nb.index)
		} else {
			kept = append(kept, nb)
		}
	}
	n.nbrs = kept
	for _, j := range gone {
		w.neighborEvent(n, j, false)
		if !n.alive {
			return
		}
	}
	w.q.push(item{at: w.now + w.hello, kind: itemHello, node: int32(n.index), gen: n.gen})
}

func (w *world) heardHello(r *node, from int32) {
	i, known := slices.BinarySearchFunc(r.nbrs, from, func(nb neighbor, j int32) int { return cmp.Compare(nb.index, j) })
	if known {
		r.nbrs[i].last = w.now
		return
	}
	r.nbrs = slices.Insert(r.nbrs, i, neighbor{index: from, last: w.now})
	w.neighborEvent(r, from, true)
}

// neighbor is a node heard from, in a node's neighbour list.
type neighbor struct {
	index int32
	last  time.Duration // when last heard
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
