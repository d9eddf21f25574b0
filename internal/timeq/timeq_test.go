package timeq

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestQueueOrdersByTimeThenInsertion(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q Queue[int]
	type key struct {
		at  time.Duration
		ref int
	}
	var want []key
	for i := 0; i < 2000; i++ {
		at := time.Duration(rng.IntN(50))
		q.Push(at, i)
		want = append(want, key{at, i})
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for i, w := range want {
		if q.Peek() != w.at {
			t.Fatalf("peek %d: %v, want %v", i, q.Peek(), w.at)
		}
		at, v := q.Pop()
		if at != w.at || v != w.ref {
			t.Fatalf("pop %d: got (%v,%d), want (%v,%d)", i, at, v, w.at, w.ref)
		}
	}
	if q.Len() != 0 {
		t.Fatalf("queue not empty: %d", q.Len())
	}
}

// TestQueueInterleaved pushes and pops in random interleavings, with
// times at or after the last popped one (as a simulator does), and
// compares with a sorted list.
func TestQueueInterleaved(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q Queue[int]
	type key struct {
		at  time.Duration
		ref int
	}
	var ref []key // pending, in pop order
	now := time.Duration(0)
	next := 0
	for step := 0; step < 200000; step++ {
		if len(ref) == 0 || rng.IntN(100) < 52 {
			at := now + time.Duration(rng.IntN(40))
			q.Push(at, next)
			i := sort.Search(len(ref), func(i int) bool { return ref[i].at > at })
			ref = append(ref[:i], append([]key{{at, next}}, ref[i:]...)...)
			next++
			continue
		}
		at, v := q.Pop()
		if at != ref[0].at || v != ref[0].ref {
			t.Fatalf("step %d: got (%v,%d), want (%v,%d)", step, at, v, ref[0].at, ref[0].ref)
		}
		now = at
		ref = ref[1:]
		if q.Len() != len(ref) {
			t.Fatalf("step %d: length %d, want %d", step, q.Len(), len(ref))
		}
	}
	if next < 50000 {
		t.Fatalf("only %d pushes", next)
	}
}
