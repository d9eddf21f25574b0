package mobility

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"manetlab/internal/geo"
)

// RandomWaypoint returns a Set in which every node, from start[i], repeats
// until duration: pick a destination uniform in c.Area (keeping its
// height), a speed uniform in c.Speed, travel there, pause c.Pause. Nodes
// draw from rng one after another in node order, so a seed reproduces the
// whole Set. Each node stops at its last destination, which it may reach
// after duration.
func RandomWaypoint(start []geo.Vec, c Config, duration time.Duration, rng *rand.Rand) (*Set, error) {
	if err := checkArea(c.Area); err != nil {
		return nil, fmt.Errorf("mobility.area: %w", err)
	}
	if err := checkSpeed(c.Speed); err != nil {
		return nil, fmt.Errorf("mobility.speed: %w", err)
	}
	if c.Pause < 0 {
		return nil, fmt.Errorf("mobility.pause: %v is negative (want 0 or above)", c.Pause)
	}
	if rng == nil {
		return nil, fmt.Errorf("random waypoint: no random source")
	}
	lo, hi := c.Speed[0], c.Speed[1]
	trajs := make([]Trajectory, len(start))
	for i, p := range start {
		tr := Trajectory{{From: p}}
		var t time.Duration
		if c.Start == StartSteadyState {
			tr, t, p = steadyStart(p.Z, c, rng)
		}
		for t < duration {
			dest := geo.Vec{X: rng.Float64() * c.Area[0], Y: rng.Float64() * c.Area[1], Z: p.Z}
			speed := lo + rng.Float64()*(hi-lo)
			travel := legDuration(geo.Dist(p, dest) / speed)
			if travel > 0 {
				tr = appendLeg(tr, legTo(t, p, dest, t+travel))
				t += travel
				p = dest
				tr = append(tr, Leg{Start: t, From: p})
			}
			t += c.Pause.D()
			if travel == 0 && c.Pause == 0 {
				// Two draws landing on the same point would loop forever
				// without advancing time; this only guards against it.
				t++
			}
		}
		trajs[i] = tr
	}
	return NewSet(trajs), nil
}

// MaxLeg is the longest leg a duration can hold in nanoseconds with room
// to add it to a time within the run: 2^62 ns, about 146 years. A leg's
// travel time beyond it (a huge area, a tiny speed) is cut to it; the
// node is then still travelling when any run ends. Config limits refuse
// such scenarios first (see LegLimit); this keeps the generator from
// converting an out-of-range float to a duration, which gave negative
// times and a loop that never ended.
const MaxLeg = time.Duration(1 << 62)

// legDuration converts a travel time in seconds to a duration, at most
// MaxLeg.
func legDuration(sec float64) time.Duration {
	ns := math.Round(sec * float64(time.Second))
	if !(ns < float64(MaxLeg)) { // also NaN
		return MaxLeg
	}
	return time.Duration(ns)
}
