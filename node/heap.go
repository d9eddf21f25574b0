package node

import (
	"time"

	"manetlab/internal/timeq"
	"manetlab/netstack"
)

// taskKind says what a scheduled task does when its time comes.
type taskKind uint8

const (
	taskTimer   taskKind = iota // a protocol timer
	taskNet                     // a network stack's timer
	taskCommand                 // a workload command
	taskArrive                  // a datagram of the in-memory medium (virtualNet)
	taskFunc                    // a test's action (virtualNet)
	taskAirEnd                  // a frame leaves the air at the hosted nodes it started at (DCF medium)
)

// task is one entry of the loop's schedule. Tasks with equal times run in
// the order they were scheduled.
type task struct {
	at   time.Duration
	kind taskKind
	n    *hosted
	inc  uint32         // n's incarnation when scheduled: a task of an earlier life is stale
	id   uint64         // taskTimer: timer ID
	net  netstack.Timer // taskNet
	ref  int            // taskCommand: index into the workload
	data []byte         // taskArrive: the datagram
	fn   func()         // taskFunc
	air  *onAir         // taskAirEnd
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
