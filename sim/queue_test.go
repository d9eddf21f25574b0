package sim

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestQueueOrdersByTimeThenInsertion(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q queue
	type key struct {
		at  time.Duration
		ref int
	}
	var want []key
	for i := 0; i < 2000; i++ {
		at := time.Duration(rng.IntN(50))
		q.push(item{at: at, ref: i})
		want = append(want, key{at, i})
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for i, w := range want {
		it := q.pop()
		if it.at != w.at || it.ref != w.ref {
			t.Fatalf("pop %d: got (%v,%d), want (%v,%d)", i, it.at, it.ref, w.at, w.ref)
		}
	}
	if q.len() != 0 {
		t.Fatalf("queue not empty: %d", q.len())
	}
}
