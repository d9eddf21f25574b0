package node

import (
	"time"

	"manetlab/internal/timeq"
)

// taskKind says what a scheduled task does when its time comes.
type taskKind uint8

const (
	taskTimer   taskKind = iota // a protocol timer
	taskHello                   // a neighbour-discovery tick
	taskRetx                    // a unicast's acknowledgement is overdue
	taskRelay                   // forward a flood frame after its jitter
	taskCommand                 // a workload command
)

// task is one entry of the loop's schedule. Tasks with equal times run in
// the order they were scheduled.
type task struct {
	at    time.Duration
	kind  taskKind
	n     *hosted
	id    uint64 // taskTimer: timer ID; taskRetx: the frame's sequence number
	dest  int    // taskRetx: destination member index
	relay *outTx // taskRelay
	ref   int    // taskCommand: index into the workload
}

// schedule is the loop's timer queue.
type schedule struct{ timeq.Queue[task] }

func (q *schedule) len() int { return q.Len() }

func (q *schedule) peek() time.Duration { return q.Peek() }

func (q *schedule) push(t task) { q.Push(t.at, t) }

func (q *schedule) pop() task {
	_, t := q.Pop()
	return t
}
