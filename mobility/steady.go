package mobility

import (
	"math"
	"math/rand/v2"
	"time"

	"manetlab/internal/geo"
)

// steadyStart is a node's first state under random waypoint in its
// steady state (Navidi and Camp, "Stationary distributions for the random
// waypoint mobility model", IEEE TMC 2004), drawn as ns-3.37's
// SteadyStateRandomWaypointMobilityModel draws it: paused with the
// stationary probability of a pause, for part of it, at a uniform point;
// else on a leg whose ends are drawn with density proportional to their
// distance, at a uniform point of it, at a speed of density proportional
// to 1/v on [min, max]. It returns the trajectory so far, when it ends
// and where the node then is, height z.
func steadyStart(z float64, c Config, rng *rand.Rand) (Trajectory, time.Duration, geo.Vec) {
	a, b := c.Area[0], c.Area[1]
	v0, v1 := c.Speed[0], c.Speed[1]
	pause := c.Pause.D().Seconds()
	if u := rng.Float64(); u < pause/(pause+expectedTravel(a, b, v0, v1)) {
		p := geo.Vec{X: rng.Float64() * a, Y: rng.Float64() * b, Z: z}
		wait := legDuration(rng.Float64() * pause)
		return Trajectory{{From: p}}, wait, p
	}
	var x1, y1, x2, y2 float64
	for u, r := 1.0, 0.0; u >= r; {
		x1, y1 = rng.Float64()*a, rng.Float64()*b
		x2, y2 = rng.Float64()*a, rng.Float64()*b
		u = rng.Float64()
		r = math.Sqrt(((x2-x1)*(x2-x1) + (y2-y1)*(y2-y1)) / (a*a + b*b))
	}
	u := rng.Float64()
	p := geo.Vec{X: u*x1 + (1-u)*x2, Y: u*y1 + (1-u)*y2, Z: z}
	dest := geo.Vec{X: x2, Y: y2, Z: z}
	w := rng.Float64()
	speed := math.Pow(v1, w) / math.Pow(v0, w-1)
	travel := legDuration(geo.Dist(p, dest) / speed)
	if travel == 0 {
		return Trajectory{{From: p}}, 0, p
	}
	tr := Trajectory{legTo(0, p, dest, travel), {Start: travel, From: dest}}
	return tr, travel + c.Pause.D(), dest
}

// expectedTravel is the mean time of a random waypoint leg in an a x b
// rectangle at a speed uniform in [v0, v1] (Navidi and Camp; ns-3's
// formula).
func expectedTravel(a, b, v0, v1 float64) float64 {
	log1 := b * b / a * math.Log(math.Sqrt(a*a/(b*b)+1)+a/b)
	log2 := a * a / b * math.Log(math.Sqrt(b*b/(a*a)+1)+b/a)
	d := (log1+log2)/6 + (a*a*a/(b*b)+b*b*b/(a*a))/15 - math.Sqrt(a*a+b*b)*(a*a/(b*b)+b*b/(a*a)-3)/15
	if v0 == v1 {
		return d / v0
	}
	return d * math.Log(v1/v0) / (v1 - v0)
}
