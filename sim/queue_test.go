package sim

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestQueueOrder pushes items of every kind, arrivals and hellos mostly
// in time order (the lanes) and sometimes not (the heap), interleaved
// with pops, and checks that they come out by time, then push order. Some
// are due seconds ahead, past the heap's far buckets or in them.
func TestQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var q queue
	type key struct {
		at  time.Duration
		ref uint64
	}
	var ref []key // pending, in pop order
	now := time.Duration(0)
	pushes := 0
	maxHeap, maxFar, maxLane := 0, 0, [len(queue{}.lanes)]int{}
	for step := 0; step < 300000; step++ {
		if len(ref) == 0 || rng.IntN(100) < 51 {
			kind := itemKind(rng.IntN(int(itemAckSend) + 1))
			at := now + time.Duration(rng.IntN(50))
			if rng.IntN(5) == 0 {
				at = now + time.Duration(rng.Int64N(int64(3*time.Second)))
			}
			if kind == itemArrive || kind == itemHello || kind == itemAirStart || kind == itemAirEnd || kind == itemTxEnd {
				if rng.IntN(10) > 0 {
					at = now + 30 // in order, as a fixed delay
				}
			}
			pushes++
			q.push(item{at: at, kind: kind, ref: uint64(pushes)})
			maxHeap, maxFar = max(maxHeap, len(q.heap.keys)), max(maxFar, q.heap.nFar)
			for i := range q.lanes {
				maxLane[i] = max(maxLane[i], len(q.lanes[i].items)-q.lanes[i].head)
			}
			i := sort.Search(len(ref), func(i int) bool { return ref[i].at > at })
			ref = append(ref[:i], append([]key{{at, uint64(pushes)}}, ref[i:]...)...)
			continue
		}
		it := q.pop()
		if it.at != ref[0].at || it.ref != ref[0].ref {
			t.Fatalf("step %d: got (%v, %d), want (%v, %d)", step, it.at, it.ref, ref[0].at, ref[0].ref)
		}
		now = it.at
		ref = ref[1:]
		if q.len() != len(ref) {
			t.Fatalf("step %d: length %d, want %d", step, q.len(), len(ref))
		}
	}
	if pushes < 100000 || maxHeap < 10 || maxFar < 10 || slices.Min(maxLane[:]) < 10 {
		t.Fatalf("%d pushes, at most %d in the heap, %d in its far buckets, %v in the lanes: the test should use them all", pushes, maxHeap, maxFar, maxLane)
	}
}
