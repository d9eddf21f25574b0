package sim

import (
	"time"

	"manetlab/netstack"
)

// evHeap is the event queue's heap (the items that do not fit a lane): a
// 4-ary min-heap by (time, push order) whose keys and values are kept in
// two arrays. Sifting compares keys only, and a node's four children's
// keys are 64 bytes, one cache line, where whole items (56 bytes each)
// took four: on a large run the heap holds an item a node, far more than
// the caches.
type evHeap struct {
	keys []hkey
	vals []hval
}

type hkey struct {
	at  time.Duration
	seq uint64 // queued.seq: unique, in push order
}

// hval is a queued item without its seq (in its key).
type hval struct {
	f    *netstack.Frame
	ref  uint64
	node int32
	gen  uint32
	to   int32
	kind itemKind
}

func (v *hval) queued(seq uint64) queued {
	return queued{f: v.f, ref: v.ref, seq: seq, node: v.node, gen: v.gen, to: v.to, kind: v.kind}
}

const heapArity = 4

func (k hkey) before(o hkey) bool {
	return k.at < o.at || k.at == o.at && k.seq < o.seq
}

func (h *evHeap) Len() int { return len(h.keys) }

// Peek is the earliest item's key; the heap must not be empty.
func (h *evHeap) Peek() hkey { return h.keys[0] }

func (h *evHeap) Push(at time.Duration, v queued) {
	k := hkey{at, v.seq}
	hv := hval{f: v.f, ref: v.ref, node: v.node, gen: v.gen, to: v.to, kind: v.kind}
	h.keys = append(h.keys, k)
	h.vals = append(h.vals, hv)
	keys, vals := h.keys, h.vals
	i := len(keys) - 1
	for i > 0 {
		p := (i - 1) / heapArity
		if !k.before(keys[p]) {
			break
		}
		keys[i], vals[i] = keys[p], vals[p]
		i = p
	}
	keys[i], vals[i] = k, hv
}

// Pop removes and returns the earliest item; the heap must not be empty.
func (h *evHeap) Pop() (time.Duration, queued) {
	top, tv := h.keys[0], h.vals[0]
	last := len(h.keys) - 1
	k, v := h.keys[last], h.vals[last]
	h.vals[last] = hval{}
	h.keys, h.vals = h.keys[:last], h.vals[:last]
	if last > 0 {
		keys, vals := h.keys, h.vals
		// Move the hole at the root down to a leaf along the smallest
		// children, then sift the last item up from there: most end near
		// the bottom, so this compares less than sifting it down.
		i := 0
		for {
			c := heapArity*i + 1
			if c >= last {
				break
			}
			m := c
			for j := c + 1; j < min(c+heapArity, last); j++ {
				if keys[j].before(keys[m]) {
					m = j
				}
			}
			keys[i], vals[i] = keys[m], vals[m]
			i = m
		}
		for i > 0 {
			p := (i - 1) / heapArity
			if !k.before(keys[p]) {
				break
			}
			keys[i], vals[i] = keys[p], vals[p]
			i = p
		}
		keys[i], vals[i] = k, v
	}
	return top.at, tv.queued(top.seq)
}

// Each calls f on every item, in no particular order.
func (h *evHeap) Each(f func(at time.Duration, v queued)) {
	for i, k := range h.keys {
		f(k.at, h.vals[i].queued(k.seq))
	}
}
