package radio

import (
	"math"
	"math/rand/v2"
	"testing"
)

func mustLoss(t *testing.T, c Config) Loss {
	t.Helper()
	l, err := NewLoss(c)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// lossRate draws n frames on link 0->1 at distance d.
func lossRate(l Loss, d float64, n int, rng *rand.Rand) float64 {
	lost := 0
	for range n {
		if l.Lost(0, 1, d, rng) {
			lost++
		}
	}
	return float64(lost) / float64(n)
}

func within4Sigma(t *testing.T, what string, rate, p float64, n int) {
	t.Helper()
	sd := math.Sqrt(p * (1 - p) / float64(n))
	if math.Abs(rate-p) > 4*sd+1e-12 {
		t.Errorf("%s: rate %.4f, want %.4f ± %.4f", what, rate, p, 4*sd)
	}
}

func TestNoLoss(t *testing.T) {
	l := mustLoss(t, defaulted(nil))
	if r := lossRate(l, 100, 1000, rand.New(rand.NewPCG(1, 2))); r != 0 {
		t.Errorf("none lost %v", r)
	}
}

func TestBernoulliRate(t *testing.T) {
	const n = 100000
	l := mustLoss(t, defaulted(func(c *Config) { c.Loss.P = 0.1 }))
	rate := lossRate(l, 10, n, rand.New(rand.NewPCG(3, 4)))
	within4Sigma(t, "bernoulli p=0.1", rate, 0.1, n)
}

func TestDistanceLossShape(t *testing.T) {
	c := defaulted(func(c *Config) { c.Range = 200; c.Loss.Model = LossDistance; c.Loss.P = 0.4; c.Loss.Start = 0.5 })
	dl := mustLoss(t, c).(distanceLoss)
	for _, tc := range []struct{ d, want float64 }{
		{0, 0}, {50, 0}, {100, 0}, {125, 0.1}, {150, 0.2}, {175, 0.3}, {200, 0.4}, {300, 0.4},
	} {
		if got := dl.prob(tc.d); !near(got, tc.want, 1e-12) {
			t.Errorf("p(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
	const n = 50000
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ d, want float64 }{{80, 0}, {150, 0.2}, {200, 0.4}} {
		within4Sigma(t, "distance loss", lossRate(dl, tc.d, n, rng), tc.want, n)
	}
}

func TestGilbertElliottStationaryAndBursts(t *testing.T) {
	const n = 200000
	c := defaulted(func(c *Config) {
		c.Loss.Model = LossGilbert
		one := 1.0
		c.Loss.LossBad = &one // losses then mark the bad state exactly
	})
	l := mustLoss(t, c)
	rng := rand.New(rand.NewPCG(9, 9))
	lost, bursts, run := 0, 0, 0
	var burstTotal int
	for range n {
		if l.Lost(0, 1, 10, rng) {
			lost++
			run++
			continue
		}
		if run > 0 {
			bursts++
			burstTotal += run
			run = 0
		}
	}
	wantRate := 0.05 / (0.05 + 0.3)
	// Successive frames are correlated (1-a-b = 0.65), which inflates the
	// variance of the mean by (1+0.65)/(1-0.65).
	sd := math.Sqrt(wantRate * (1 - wantRate) / n * (1.65 / 0.35))
	if rate := float64(lost) / n; math.Abs(rate-wantRate) > 4*sd {
		t.Errorf("long-run loss %.4f, want %.4f ± %.4f", rate, wantRate, 4*sd)
	}
	mean := float64(burstTotal) / float64(bursts)
	// Bad sojourns are geometric with mean 1/0.3 and sd sqrt(0.7)/0.3.
	if sdm := math.Sqrt(0.7) / 0.3 / math.Sqrt(float64(bursts)); math.Abs(mean-1/0.3) > 4*sdm {
		t.Errorf("mean burst %.3f, want %.3f ± %.3f", mean, 1/0.3, 4*sdm)
	}
}

func TestGilbertElliottLossInBothStates(t *testing.T) {
	const n = 200000
	c := defaulted(func(c *Config) { c.Loss.Model = LossGilbert; c.Loss.LossGood = 0.02 })
	l := mustLoss(t, c)
	rate := lossRate(l, 10, n, rand.New(rand.NewPCG(11, 12)))
	pib := 0.05 / 0.35
	want := pib*0.8 + (1-pib)*0.02
	if g := l.(*GilbertElliott); !near(g.StationaryLoss(), want, 1e-12) {
		t.Errorf("StationaryLoss %v, want %v", g.StationaryLoss(), want)
	}
	if math.Abs(rate-want) > 0.01 {
		t.Errorf("long-run loss %.4f, want %.4f", rate, want)
	}
}

// TestGilbertElliottPerLink interleaves two directed links: with one chain
// per link each still has bursts of mean 1/bad_to_good; a shared chain
// would advance twice per frame of a link and shorten them to about 1.96.
func TestGilbertElliottPerLink(t *testing.T) {
	const n = 200000
	one := 1.0
	l := mustLoss(t, defaulted(func(c *Config) { c.Loss.Model = LossGilbert; c.Loss.LossBad = &one }))
	rng := rand.New(rand.NewPCG(13, 14))
	var run, total, bursts [2]int
	for i := range 2 * n {
		k := i % 2
		if l.Lost(k, 1-k, 10, rng) {
			run[k]++
		} else if run[k] > 0 {
			bursts[k]++
			total[k] += run[k]
			run[k] = 0
		}
	}
	for k := range 2 {
		mean := float64(total[k]) / float64(bursts[k])
		if math.Abs(mean-1/0.3) > 0.2 {
			t.Errorf("link %d: mean burst %.3f, want %.3f", k, mean, 1/0.3)
		}
	}
}
