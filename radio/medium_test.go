package radio

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/internal/geo"
	"manetlab/mobility"
)

func mustMedium(t testing.TB, c Config, mob mobility.Model, seed uint64) *Medium {
	t.Helper()
	m, err := NewMedium(c, mob, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// shadowLossy is log-distance with shadowing and Bernoulli loss, so both
// random stages and all three outcomes occur.
func shadowLossy(c *Config) {
	c.Propagation = LogDistance
	c.Shadowing = 4
	c.Loss.P = 0.2
}

// bruteTransmit is the reference: scan every node within maxR (the
// medium's MaxRange: on the DCF medium, the carrier-sense reach beyond the
// propagation model's range), then draw with a fresh rng of the same seed
// in ascending node order.
func bruteTransmit(c Config, mob mobility.Model, from int, t time.Duration, rng *rand.Rand, prop Propagation, loss Loss, maxR float64) []Reception {
	var out []Reception
	p := mob.Position(from, t)
	for j := range mob.Len() {
		if j == from {
			continue
		}
		if d := geo.Dist(p, mob.Position(j, t)); d <= maxR {
			o := Received
			if !prop.Receive(d, rng) {
				o = OutOfRange
			} else if loss.Lost(from, j, d, rng) {
				o = Lost
			}
			out = append(out, Reception{Node: j, Dist: d, Outcome: o})
		}
	}
	return out
}

func checkAgainstBrute(t *testing.T, c Config, mob mobility.Model, seed uint64, times []time.Duration, senders []int) {
	t.Helper()
	m := mustMedium(t, c, mob, seed)
	rng := rand.New(rand.NewPCG(seed, rngStream))
	prop, _ := NewPropagation(c)
	loss, _ := NewLoss(c)
	var buf []Reception
	outcomes := map[Outcome]int{}
	for k, at := range times {
		from := senders[k]
		buf = m.Transmit(from, at, buf[:0])
		want := bruteTransmit(c, mob, from, at, rng, prop, loss, m.MaxRange())
		if !slices.Equal(buf, want) {
			t.Fatalf("frame %d from %d at %v: index gives %d receptions, brute force %d\nindex %v\nbrute %v",
				k, from, at, len(buf), len(want), buf, want)
		}
		for _, r := range buf {
			outcomes[r.Outcome]++
		}
	}
	if c.Shadowing > 0 && c.Loss.P > 0 && (outcomes[Received] == 0 || outcomes[Lost] == 0 || outcomes[OutOfRange] == 0) {
		t.Errorf("expected every outcome to occur: %v", outcomes)
	}
}

func TestTransmitMatchesBruteForceStatic(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 100))
		mob := randomModel(rng, 400, 1500+500*float64(seed), 0)
		var times []time.Duration
		var senders []int
		for range 300 {
			times = append(times, time.Duration(rng.Int64N(int64(time.Minute))))
			senders = append(senders, rng.IntN(mob.Len()))
		}
		checkAgainstBrute(t, defaulted(shadowLossy), mob, seed, times, senders)
		checkAgainstBrute(t, defaulted(nil), mob, seed, times, senders)
		checkAgainstBrute(t, defaulted(func(c *Config) { c.Loss.Model = LossGilbert }), mob, seed, times, senders)
	}
}

// TestTransmitRemembersStatic sends many frames from a few senders of a
// static layout, which a static medium answers from what it remembers,
// with the budget ample, short (some senders remembered, not others) and
// none; every frame must match the brute force.
func TestTransmitRemembersStatic(t *testing.T) {
	defer func(b, k int) { nearBudget, nearPerNode = b, k }(nearBudget, nearPerNode)
	nearPerNode = 0
	for _, budget := range []int{1 << 21, 40, 0} {
		nearBudget = budget
		rng := rand.New(rand.NewPCG(7, 100))
		mob := randomModel(rng, 300, 1500, 0)
		var times []time.Duration
		var senders []int
		for k := range 2000 {
			times = append(times, time.Duration(k)*time.Millisecond)
			senders = append(senders, rng.IntN(25))
		}
		checkAgainstBrute(t, defaulted(shadowLossy), mob, 3, times, senders)
		checkAgainstBrute(t, defaulted(nil), mob, 3, times, senders)
	}
	m := mustMedium(t, defaulted(nil), randomModel(rand.New(rand.NewPCG(7, 100)), 300, 1500, 0), 3)
	nearBudget = 1 << 21
	for k := range 25 {
		m.Transmit(k, 0, nil)
	}
	remembered := 0
	for _, c := range m.near {
		if c != nil {
			remembered++
		}
	}
	if remembered != 25 {
		t.Errorf("%d senders remembered, want 25", remembered)
	}
}

func TestTransmitMatchesBruteForceMoving(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 200))
		mob := randomModel(rng, 300, 1200, 25)
		var times []time.Duration
		var senders []int
		at := time.Duration(0)
		for range 400 {
			at += time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
			times = append(times, at)
			senders = append(senders, rng.IntN(mob.Len()))
		}
		// In order, as the simulator calls it, then shuffled: any t works.
		checkAgainstBrute(t, defaulted(shadowLossy), mob, seed, times, senders)
		checkAgainstBrute(t, defaulted(func(c *Config) { c.Loss.Model = LossDistance; c.Loss.P = 0.5 }), mob, seed, times, senders)
		rng.Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
		checkAgainstBrute(t, defaulted(func(c *Config) { c.Propagation = TwoRay; c.Range = 180 }), mob, seed, times, senders)
	}
}

func TestTransmitAppendsSortedAndKeepsPrefix(t *testing.T) {
	mob := staticModel(geo.Vec{}, geo.Vec{X: 300}, geo.Vec{X: 100}, geo.Vec{Y: 249}, geo.Vec{X: 250.0001})
	m := mustMedium(t, defaulted(nil), mob, 1)
	prefix := []Reception{{Node: 99}}
	out := m.Transmit(0, 0, prefix)
	want := []Reception{{Node: 99}, {2, 100, Received}, {3, 249, Received}}
	if !slices.Equal(out, want) {
		t.Errorf("got %v, want %v", out, want)
	}
	if m.Delay() != 2*time.Millisecond {
		t.Errorf("delay %v", m.Delay())
	}
	if !m.Linked(0, 3, 0) || m.Linked(0, 4, 0) || !m.Linked(2, 2, 0) {
		t.Errorf("Linked wrong")
	}
}

func TestTransmitMovingNode(t *testing.T) {
	// Node 1 walks away from node 0 at 10 m/s from 200 m: in range until
	// 5 s, out after.
	mob := &fakeModel{pos: []geo.Vec{{}, {X: 200}}, vel: []geo.Vec{{}, {X: 10}}}
	m := mustMedium(t, defaulted(nil), mob, 1)
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{0, 1}, {4900 * time.Millisecond, 1}, {5 * time.Second, 1}, {5100 * time.Millisecond, 0}, {time.Second, 1}} {
		if got := len(m.Transmit(0, tc.at, nil)); got != tc.want {
			t.Errorf("at %v: %d receivers, want %d", tc.at, got, tc.want)
		}
		if m.Linked(0, 1, tc.at) != (tc.want == 1) {
			t.Errorf("Linked at %v", tc.at)
		}
	}
}

func TestSeedReproducible(t *testing.T) {
	mob := randomModel(rand.New(rand.NewPCG(3, 3)), 200, 800, 10)
	run := func(seed uint64) []Reception {
		m := mustMedium(t, defaulted(shadowLossy), mob, seed)
		var all []Reception
		for k := range 200 {
			all = m.Transmit(k%200, time.Duration(k)*50*time.Millisecond, all)
		}
		return all
	}
	a, b, c := run(42), run(42), run(43)
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Errorf("same seed differs (%d receptions)", len(a))
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 42 and 43 give identical results")
	}
}

func TestNewMediumRejects(t *testing.T) {
	c := defaulted(nil)
	c.Loss.P = 2
	if _, err := NewMedium(c, staticModel(geo.Vec{}), 1); err == nil || !strings.Contains(err.Error(), "radio.loss.p") {
		t.Errorf("want a radio.loss.p error, got %v", err)
	}
	if _, err := NewMedium(defaulted(nil), nil, 1); err == nil {
		t.Errorf("nil mobility accepted")
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Received: "received", OutOfRange: "out-of-range", Lost: "lost", 0: "Outcome(0)"} {
		if o.String() != want {
			t.Errorf("%d: %q, want %q", o, o.String(), want)
		}
	}
	if OutOfRange.DropReason() != "range" || Lost.DropReason() != "loss" || Received.DropReason() != "" {
		t.Errorf("drop reasons")
	}
}

// TestNearMatchesReach: Near lists what Reach does, on a static medium
// (first search, remembered, and past a budget of none) and a moving one;
// a budget of nearPerNode a node remembers every sender of 300.
func TestNearMatchesReach(t *testing.T) {
	defer func(b, k int) { nearBudget, nearPerNode = b, k }(nearBudget, nearPerNode)
	for _, c := range []struct {
		speed         float64
		budget, per   int
		wantRemembers int
	}{{0, 0, 40, 300}, {0, 0, 0, 0}, {20, 1 << 21, 12, 0}} {
		nearBudget, nearPerNode = c.budget, c.per
		mob := randomModel(rand.New(rand.NewPCG(3, 9)), 300, 1500, c.speed)
		near := mustMedium(t, defaulted(nil), mob, 3)
		reach := mustMedium(t, defaulted(nil), mob, 3)
		var buf []Reception
		for round := range 2 {
			for k := range 300 {
				at := time.Duration(round*300+k) * time.Millisecond
				got := near.Near(k, at, &buf)
				want := reach.Reach(k, at, nil)
				if !slices.Equal(got, want) {
					t.Fatalf("speed %g budget %d+%d/node, sender %d round %d: Near %v, Reach %v", c.speed, c.budget, c.per, k, round, got, want)
				}
			}
		}
		remembered := 0
		for _, r := range near.near {
			if r != nil {
				remembered++
			}
		}
		if remembered != c.wantRemembers {
			t.Errorf("speed %g budget %d+%d/node: %d senders remembered, want %d", c.speed, c.budget, c.per, remembered, c.wantRemembers)
		}
	}
}
