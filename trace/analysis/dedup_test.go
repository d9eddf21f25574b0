package analysis

import (
	"math/rand"
	"testing"
)

// The window finds what a map of every line finds, whatever the times.
func TestDedupMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for trial := range 200 {
		var d dedup
		all := map[uint64]uint64{}
		type line struct {
			t     int64
			h, at uint64
		}
		var past []line
		tm := int64(0)
		back := trial%2 == 0
		for i := range 300 {
			switch r := rng.Intn(10); {
			case r < 4:
				tm++
			case r == 4 && back:
				tm -= int64(rng.Intn(5))
			}
			// The hash is a function of the time and a few values, so
			// that lines repeat only at one time, as real duplicates do.
			h := uint64(tm)<<8 | uint64(rng.Intn(3+trial%40))
			at := uint64(i)
			want, wantDup := all[h]
			if !wantDup {
				all[h] = at
			}
			got, dup := d.seen(tm, h, at, func(add func(h, at uint64)) {
				for _, l := range past {
					add(l.h, l.at)
				}
			})
			if dup != wantDup || dup && got != want {
				t.Fatalf("trial %d line %d: got (%d, %v), want (%d, %v)", trial, i, got, dup, want, wantDup)
			}
			past = append(past, line{tm, h, at})
		}
	}
}
