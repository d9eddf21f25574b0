package mobility

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/internal/geo"
	"manetlab/internal/units"
)

func rwpConfig() Config {
	return Config{Model: ModelRandomWaypoint, Area: [2]float64{300, 200}, Speed: [2]float64{2, 15}, Pause: units.Duration(4 * time.Second)}
}

func rwp(t *testing.T, c Config, seed uint64) *Set {
	t.Helper()
	start := []geo.Vec{{X: 10, Y: 10}, {X: 150, Y: 100, Z: 1.5}, {X: 299, Y: 199}, {}}
	s, err := RandomWaypoint(start, c, 10*time.Minute, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return s
}

func TestRandomWaypointReproducible(t *testing.T) {
	a, b := rwp(t, rwpConfig(), 7), rwp(t, rwpConfig(), 7)
	for i := range a.Len() {
		if !reflect.DeepEqual(a.Trajectory(i), b.Trajectory(i)) {
			t.Fatalf("seed 7, node %d: two runs differ", i)
		}
	}
	if c := rwp(t, rwpConfig(), 8); reflect.DeepEqual(a.Trajectory(0), c.Trajectory(0)) {
		t.Error("seeds 7 and 8 gave node 0 the same trajectory")
	}
}

func TestRandomWaypointInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		c := rwpConfig()
		if seed%2 == 0 {
			c.Pause = 0
		}
		s := rwp(t, c, seed)
		if s.MaxSpeed() > c.Speed[1]*(1+1e-9) {
			t.Fatalf("seed %d: MaxSpeed %g above %g", seed, s.MaxSpeed(), c.Speed[1])
		}
		for i := range s.Len() {
			tr := s.Trajectory(i)
			if tr[0].Start != 0 {
				t.Fatalf("seed %d node %d: first leg at %v", seed, i, tr[0].Start)
			}
			z := tr[0].From.Z
			if last := tr[len(tr)-1]; last.Vel != (geo.Vec{}) || last.Start < 10*time.Minute-c.Pause.D() {
				t.Fatalf("seed %d node %d: last leg %+v should stop near the end", seed, i, last)
			}
			moves := 0
			for k, l := range tr[:len(tr)-1] {
				next := tr[k+1]
				if next.Start <= l.Start {
					t.Fatalf("seed %d node %d: legs %d and %d not increasing", seed, i, k, k+1)
				}
				if l.Vel == (geo.Vec{}) {
					// A stop between two moves lasts exactly the pause.
					if k > 0 && next.Start-l.Start != c.Pause.D() {
						t.Fatalf("seed %d node %d leg %d: paused %v, want %v", seed, i, k, next.Start-l.Start, c.Pause)
					}
					continue
				}
				moves++
				if v := l.Vel.Len(); v < c.Speed[0]*(1-1e-9) || v > c.Speed[1]*(1+1e-9) {
					t.Fatalf("seed %d node %d leg %d: speed %g outside %v", seed, i, k, v, c.Speed)
				}
				if end := l.at(next.Start); !near(end, next.From, 1e-6) {
					t.Fatalf("seed %d node %d leg %d: ends at %+v, next starts at %+v", seed, i, k, end, next.From)
				}
				if k > 0 && c.Pause == 0 && tr[k-1].Vel == (geo.Vec{}) {
					t.Fatalf("seed %d node %d: a stop leg with pause 0", seed, i)
				}
			}
			if moves < 3 {
				t.Fatalf("seed %d node %d: only %d moves in 10 minutes", seed, i, moves)
			}
			for at := time.Duration(0); at <= 11*time.Minute; at += 700 * time.Millisecond {
				p := s.Position(i, at)
				if p.X < -1e-9 || p.X > c.Area[0]+1e-9 || p.Y < -1e-9 || p.Y > c.Area[1]+1e-9 || p.Z != z {
					t.Fatalf("seed %d node %d at %v: %+v leaves the area %v", seed, i, at, p, c.Area)
				}
			}
		}
	}
}

func TestRandomWaypointRejectsBadConfig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for name, tc := range map[string]struct {
		edit func(*Config)
		want string
	}{
		"min speed 0":  {func(c *Config) { c.Speed[0] = 0 }, "Random waypoint considered harmful"},
		"min over max": {func(c *Config) { c.Speed = [2]float64{5, 2} }, "mobility.speed: minimum 5 is above maximum 2"},
		"flat area":    {func(c *Config) { c.Area[1] = 0 }, "mobility.area"},
		"negative":     {func(c *Config) { c.Pause = -1 }, "mobility.pause"},
	} {
		c := rwpConfig()
		tc.edit(&c)
		_, err := RandomWaypoint([]geo.Vec{{}}, c, time.Minute, rng)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", name, err, tc.want)
		}
	}
}

// TestRandomWaypointHugeLegsEnd: a travel time beyond what a duration
// holds used to convert to a negative duration and loop for ever; it is
// cut to MaxLeg, and the generator returns.
func TestRandomWaypointHugeLegsEnd(t *testing.T) {
	for _, c := range []Config{
		{Model: ModelRandomWaypoint, Area: [2]float64{1e308, 1e308}, Speed: [2]float64{1, 20}},
		{Model: ModelRandomWaypoint, Area: [2]float64{1000, 1000}, Speed: [2]float64{1e-12, 1e-12}},
	} {
		s, err := RandomWaypoint([]geo.Vec{{X: 1, Y: 1}}, c, time.Hour, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		tr := s.Trajectory(0)
		if len(tr) > 3 {
			t.Errorf("%+v: %d legs, want one long leg", c, len(tr))
		}
		if p := s.Position(0, 30*time.Minute); !finiteVec(p) {
			t.Errorf("%+v: position %v", c, p)
		}
	}
}

func finiteVec(p geo.Vec) bool {
	return p.X-p.X == 0 && p.Y-p.Y == 0 && p.Z-p.Z == 0
}
