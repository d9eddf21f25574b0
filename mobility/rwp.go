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
		for t < duration {
			dest := geo.Vec{X: rng.Float64() * c.Area[0], Y: rng.Float64() * c.Area[1], Z: p.Z}
			speed := lo + rng.Float64()*(hi-lo)
			travel := time.Duration(math.Round(geo.Dist(p, dest) / speed * float64(time.Second)))
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
