package mobility

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/internal/geo"
)

func TestSetPositionMatchesLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tr := Trajectory{{From: geo.Vec{X: 1, Y: 2}}}
	for k := 1; k < 50; k++ {
		tr = append(tr, Leg{
			Start: tr[k-1].Start + time.Duration(1+rng.IntN(5))*time.Second,
			From:  geo.Vec{X: rng.Float64() * 100, Y: rng.Float64() * 100},
			Vel:   geo.Vec{X: rng.Float64() - 0.5, Y: rng.Float64() - 0.5},
		})
	}
	s := NewSet([]Trajectory{tr})
	end := tr[len(tr)-1].Start + 10*time.Second
	for at := time.Duration(0); at < end; at += 250 * time.Millisecond {
		k := 0
		for j, l := range tr {
			if l.Start <= at {
				k = j
			}
		}
		want := tr[k].From.Add(tr[k].Vel.Scale((at - tr[k].Start).Seconds()))
		if got := s.Position(0, at); !near(got, want, 1e-12) {
			t.Fatalf("at %v: got %+v, want %+v (leg %d)", at, got, want, k)
		}
	}
	if got := s.Position(0, -time.Second); got != tr[0].From {
		t.Errorf("before the first leg: got %+v, want %+v", got, tr[0].From)
	}
}

func TestSetMaxSpeedAndChanges(t *testing.T) {
	s := NewSet([]Trajectory{
		{{From: geo.Vec{}}, {Start: 3 * time.Second, Vel: geo.Vec{X: 3, Y: 4}}, {Start: 5 * time.Second, From: geo.Vec{X: 6, Y: 8}}},
		{{From: geo.Vec{X: 1}, Vel: geo.Vec{Z: -2}}, {Start: 3 * time.Second, From: geo.Vec{X: 1, Z: -6}}},
		nil,
	})
	if s.Len() != 3 {
		t.Fatalf("Len = %d, want 3", s.Len())
	}
	if got := s.MaxSpeed(); got != 5 {
		t.Errorf("MaxSpeed = %g, want 5", got)
	}
	want := []time.Duration{0, 3 * time.Second, 5 * time.Second}
	if got := s.Changes(); !slices.Equal(got, want) {
		t.Errorf("Changes = %v, want %v", got, want)
	}
	s.Changes()[0] = time.Hour // a caller's change must not leak in
	if got := s.Changes(); !slices.Equal(got, want) {
		t.Errorf("Changes after caller modified a copy = %v, want %v", got, want)
	}
	if got := s.Position(2, time.Second); got != (geo.Vec{}) {
		t.Errorf("node without legs at %+v, want the origin", got)
	}
	wantAt(t, s, 1, 1.5, geo.Vec{X: 1, Z: -3})
}

func TestStatic(t *testing.T) {
	pos := []geo.Vec{{X: 1, Y: 2, Z: 3}, {X: -4, Y: 5}}
	s := Static(pos)
	if s.Len() != 2 || s.MaxSpeed() != 0 || !slices.Equal(s.Changes(), []time.Duration{0}) {
		t.Fatalf("Static: Len %d MaxSpeed %g Changes %v", s.Len(), s.MaxSpeed(), s.Changes())
	}
	for i, p := range pos {
		for _, at := range []float64{0, 1, 1e6} {
			wantAt(t, s, i, at, p)
		}
	}
}

// BenchmarkPosition measures the hot path the radio calls per frame.
func BenchmarkPosition(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	s, err := RandomWaypoint(make([]geo.Vec, 100), Config{Area: [2]float64{1000, 1000}, Speed: [2]float64{1, 20}}, time.Hour, rng)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		s.Position(i%100, time.Duration(i)*time.Millisecond%time.Hour)
	}
}

func TestStopAtHaltsEveryNodeWhereItIs(t *testing.T) {
	s := NewSet([]Trajectory{
		{{Start: 0, From: geo.Vec{}, Vel: geo.Vec{X: 2}}, {Start: 10 * time.Second, From: geo.Vec{X: 20}, Vel: geo.Vec{Y: 1}}},
		{{Start: 0, From: geo.Vec{X: 5}}},
	})
	st := s.StopAt(4 * time.Second)
	for _, at := range []time.Duration{4 * time.Second, 9 * time.Second, time.Minute} {
		if p := st.Position(0, at); p != (geo.Vec{X: 8}) {
			t.Fatalf("node 0 at %v: %v, want stopped at x=8", at, p)
		}
	}
	if p := st.Position(0, 2*time.Second); p != (geo.Vec{X: 4}) {
		t.Fatalf("before the stop: %v", p)
	}
	if p := st.Position(1, time.Minute); p != (geo.Vec{X: 5}) {
		t.Fatalf("a static node moved: %v", p)
	}
	if c := st.Changes(); c[len(c)-1] != 4*time.Second {
		t.Fatalf("last change %v, want the stop", c[len(c)-1])
	}
}
