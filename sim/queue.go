package sim

import "time"

// itemKind says what a queued item does when its time comes.
type itemKind uint8

const (
	itemStart   itemKind = iota // boot a node
	itemArrive                  // a frame reaches its receivers
	itemTimer                   // a protocol timer fires
	itemHello                   // a node's neighbour-discovery tick
	itemRelay                   // a node forwards a multi-hop frame
	itemFault                   // a crash or a recovery
	itemCommand                 // a workload command
)

// item is one entry of the event queue. Items with equal times run in the
// order they were queued (seq), which makes every run reproducible.
type item struct {
	at    time.Duration
	seq   uint64
	kind  itemKind
	node  int32  // node index
	gen   uint32 // the node's incarnation when queued; stale items are skipped
	timer uint64 // itemTimer: the timer ID
	ref   int    // itemFault/itemCommand: index into the scenario's lists
	f     *frame // itemArrive, itemRelay
	to    int32  // itemArrive: the only receiver (-1: everyone who heard it)
}

// queue is a binary min-heap of items ordered by (at, seq), written out by
// hand because container/heap's interface boxing costs a third of the
// simulator's time on large runs.
type queue struct {
	items []item
	seq   uint64
}

func (q *queue) len() int { return len(q.items) }

func (q *queue) push(it item) {
	q.seq++
	it.seq = q.seq
	q.items = append(q.items, it)
	i := len(q.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

func (q *queue) pop() item {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = item{}
	q.items = q.items[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.less(l, m) {
			m = l
		}
		if r < last && q.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
}

func (q *queue) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
