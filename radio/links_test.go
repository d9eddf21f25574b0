package radio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/internal/geo"

	"manetlab/mobility"
)

// TestFrameProbMatchesTransmit: the probability the ground truth uses is
// the rate at which Transmit delivers, for shadowing with each loss
// model, inside and beyond the nominal range.
func TestFrameProbMatchesTransmit(t *testing.T) {
	lossBad := 0.8
	for _, loss := range []LossConfig{{}, {P: 0.2}, {Model: LossDistance, P: 0.4}, {Model: LossGilbert, LossGood: 0.01, LossBad: &lossBad}} {
		c := defaulted(func(c *Config) {
			c.Propagation, c.Range, c.Shadowing, c.Loss = LogDistance, 200, 4, loss
		})
		for _, d := range []float64{100, 190, 200, 260, 340} {
			m := mustMedium(t, c, mobility.Static([]geo.Vec{{}, {X: d}}), 7)
			const n = 20000
			got := 0
			var out []Reception
			for k := range n {
				out = m.Transmit(0, time.Duration(k)*time.Millisecond, out[:0])
				if len(out) == 1 && out[0].Outcome == Received {
					got++
				}
			}
			within4Sigma(t, fmt.Sprintf("%s at %.0f m", c.Loss.Model, d), float64(got)/n, m.FrameProb(d), n)
		}
	}
}

// TestLinkProb: over k hellos, 1-(1-p)^k; deterministic radios give 0 or
// 1; the probability falls with distance and LinkReach bounds it.
func TestLinkProb(t *testing.T) {
	c := defaulted(func(c *Config) { c.Propagation, c.Range, c.Shadowing = LogDistance, 100, 8 })
	m := mustMedium(t, c, mobility.Static([]geo.Vec{{}, {X: 1}}), 1)
	if k := m.HellosPerWindow(); k != 3 {
		t.Fatalf("default hello timeout 3.5 periods: %d hellos per window, want 3", k)
	}
	p := m.FrameProb(130)
	if want := 1 - math.Pow(1-p, 3); math.Abs(m.LinkProb(130)-want) > 1e-12 || p < 0.2 || p > 0.5 {
		t.Errorf("at 130 m: frame %.3f link %.3f", p, m.LinkProb(130))
	}
	prev := 2.0
	for d := 1.0; d < m.Propagation().MaxRange()*1.1; d += 7 {
		q := m.LinkProb(d)
		if q > prev+1e-12 {
			t.Fatalf("LinkProb rises from %.4f to %.4f at %.0f m", prev, q, d)
		}
		prev = q
	}
	r := m.LinkReach(0.1)
	if m.LinkProb(r*1.001) >= 0.1 || m.LinkProb(r*0.999) < 0.1 {
		t.Errorf("LinkReach(0.1) = %.1f: %.4f just inside, %.4f just beyond", r, m.LinkProb(r*0.999), m.LinkProb(r*1.001))
	}
	u := mustMedium(t, defaulted(func(c *Config) { c.Range = 100 }), mobility.Static([]geo.Vec{{}, {X: 1}}), 1)
	if u.LinkProb(100) != 1 || u.LinkProb(100.01) != 0 {
		t.Errorf("unit disk: %v at the range, %v beyond", u.LinkProb(100), u.LinkProb(100.01))
	}
}

// TestLinksListsPairs: Links finds every pair at or above the asked
// probability, once, as a brute force over all pairs does.
func TestLinksListsPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pts := make([]geo.Vec, 80)
	for i := range pts {
		pts[i] = geo.Vec{X: rng.Float64() * 1000, Y: rng.Float64() * 1000}
	}
	c := defaulted(func(c *Config) { c.Propagation, c.Range, c.Shadowing = LogDistance, 120, 6 })
	m := mustMedium(t, c, mobility.Static(pts), 1)
	got := map[[2]int]bool{}
	m.Links(0, nil, 0.1, func(i, j int, p float64) {
		if i >= j || got[[2]int{i, j}] || p < 0.1 {
			t.Fatalf("pair %d-%d (p %.3f) out of order, twice or below", i, j, p)
		}
		got[[2]int{i, j}] = true
	})
	want := 0
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			if m.LinkProb(geo.Dist(pts[i], pts[j])) >= 0.1 {
				want++
				if !got[[2]int{i, j}] {
					t.Errorf("pair %d-%d missing", i, j)
				}
			}
		}
	}
	if len(got) != want || want == 0 {
		t.Errorf("%d pairs, want %d", len(got), want)
	}
}

// TestLinksAtTheRangeEdge: pairs at the range, a hair inside and a hair
// beyond it are found exactly as measuring every pair with geo.Dist
// finds them, with the same probabilities (Links skips far pairs on
// the squared distance; the ground truth must not change).
func TestLinksAtTheRangeEdge(t *testing.T) {
	const rng = 100.0
	var pts []geo.Vec
	for k, d := range []float64{rng, math.Nextafter(rng, 0), math.Nextafter(rng, 200), rng * (1 + 1e-12), rng * (1 - 1e-12), rng + 1e-7, 60, 150} {
		y := float64(k) * 1000 // pairs far apart from each other
		a := geo.Vec{X: 10 + 0.3*float64(k), Y: y}
		pts = append(pts, a, geo.Vec{X: a.X + d*0.6, Y: a.Y + d*0.8})
	}
	for _, c := range []Config{
		defaulted(func(c *Config) { c.Range = rng }),
		defaulted(func(c *Config) { c.Propagation, c.Range, c.Shadowing = LogDistance, rng, 6 }),
	} {
		m := mustMedium(t, c, mobility.Static(pts), 1)
		for _, minProb := range []float64{0.1, 0.5, 0.9} {
			type link struct {
				i, j int
				p    float64
			}
			var got, want []link
			m.Links(0, nil, minProb, func(i, j int, p float64) { got = append(got, link{i, j, p}) })
			r := m.LinkReach(minProb)*(1+1e-9) + 1e-9
			for i := range pts {
				for j := i + 1; j < len(pts); j++ {
					if d := geo.Dist(pts[i], pts[j]); d <= r {
						if p := m.LinkProb(d); p >= minProb {
							want = append(want, link{i, j, p})
						}
					}
				}
			}
			if !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("%s, min %v: links %v, want %v", c.Propagation, minProb, got, want)
			}
		}
	}
}
