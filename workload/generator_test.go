package workload

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/internal/units"
	"manetlab/protocol"
)

func poisson(rate float64) Config {
	c := Default()
	c.Rate = PerSecond(rate)
	c.Hold = units.Duration(time.Millisecond)
	return c
}

func requestTimes(cfg Config, id protocol.NodeID, seed uint64, end time.Duration) []time.Duration {
	l, p, _ := setup(nil, cfg, id, seed)
	l.run(0, end)
	return p.times(protocol.Request)
}

func TestDeterministic(t *testing.T) {
	cfg := poisson(2)
	a := requestTimes(cfg, 3, 7, 60*time.Second)
	b := requestTimes(cfg, 3, 7, 60*time.Second)
	if len(a) < 50 || !slices.Equal(a, b) {
		t.Fatalf("same seed and node: %d and %d requests, equal %v", len(a), len(b), slices.Equal(a, b))
	}
	if c := requestTimes(cfg, 4, 7, 60*time.Second); slices.Equal(a, c) {
		t.Errorf("nodes 3 and 4 request at the same times")
	}
	if c := requestTimes(cfg, 3, 8, 60*time.Second); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 request at the same times")
	}
	// A node that boots later (a recovered one) draws a fresh stream.
	l, p, _ := setup(nil, cfg, 3, 7)
	l.run(20*time.Second, 60*time.Second)
	late := p.times(protocol.Request)
	if len(late) == 0 || late[0] < 20*time.Second {
		t.Fatalf("late boot: requests %v", late[:min(3, len(late))])
	}
	var tail []time.Duration
	for _, x := range a {
		if x >= 20*time.Second {
			tail = append(tail, x)
		}
	}
	if slices.Equal(late, tail) {
		t.Errorf("a node booted at 20s repeats the first life's requests")
	}
}

// TestPoissonRate counts requests over a long run: a Poisson count of
// mean m has standard deviation sqrt(m); the test allows 5 of them. The
// gaps are exponential: the fraction shorter than the mean is 1-1/e,
// allowed 5 binomial standard deviations.
func TestPoissonRate(t *testing.T) {
	const rate, secs = 2.0, 10000.0
	cfg := poisson(rate)
	got := requestTimes(cfg, 1, 42, time.Duration(secs)*time.Second)
	mean := rate * (secs - DefaultStart.Seconds())
	if d := math.Abs(float64(len(got)) - mean); d > 5*math.Sqrt(mean) {
		t.Errorf("%d requests in %gs at %g/s; want %.0f ± %.0f", len(got), secs, rate, mean, 5*math.Sqrt(mean))
	}
	t.Logf("%d requests in %gs at %g/s (expected %.0f)", len(got), secs, rate, mean)
	if got[0] < DefaultStart {
		t.Errorf("first request at %v, before start %v", got[0], DefaultStart)
	}
	short := 0
	for i := 1; i < len(got); i++ {
		if got[i]-got[i-1] < time.Duration(float64(time.Second)/rate) {
			short++
		}
	}
	n := float64(len(got) - 1)
	p := 1 - 1/math.E
	if d := math.Abs(float64(short) - n*p); d > 5*math.Sqrt(n*p*(1-p)) {
		t.Errorf("%d of %.0f gaps shorter than the mean; want %.0f ± %.0f", short, n, n*p, 5*math.Sqrt(n*p*(1-p)))
	}
}

func TestStartStop(t *testing.T) {
	cfg := poisson(5)
	cfg.Start = units.Duration(10 * time.Second)
	cfg.Stop = units.Duration(20 * time.Second)
	got := requestTimes(cfg, 1, 1, 60*time.Second)
	if len(got) < 20 {
		t.Fatalf("%d requests in 10s at 5/s", len(got))
	}
	if got[0] < 10*time.Second || got[len(got)-1] > 20*time.Second {
		t.Errorf("requests from %v to %v; want within [10s, 20s]", got[0], got[len(got)-1])
	}
	if got := requestTimes(poisson(0), 1, 1, 60*time.Second); len(got) != 0 {
		t.Errorf("rate 0: %d requests", len(got))
	}
}

// TestSaturate: the first request at start, then one at the instant of
// every exit, so the node is never idle; each hold is exactly the hold.
func TestSaturate(t *testing.T) {
	cfg := Default()
	cfg.Rate = Saturated()
	cfg.Hold = units.Duration(50 * time.Millisecond)
	cfg.Stop = units.Duration(5 * time.Second)
	l, p, g := setup(nil, cfg, 2, 1)
	l.run(0, 10*time.Second)
	req, enter, exit := p.times(protocol.Request), l.noteTimes(protocol.NoteCSEnter), l.noteTimes(protocol.NoteCSExit)
	if len(req) < 50 || req[0] != DefaultStart {
		t.Fatalf("%d requests, first at %v; want many, the first at %v", len(req), req[:min(1, len(req))], DefaultStart)
	}
	if p.queued != 0 {
		t.Errorf("%d requests queued: saturation asked while already wanting", p.queued)
	}
	for i, x := range exit {
		if enter[i]+cfg.Hold.D() != x {
			t.Errorf("section %d: entered %v, left %v; want a hold of %v", i, enter[i], x, cfg.Hold)
		}
		if i+1 < len(req) && req[i+1] != x {
			t.Errorf("exit %d at %v, next request at %v; want at once", i, x, req[i+1])
		}
	}
	if last := req[len(req)-1]; last > cfg.Stop.D() || last+70*time.Millisecond < cfg.Stop.D() {
		t.Errorf("last request at %v; want the last exit before stop %v", last, cfg.Stop)
	}
	if len(exit) != len(req) || g.Requests() != len(req) || g.Releases() != len(exit) {
		t.Errorf("%d requests, %d exits, generator counts %d/%d", len(req), len(exit), g.Requests(), g.Releases())
	}
}

func TestHoldExponential(t *testing.T) {
	cfg := poisson(1)
	cfg.Hold = units.Duration(200 * time.Millisecond)
	cfg.HoldDist = HoldExponential
	l, _, _ := setup(nil, cfg, 1, 9)
	l.run(0, 4000*time.Second)
	enter, exit := l.noteTimes(protocol.NoteCSEnter), l.noteTimes(protocol.NoteCSExit)
	n := len(exit)
	if n < 2000 {
		t.Fatalf("%d sections", n)
	}
	var sum float64
	distinct := map[time.Duration]bool{}
	for i := range n {
		h := exit[i] - enter[i]
		sum += h.Seconds()
		distinct[h] = true
	}
	// The mean of n exponential holds has standard deviation hold/sqrt(n).
	mean, want := sum/float64(n), cfg.Hold.D().Seconds()
	if d := math.Abs(mean - want); d > 5*want/math.Sqrt(float64(n)) {
		t.Errorf("mean hold %.4fs over %d sections; want %.4fs ± %.4f", mean, n, want, 5*want/math.Sqrt(float64(n)))
	}
	t.Logf("mean hold %.4fs over %d sections (mean %v)", mean, n, cfg.Hold)
	if len(distinct) < n/2 {
		t.Errorf("%d distinct holds among %d: not drawn", len(distinct), n)
	}
}

// TestTimersConsumed: the protocol sees its own timers and the commands,
// never the generator's timers; the generator never draws from Env.Rand.
func TestTimersConsumed(t *testing.T) {
	l, p, _ := setup(nil, poisson(3), 1, 1)
	l.run(0, 30*time.Second)
	grants := 0
	for _, ev := range p.seen {
		if to, ok := ev.(protocol.Timeout); ok {
			if strings.HasPrefix(to.Name, "workload/") {
				t.Fatalf("protocol stepped with %+v", to)
			}
			grants++
		}
	}
	if grants < 50 || len(p.times(protocol.Release)) < 50 {
		t.Errorf("%d grants, %d releases: want the protocol's timers passed on", grants, len(p.times(protocol.Release)))
	}
	if l.rands != 0 {
		t.Errorf("the generator called Env.Rand %d times", l.rands)
	}
	if _, ok := p.seen[0].(protocol.Start); !ok {
		t.Errorf("first event %T, want Start", p.seen[0])
	}
}

// TestExplicitCommands: commands the driver gives pass through, and the
// generator releases a section it did not ask for.
func TestExplicitCommands(t *testing.T) {
	cfg := poisson(0)
	cfg.Hold = units.Duration(300 * time.Millisecond)
	l, p, g := setup(nil, cfg, 1, 1)
	var issued []protocol.CommandName
	g.Issued = func(c protocol.Command) { issued = append(issued, c.Name) }
	l.at(2*time.Second, func() { l.proc.Step(protocol.Command{Name: protocol.Request}) })
	l.at(5*time.Second, func() { l.proc.Step(protocol.Command{Name: protocol.Elect}) })
	l.run(0, 10*time.Second)
	want := []stampedCmd{
		{2 * time.Second, protocol.Request},
		{2*time.Second + 310*time.Millisecond, protocol.Release},
		{5 * time.Second, protocol.Elect},
	}
	if !slices.Equal(p.cmds, want) {
		t.Errorf("commands %v, want %v", p.cmds, want)
	}
	if !slices.Equal(issued, []protocol.CommandName{protocol.Release}) {
		t.Errorf("generator issued %v, want one release", issued)
	}
}

// TestExplicitReleaseCancels: an exit before the hold ends cancels the
// generator's release, so the next section is not cut short.
func TestExplicitReleaseCancels(t *testing.T) {
	cfg := poisson(0)
	cfg.Hold = units.Duration(time.Second)
	l, p, _ := setup(nil, cfg, 1, 1)
	step := func(n protocol.CommandName) func() { return func() { l.proc.Step(protocol.Command{Name: n}) } }
	l.at(1*time.Second, step(protocol.Request))
	l.at(1500*time.Millisecond, step(protocol.Release))
	l.at(1800*time.Millisecond, step(protocol.Request))
	l.run(0, 5*time.Second)
	rel := p.times(protocol.Release)
	want := []time.Duration{1500 * time.Millisecond, 2810 * time.Millisecond}
	if !slices.Equal(rel, want) {
		t.Errorf("releases at %v, want %v", rel, want)
	}
}

func TestGenerates(t *testing.T) {
	c := Default()
	if c.Generates(1) || c.Asks() {
		t.Errorf("no rate: generates or asks")
	}
	c.Commands = []Command{{Node: 1, Command: "elect"}}
	if c.Asks() {
		t.Errorf("elect asks for the section")
	}
	c.Commands = append(c.Commands, Command{Node: 1, Command: "release"})
	if !c.Asks() {
		t.Errorf("a release command does not ask")
	}
	c.Rate = PerSecond(1)
	if !c.Generates(5) {
		t.Errorf("default nodes: node 5 has no generator")
	}
	c.Nodes = []protocol.NodeID{1, 3}
	if !c.Generates(3) || c.Generates(2) {
		t.Errorf("nodes [1 3]: generates 3 %v, 2 %v", c.Generates(3), c.Generates(2))
	}
}
