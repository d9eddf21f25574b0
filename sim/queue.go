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
	at   time.Duration
	kind itemKind
	node int32  // node index
	gen  uint32 // the node's incarnation when queued; stale items are skipped
	// ref is, for itemTimer, the timer ID; for itemFault and itemCommand,
	// the index into the scenario's list.
	ref uint64
	f   *frame // itemArrive, itemRelay
	to  int32  // itemArrive: the only receiver (-1: everyone who heard it)
}

// queued is an item as the queue holds it, without its time (the queue
// keeps that) and packed in 32 bytes: the queue's memory traffic is a
// good part of a large run's time.
type queued struct {
	f    *frame
	ref  uint64
	node int32
	gen  uint32
	to   int32
	kind itemKind
}

// queue is the simulator's event queue.
type queue struct{ timeq.Queue[queued] }

func (q *queue) len() int { return q.Len() }

func (q *queue) push(it item) {
	q.Push(it.at, queued{f: it.f, ref: it.ref, node: it.node, gen: it.gen, to: it.to, kind: it.kind})
}

func (q *queue) pop() item {
	at, v := q.Pop()
	return item{at: at, kind: v.kind, node: v.node, gen: v.gen, ref: v.ref, f: v.f, to: v.to}
}
