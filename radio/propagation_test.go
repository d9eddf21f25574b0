package radio

import (
	"math"
	"math/rand/v2"
	"testing"
)

// near compares dBm values computed along different paths.
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func mustProp(t *testing.T, c Config) Propagation {
	t.Helper()
	p, err := NewPropagation(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUnitDiskBoundary(t *testing.T) {
	p := mustProp(t, defaulted(func(c *Config) { c.Range = 100 }))
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		d    float64
		want bool
	}{{0, true}, {50, true}, {100, true}, {math.Nextafter(100, 200), false}, {150, false}} {
		if got := p.Receive(tc.d, rng); got != tc.want {
			t.Errorf("Receive(%v) = %v", tc.d, got)
		}
		if got := p.InRange(tc.d); got != tc.want {
			t.Errorf("InRange(%v) = %v", tc.d, got)
		}
	}
	if p.MaxRange() != 100 || p.Range() != 100 {
		t.Errorf("ranges %v %v, want 100", p.Range(), p.MaxRange())
	}
}

// friisRef is the free-space loss in dB at d metres for frequency f,
// written out independently of the model code.
func friisRef(f, d float64) float64 {
	lambda := 299792458.0 / f
	return 20 * math.Log10(4*math.Pi*d/lambda)
}

func TestLogDistanceThresholdDerivation(t *testing.T) {
	c := defaulted(func(c *Config) { c.Propagation = LogDistance; c.Range = 180; c.Exponent = 2.7 })
	m := mustProp(t, c).(*logDistance)
	// Friis at 1 m, 2.4 GHz: 40.05 dB (4π/λ ≈ 100.6).
	if !near(m.pl0, 40.052, 1e-3) {
		t.Errorf("PL(1m) = %v, want 40.052 dB", m.pl0)
	}
	want := 20 - friisRef(2.4e9, 1) - 10*2.7*math.Log10(180)
	if !near(m.thr, want, 1e-9) || !near(m.meanPower(180), m.thr, 1e-9) {
		t.Errorf("threshold %v, mean power at range %v, want %v", m.thr, m.meanPower(180), want)
	}
	checkBoundary(t, m, 180)

	// A given threshold moves the range to where the mean power meets it.
	thr := -75.0
	c.Threshold = &thr
	g := mustProp(t, c).(*logDistance)
	if !near(g.meanPower(g.Range()), thr, 1e-9) {
		t.Errorf("given threshold: power at range %v = %v, want %v", g.Range(), g.meanPower(g.Range()), thr)
	}
	checkBoundary(t, g, g.Range())
}

func checkBoundary(t *testing.T, p Propagation, r float64) {
	t.Helper()
	if !p.InRange(r*(1-1e-9)) || !p.InRange(r) || p.InRange(r*(1+1e-9)) {
		t.Errorf("InRange not sharp at %v", r)
	}
	if p.Range() != r {
		t.Errorf("Range() = %v, want %v", p.Range(), r)
	}
}

func TestTwoRayThresholdDerivation(t *testing.T) {
	// Crossover at 4π·1.5²/0.1249 ≈ 226 m with defaults.
	for _, tc := range []struct {
		rng   float64
		power func(d float64) float64
	}{
		{100, func(d float64) float64 { return 20 - friisRef(2.4e9, d) }},
		{250, func(d float64) float64 { return 20 + 10*math.Log10(1.5*1.5*1.5*1.5/math.Pow(d, 4)) }},
	} {
		c := defaulted(func(c *Config) { c.Propagation = TwoRay; c.Range = tc.rng })
		m := mustProp(t, c).(*twoRay)
		if !near(m.cross, 4*math.Pi*1.5*1.5*2.4e9/299792458, 1e-9) {
			t.Errorf("crossover %v", m.cross)
		}
		if want := tc.power(tc.rng); !near(m.thr, want, 1e-9) {
			t.Errorf("range %v: threshold %v, want %v", tc.rng, m.thr, want)
		}
		checkBoundary(t, m, tc.rng)
		// A threshold given as that value gives back the same range.
		thr := m.thr
		c.Threshold = &thr
		g := mustProp(t, c)
		if !near(g.Range(), tc.rng, 1e-6) {
			t.Errorf("threshold %v gives range %v, want %v", thr, g.Range(), tc.rng)
		}
	}
	m := mustProp(t, defaulted(func(c *Config) { c.Propagation = TwoRay })).(*twoRay)
	below, above := m.meanPower(math.Nextafter(m.cross, 0)), m.meanPower(math.Nextafter(m.cross, 1e9))
	if !near(below, above, 1e-9) {
		t.Errorf("two-ray is discontinuous at the crossover: %v vs %v", below, above)
	}
}

func TestShadowingTail(t *testing.T) {
	const sigma, n, draws = 6.0, 3.0, 100000
	c := defaulted(func(c *Config) { c.Propagation = LogDistance; c.Shadowing = sigma; c.Exponent = n })
	p := mustProp(t, c)
	rng := rand.New(rand.NewPCG(7, 7))
	for _, z := range []float64{-1, 0, 1, 2} {
		// The mean margin is -z·sigma at this distance, so a frame gets
		// through with probability Q(z).
		d := c.Range * math.Pow(10, z*sigma/(10*n))
		got := 0
		for range draws {
			if p.Receive(d, rng) {
				got++
			}
		}
		want := 0.5 * math.Erfc(z/math.Sqrt2)
		rate := float64(got) / draws
		if sd := math.Sqrt(want * (1 - want) / draws); math.Abs(rate-want) > 4*sd {
			t.Errorf("z=%v (d=%.1f m): received %.4f, want %.4f ± %.4f", z, d, rate, want, 4*sd)
		}
	}
	// Nothing is ever heard beyond MaxRange: the truncated tail is the cap.
	wantMax := c.Range * math.Pow(10, ShadowingCap*sigma/(10*n))
	if !near(p.MaxRange(), wantMax, 1e-6) {
		t.Errorf("MaxRange %v, want %v", p.MaxRange(), wantMax)
	}
	beyond := p.MaxRange() * 1.0001
	for range draws {
		if p.Receive(beyond, rng) {
			t.Fatalf("received at %v beyond MaxRange %v", beyond, p.MaxRange())
		}
	}
}
