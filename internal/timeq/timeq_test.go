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
