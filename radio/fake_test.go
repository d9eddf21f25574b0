package radio

import (
	"math/rand/v2"
	"time"

	"manetlab/internal/geo"
)

// fakeModel is a mobility.Model of straight lines: node i is at
// pos[i] + vel[i]·t forever.
type fakeModel struct {
	pos, vel []geo.Vec
}

func (f *fakeModel) Len() int { return len(f.pos) }

func (f *fakeModel) Position(i int, t time.Duration) geo.Vec {
	if f.vel == nil {
		return f.pos[i]
	}
	return f.pos[i].Add(f.vel[i].Scale(t.Seconds()))
}

func (f *fakeModel) MaxSpeed() float64 {
	s := 0.0
	for _, v := range f.vel {
		s = max(s, v.Len())
	}
	return s
}

func (f *fakeModel) Changes() []time.Duration { return []time.Duration{0} }

// staticModel places nodes at the given positions.
func staticModel(pos ...geo.Vec) *fakeModel { return &fakeModel{pos: pos} }

// randomModel scatters n nodes uniformly in a side×side square; with
// speed > 0 every node but a few also moves in a random direction at up to
// speed m/s.
func randomModel(rng *rand.Rand, n int, side, speed float64) *fakeModel {
	f := &fakeModel{pos: make([]geo.Vec, n)}
	for i := range f.pos {
		f.pos[i] = geo.Vec{X: rng.Float64() * side, Y: rng.Float64() * side}
	}
	if speed > 0 {
		f.vel = make([]geo.Vec, n)
		for i := range f.vel {
			if i%7 == 0 {
				continue // some stay put
			}
			v := geo.Vec{X: rng.NormFloat64(), Y: rng.NormFloat64()}
			f.vel[i] = v.Scale(speed * rng.Float64() / v.Len())
		}
	}
	return f
}

// defaulted returns a Config after Defaults with edit applied first.
func defaulted(edit func(*Config)) Config {
	var c Config
	if edit != nil {
		edit(&c)
	}
	c.Defaults()
	return c
}
