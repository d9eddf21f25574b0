// Package timeq is the event queue of both drivers: a binary min-heap of
// values ordered by time, values with equal times in the order they were
// pushed, which is what makes the simulator reproducible. It is written
// out by hand rather than over container/heap, whose interface boxing cost
// a third of the simulator's time on large runs.
//
// It imports only the standard library; both drivers use it.
package timeq

import "time"

// Queue holds values of type T by time. The zero Queue is empty and ready.
type Queue[T any] struct {
	items []entry[T]
	seq   uint64
}

type entry[T any] struct {
	at  time.Duration
	seq uint64
	v   T
}

// Len is the number of queued values.
func (q *Queue[T]) Len() int { return len(q.items) }

// Peek is the time of the earliest value; the queue must not be empty.
func (q *Queue[T]) Peek() time.Duration { return q.items[0].at }

// Push queues v at time at.
func (q *Queue[T]) Push(at time.Duration, v T) {
	q.seq++
	q.items = append(q.items, entry[T]{at, q.seq, v})
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

// Pop removes and returns the earliest value and its time; the queue must
// not be empty.
func (q *Queue[T]) Pop() (time.Duration, T) {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = entry[T]{}
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
			return top.at, top.v
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
}

func (q *Queue[T]) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}
