package analysis

import (
	"math"
	"math/rand"
	"testing"

	"manetlab/trace"
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
			case r < 4 && (trial%5 != 0 || rng.Intn(40) == 0): // every fifth: many lines at one time, past the window's winMax
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

// eventHash tells two events apart exactly when their canonical lines
// differ: the same string in another field, a nil pointer against a zero
// value, -0 against 0.
func TestEventHashFollowsTheLine(t *testing.T) {
	zero, negZero, one := 0.0, math.Copysign(0, -1), 1.0
	evs := []trace.Event{
		{T: 5, Node: 3, Ev: trace.EvSend, Kind: "x"},
		{T: 5, Node: 3, Ev: trace.EvSend, Reason: "x"},
		{T: 5, Node: 3, Ev: trace.EvSend, Text: "x"},
		{T: 5, Node: 3, Ev: trace.EvSend},
		{T: 5, Node: 3, Ev: trace.EvSend, From: 7},
		{T: 5, Node: 3, Ev: trace.EvSend, To: 7},
		{T: 5, Node: 7, Ev: trace.EvSend},
		{T: 5, Node: 3, Ev: trace.EvSend, HLC: &trace.HLC{}},
		{T: 5, Node: 3, Ev: trace.EvSend, HLC: &trace.HLC{Logical: 1}},
		{T: 5, Node: 3, Ev: "leader", Value: &zero},
		{T: 5, Node: 3, Ev: "leader", Value: &negZero},
		{T: 5, Node: 3, Ev: "leader", Value: &one},
		{T: 5, Node: 3, Ev: "leader"},
		{T: 5, Node: 3, Ev: trace.EvPosition, Pos: &[3]float64{}},
		{T: 5, Node: 3, Ev: trace.EvPosition, Pos: &[3]float64{0, 1, 0}},
		{T: 5, Node: 3, Ev: trace.EvPosition, Pos: &[3]float64{1, 0, 0}},
		{T: 5, Node: 3, Ev: trace.EvHeader, Schema: 1, Run: "r"},
		{T: 5, Node: 3, Ev: trace.EvHeader, Schema: 1, Host: "r"},
		{T: 6, Node: 3, Ev: trace.EvSend, Kind: "x"},
	}
	for i := range evs {
		for j := range evs {
			a, b := evs[i], cloneEvent(evs[j]) // equal events behind other pointers
			same := string(trace.AppendJSON(nil, &a)) == string(trace.AppendJSON(nil, &b))
			if (eventHash(&a) == eventHash(&b)) != same {
				t.Errorf("%s and %s: hashes equal %v, lines equal %v", trace.AppendJSON(nil, &a), trace.AppendJSON(nil, &b), !same, same)
			}
		}
	}
}

// cloneEvent copies e with pointers of its own.
func cloneEvent(e trace.Event) trace.Event {
	if e.HLC != nil {
		h := *e.HLC
		e.HLC = &h
	}
	if e.Value != nil {
		v := *e.Value
		e.Value = &v
	}
	if e.Pos != nil {
		p := *e.Pos
		e.Pos = &p
	}
	return e
}
