package node

import "time"

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
	seq   uint64
	kind  taskKind
	n     *hosted
	id    uint64 // taskTimer: timer ID; taskRetx: the frame's sequence number
	dest  int    // taskRetx: destination member index
	relay *outTx // taskRelay
	ref   int    // taskCommand: index into the workload
}

// schedule is a binary min-heap of tasks ordered by (at, seq).
type schedule struct {
	items []task
	seq   uint64
}

func (q *schedule) len() int { return len(q.items) }

func (q *schedule) peek() time.Duration { return q.items[0].at }

func (q *schedule) push(t task) {
	q.seq++
	t.seq = q.seq
	q.items = append(q.items, t)
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

func (q *schedule) pop() task {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = task{}
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

func (q *schedule) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
