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
//
// Items due more than a bucket (2^farShift ns, 16.8 ms) ahead, mostly the
// next hello of every node, wait in a ring of buckets instead (far), in
// push order, and join the heap when the heap's earliest item reaches
// their bucket: the heap holds the next few milliseconds' items, not one
// a node, so it stays small enough for the caches. The order the items
// leave in is the same, (time, push order), whichever way they went.
type evHeap struct {
	keys []hkey
	vals []hval
	// far[b%farBuckets] holds the items of bucket b (time >> farShift),
	// for cur <= b < cur+farBuckets; nFar counts them.
	far  [][]hitem
	cur  int64
	nFar int
}

type hitem struct {
	k hkey
	v hval
}

const (
	farShift   = 24
	farBuckets = 128 // 2.1 s ahead: a hello period of 1 s and its jitter
)

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

func (h *evHeap) Len() int { return len(h.keys) + h.nFar }

// Peek is the earliest item's key; the heap must not be empty. It moves
// the far buckets the earliest item may be in to the heap: Pop takes the
// item Peek named.
func (h *evHeap) Peek() hkey {
	for h.nFar > 0 && (len(h.keys) == 0 || int64(h.keys[0].at)>>farShift >= h.cur) {
		b := &h.far[h.cur%farBuckets]
		for _, it := range *b {
			h.push(it.k, it.v)
		}
		h.nFar -= len(*b)
		clear(*b)
		*b = (*b)[:0]
		h.cur++
	}
	return h.keys[0]
}

// Push adds v, due at; now is the time of the item popped last (no item
// is due before it).
func (h *evHeap) Push(at time.Duration, v queued, now time.Duration) {
	k := hkey{at, v.seq}
	hv := hval{f: v.f, ref: v.ref, node: v.node, gen: v.gen, to: v.to, kind: v.kind}
	b := int64(at) >> farShift
	if h.nFar == 0 {
		h.cur = int64(now) >> farShift
	}
	if b > h.cur && b-h.cur < farBuckets {
		if h.far == nil {
			h.far = make([][]hitem, farBuckets)
		}
		h.far[b%farBuckets] = append(h.far[b%farBuckets], hitem{k, hv})
		h.nFar++
		return
	}
	h.push(k, hv)
}

func (h *evHeap) push(k hkey, hv hval) {
	h.keys = append(h.keys, k)
	h.vals = append(h.vals, hv)
	h.siftUp(len(h.keys)-1, k, hv)
}

// siftUp puts k and its value at the hole i or above it, moving down the
// parents that come after it.
func (h *evHeap) siftUp(i int, k hkey, v hval) {
	keys, vals := h.keys, h.vals
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

// Pop removes and returns the earliest item, which Peek named.
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
		h.siftUp(i, k, v)
	}
	return top.at, tv.queued(top.seq)
}

// Each calls f on every item, in no particular order.
func (h *evHeap) Each(f func(at time.Duration, v queued)) {
	for i, k := range h.keys {
		f(k.at, h.vals[i].queued(k.seq))
	}
	for _, b := range h.far {
		for i := range b {
			f(b[i].k.at, b[i].v.queued(b[i].k.seq))
		}
	}
}
