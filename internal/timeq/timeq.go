// Package timeq is the event queue of both drivers: a 4-ary min-heap of
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

// arity is the number of children of a heap node: a 4-ary heap is half
// as deep as a binary one, and a node's children share a cache line or
// two, which matters once the queue outgrows the caches (a 100,000-node
// simulation holds hundreds of thousands of items).
const arity = 4

// PeekValue is the earliest value; the queue must not be empty.
func (q *Queue[T]) PeekValue() T { return q.items[0].v }

// Push queues v at time at.
func (q *Queue[T]) Push(at time.Duration, v T) {
	q.seq++
	e := entry[T]{at, q.seq, v}
	q.items = append(q.items, e)
	i := len(q.items) - 1
	for i > 0 {
		p := (i - 1) / arity
		if !e.before(&q.items[p]) {
			break
		}
		q.items[i] = q.items[p]
		i = p
	}
	q.items[i] = e
}

// Pop removes and returns the earliest value and its time; the queue must
// not be empty.
func (q *Queue[T]) Pop() (time.Duration, T) {
	top := q.items[0]
	last := len(q.items) - 1
	e := q.items[last]
	q.items[last] = entry[T]{}
	q.items = q.items[:last]
	if last == 0 {
		return top.at, top.v
	}
	// The hole at the root goes down to a leaf, always to the earliest
	// child, and the last entry, e, rises from there to its place: it
	// belongs near the bottom, so this takes fewer comparisons than
	// sinking e from the root (Floyd's bottom-up variant).
	items := q.items
	i := 0
	for {
		c := arity*i + 1
		if c >= last {
			break
		}
		m := c
		for k := c + 1; k < min(c+arity, last); k++ {
			if items[k].before(&items[m]) {
				m = k
			}
		}
		items[i] = items[m]
		i = m
	}
	for i > 0 {
		p := (i - 1) / arity
		if !e.before(&items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = e
	return top.at, top.v
}

// before orders entries by time, then by the order they were pushed.
func (a *entry[T]) before(b *entry[T]) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// Each calls f with every queued value and its time, in no particular
// order (heap order): for a driver that lists what is pending, not for
// taking values in time order.
func (q *Queue[T]) Each(f func(at time.Duration, v T)) {
	for i := range q.items {
		f(q.items[i].at, q.items[i].v)
	}
}
