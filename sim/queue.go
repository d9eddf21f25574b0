package sim

import (
	"time"

	"manetlab/internal/timeq"
)

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
// order they were queued, which makes every run reproducible.
type item struct {
	at    time.Duration
	kind  itemKind
	node  int32  // node index
	gen   uint32 // the node's incarnation when queued; stale items are skipped
	timer uint64 // itemTimer: the timer ID
	ref   int    // itemFault/itemCommand: index into the scenario's lists
	f     *frame // itemArrive, itemRelay
	to    int32  // itemArrive: the only receiver (-1: everyone who heard it)
}

// queue is the simulator's event queue.
type queue struct{ timeq.Queue[item] }

func (q *queue) len() int { return q.Len() }

func (q *queue) push(it item) { q.Push(it.at, it) }

func (q *queue) pop() item {
	_, it := q.Pop()
	return it
}
