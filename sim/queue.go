package sim

import (
	"time"

	"manetlab/netstack"
)

// itemKind says what a queued item does when its time comes.
type itemKind uint8

const (
	itemStart     itemKind = iota // boot a node
	itemArrive                    // a frame reaches its receivers
	itemTimer                     // a protocol timer fires
	itemHello                     // a node's neighbour-discovery tick
	itemRelay                     // a node forwards a multi-hop frame
	itemRetx                      // a unicast's acknowledgement is overdue
	itemDiscovery                 // an AODV route discovery's wait is over
	itemFault                     // a crash or a recovery
	itemCommand                   // a workload command
	// The DCF medium's (radio.mac dcf):
	itemAirStart // a frame starts at its receivers
	itemAirEnd   // a frame ends at its receivers
	itemAccess   // a node's backoff is over
	itemTxEnd    // a node's transmission is over
	itemAckWait  // a node's acknowledgement did not come
	itemAckSend  // a node acknowledges a frame
)

// item is one entry of the event queue. Items with equal times run in the
// order they were queued, which makes every run reproducible.
type item struct {
	at   time.Duration
	kind itemKind
	node int32  // node index
	gen  uint32 // the node's incarnation when queued; stale items are skipped
	// ref is, for itemTimer, the timer ID; for itemRetx, the frame's
	// sequence number; for itemDiscovery, the discovery's generation; for
	// itemFault and itemCommand, the index into the scenario's list.
	ref uint64
	f   *netstack.Frame // itemArrive, itemRelay
	to  int32           // itemRetx: the link's other end; itemDiscovery: the destination
	// seq is the item's place in the order of pushes, set by pop: a
	// pending item's name in a schedule (control.go).
	seq uint64
}

// queued is an item as the queue holds it, without its time (kept
// beside it) and packed: the queue's memory traffic is a good part of a
// large run's time.
type queued struct {
	f    *netstack.Frame
	ref  uint64
	seq  uint64 // the order of pushes, across the heap and the lanes
	node int32
	gen  uint32
	to   int32
	kind itemKind
}

// queue is the simulator's event queue. Most items are frame arrivals one
// delay after their send and hello ticks one period after the last one:
// pushed in time order, so each kind goes to a lane, a FIFO, as long as
// its time is not before the lane's last; the rest (timers, relays, the
// first hellos, unicast arrivals, ...) to a heap. Pop takes the earliest
// of the lanes' heads and the heap's top by (time, push order): exactly
// the order of one heap, for less work and memory traffic.
type queue struct {
	heap  evHeap
	lanes [4]lane // arrivals (ideal) or frame starts (DCF), hellos, frame ends, transmission ends
	seq   uint64
	n     int
	now   time.Duration // the time of the item popped last
}

// lane is a FIFO of items in (time, push order).
type lane struct {
	items []laned
	head  int
}

type laned struct {
	at time.Duration
	v  queued
}

func (q *queue) len() int { return q.n }

func (q *queue) push(it item) {
	q.seq++
	q.n++
	v := queued{f: it.f, ref: it.ref, seq: q.seq, node: it.node, gen: it.gen, to: it.to, kind: it.kind}
	l := -1
	switch it.kind {
	case itemArrive, itemAirStart:
		l = 0
	case itemHello:
		l = 1
	case itemAirEnd:
		l = 2
	case itemTxEnd:
		l = 3
	}
	if l >= 0 {
		ln := &q.lanes[l]
		if n := len(ln.items); n == ln.head || it.at >= ln.items[n-1].at {
			ln.items = append(ln.items, laned{it.at, v})
			return
		}
	}
	q.heap.Push(it.at, v, q.now)
}

func (q *queue) pop() item {
	// The earliest candidate: -1 the heap, else a lane.
	best := -1
	var at time.Duration
	var seq uint64
	if q.heap.Len() > 0 {
		k := q.heap.Peek()
		at, seq = k.at, k.seq
	}
	for i := range q.lanes {
		ln := &q.lanes[i]
		if ln.head == len(ln.items) {
			continue
		}
		h := &ln.items[ln.head]
		if (best == -1 && q.heap.Len() == 0) || h.at < at || h.at == at && h.v.seq < seq {
			best, at, seq = i, h.at, h.v.seq
		}
	}
	q.n--
	var v queued
	if best == -1 {
		at, v = q.heap.Pop()
	} else {
		ln := &q.lanes[best]
		v = ln.items[ln.head].v
		ln.items[ln.head].v.f = nil
		ln.head++
		switch {
		case ln.head == len(ln.items):
			ln.items, ln.head = ln.items[:0], 0
		case ln.head >= 4096 && 2*ln.head >= len(ln.items):
			n := copy(ln.items, ln.items[ln.head:])
			clear(ln.items[n:])
			ln.items, ln.head = ln.items[:n], 0
		}
	}
	q.now = at
	return item{at: at, kind: v.kind, node: v.node, gen: v.gen, ref: v.ref, f: v.f, to: v.to, seq: v.seq}
}
