package ring_test

import (
	"fmt"
	"strings"
	"testing"

	"manetlab/protocol"
	_ "manetlab/ring"
	"manetlab/scenario"
	"manetlab/sim/simtest"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// simRing runs a ring scenario given as YAML in the simulator and returns
// its summary.
func simRing(t *testing.T, y string) *report.Summary {
	t.Helper()
	s, err := scenario.Parse([]byte(y), "ring.yaml", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	_, sum := simScenario(t, s)
	return sum
}

// simScenario runs s in the simulator: its trace directory and summary.
func simScenario(t testing.TB, s *scenario.Scenario) (string, *report.Summary) {
	t.Helper()
	return simtest.Run(t, s)
}

// TestSimCountsEqualTheory runs every counted ring election in the
// simulator, on physical rings and on logical rings over multi-hop
// delivery, and requires the summary's complexity to equal the exact
// count for the arrangement and never exceed the bound.
func TestSimCountsEqualTheory(t *testing.T) {
	rings := []string{"ascending", "descending", "random"}
	for _, alg := range []string{"lelann", "chang-roberts", "hirschberg-sinclair"} {
		for _, n := range []int{3, 4, 5, 8, 13, 16, 32, 64} {
			for _, ring := range rings {
				for seed := 1; seed <= 3; seed++ {
					if ring != "random" && seed > 1 {
						continue
					}
					placement := "ring"
					if seed == 3 {
						if n > 32 {
							continue // multi-hop at 64 nodes floods thousands of frames: slow, and no new case
						}
						// the logical ring over multi-hop delivery on a grid
						placement = "grid"
					}
					// a grid of cells 200 m wide: connected at 250 m
					cols := isqrt(n)
					rows := (n + cols - 1) / cols
					// ideal: the 15 s budget was set on the ideal medium.
					// On the DCF medium the counts still equal the theory,
					// but collisions cost link and channel retransmissions:
					// LeLann n=32 on the grid (seed 3, AODV) elects with
					// exactly 1024 messages in 20.2 s (2.1 s on ideal),
					// and has 4 of 32 nodes noted at 15 s.
					y := fmt.Sprintf("name: %s-%d\nseed: %d\nduration: 15s\nnodes: {count: %d, values: id, placement: %s}\n"+
						"radio: {mac: ideal, range: 250}\nmobility: {model: static, area: [%d, %d]}\nprotocol: {name: ring/%s, params: {ring: %s}}\n",
						alg, n, seed, n, placement, 200*cols, 200*rows, alg, ring)
					what := fmt.Sprintf("%s n=%d ring=%s seed=%d placement=%s", alg, n, ring, seed, placement)
					sum := simRing(t, y)
					checkCounts(t, what, sum, n)
				}
			}
		}
	}
}

func checkCounts(t *testing.T, what string, sum *report.Summary, n int) {
	t.Helper()
	c := sum.Complexity
	if sum.Verdict != "valid" || c == nil {
		t.Fatalf("%s: verdict %s (%s), complexity %+v, components %+v", what, sum.Verdict, sum.Reason, c, sum.Components)
	}
	if len(sum.Components) != 1 || sum.Components[0].ExpectedLeader != maxID(sum) {
		t.Fatalf("%s: components %+v", what, sum.Components)
	}
	b := c.Bound
	if b.Exact == nil {
		t.Fatalf("%s: no exact count in %+v", what, b)
	}
	if c.Messages != uint64(*b.Exact) || float64(c.Messages) > b.Value {
		t.Fatalf("%s: measured %d election messages, exact %d, bound %s = %g", what, c.Messages, *b.Exact, b.Formula, b.Value)
	}
	if n > 1 && c.Announce != uint64(n) {
		t.Fatalf("%s: announcement %d messages, want n = %d", what, c.Announce, n)
	}
	if c.Elections != 1 {
		t.Fatalf("%s: %d elections, want 1", what, c.Elections)
	}
	if sum.Messages.Total != c.Messages+c.Announce+c.Control {
		t.Fatalf("%s: summary counts %d algorithm messages, complexity %d+%d+%d", what, sum.Messages.Total, c.Messages, c.Announce, c.Control)
	}
}

func maxID(sum *report.Summary) protocol.NodeID {
	var m protocol.NodeID
	for _, id := range sum.Components[0].Nodes {
		m = max(m, id)
	}
	return m
}

func isqrt(n int) int {
	r := 1
	for r*r < n {
		r++
	}
	return r
}

// TestSimCountsUnderLoss: with 20 % loss the right leader still wins, the
// election's count is still exact, and the repairs show up only as
// transport (acknowledgements and retransmissions) or, under AODV (the
// default), whose data frames are acknowledged hop by hop, as link
// retransmissions, counted apart too.
func TestSimCountsUnderLoss(t *testing.T) {
	for _, alg := range []string{"lelann", "chang-roberts", "hirschberg-sinclair"} {
		for seed := 1; seed <= 3; seed++ {
			y := fmt.Sprintf("name: loss\nseed: %d\nduration: 60s\nnodes: {count: 12, values: id, placement: ring}\n"+
				"radio: {range: 250, loss: {model: bernoulli, p: 0.2}}\nmobility: {model: static}\nprotocol: {name: ring/%s}\n", seed, alg)
			sum := simRing(t, y)
			what := fmt.Sprintf("%s with 20%% loss, seed %d", alg, seed)
			checkCounts(t, what, sum, 12)
			if sum.Messages.ByKind["transport-retx"]+sum.Messages.LinkRetx == 0 || sum.Messages.ByKind["transport-ack"] == 0 {
				t.Fatalf("%s: no retransmissions or acks counted: %v, %d link retransmissions", what, sum.Messages.ByKind, sum.Messages.LinkRetx)
			}
		}
	}
}

// TestSimTanenbaumSurvivesCrashes runs configs/ring-tanenbaum.yaml: a
// member down before the election and the highest ID crashing after it;
// the run must end valid and trace check must find it valid.
func TestSimTanenbaumSurvivesCrashes(t *testing.T) {
	s, err := scenario.Load("../configs/ring-tanenbaum.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, sum := simScenario(t, s)
	if sum.Verdict != "valid" {
		t.Fatalf("verdict %s: %+v", sum.Verdict, sum.Components)
	}
	chk, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range chk.Properties {
		// The exact count holds only without faults: with this run's
		// crash the message bound is not judged, and says why.
		notJudged := p.Name == analysis.PropBound && p.Verdict == analysis.Unknown && strings.Contains(p.Reason, "the run had a fault: node 5 crashed")
		if p.Verdict == analysis.Invalid || (p.Name != analysis.PropMutex && p.Verdict != analysis.Valid && !notJudged) {
			t.Errorf("%s: %s (%s) %+v", p.Name, p.Verdict, p.Reason, p.Witnesses)
		}
	}
}

// TestCrashOutsideAssumptions: Chang-Roberts assumes no failures; when the
// highest ID crashes mid-election, the verdicts say so instead of calling
// it a protocol bug.
func TestCrashOutsideAssumptions(t *testing.T) {
	y := "name: cr-crash\nduration: 30s\nnodes: {count: 8, values: id, placement: ring}\nradio: {range: 250}\nmobility: {model: static}\n" +
		"protocol: {name: ring/chang-roberts, params: {ring: ascending}}\nfaults: [{at: 1.001s, crash: [8]}]\n"
	s, err := scenario.Parse([]byte(y), "cr.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, sum := simScenario(t, s)
	if sum.Verdict == "invalid" {
		t.Fatalf("verdict invalid; want unknown with the reason or valid: %+v", sum)
	}
	chk, err := analysis.Check(dir, analysis.CheckOptions{Stabilisation: 5e9})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range chk.Properties {
		if p.Verdict == analysis.Invalid {
			t.Errorf("%s invalid; want unknown outside the assumptions: %+v", p.Name, p)
		}
	}
	t.Logf("summary verdict %s (%s)", sum.Verdict, sum.Reason)
}

// TestSimLeLannElectsTheHighestInitiator: in LeLann a process that hears a
// token before it initiates never competes (seed 000), so with initiators
// 2, 5 and 3 node 5 wins, and the checker expects exactly that.
func TestSimLeLannElectsTheHighestInitiator(t *testing.T) {
	y := "name: lelann-some\nduration: 20s\nnodes: {count: 8, values: id, placement: ring}\nradio: {range: 250}\nmobility: {model: static}\n" +
		"protocol: {name: ring/lelann, params: {ring: descending, initiators: [2, 5, 3]}}\n"
	sum := simRing(t, y)
	if sum.Verdict != "valid" || sum.Components[0].ExpectedLeader != 5 || sum.Components[0].Leaders["5"] != 8 {
		t.Fatalf("summary %+v", sum)
	}
	if c := sum.Complexity; c == nil || c.Messages != 3*8 || *c.Bound.Exact != 3*8 {
		t.Fatalf("complexity %+v, want 3 tokens round 8 nodes", sum.Complexity)
	}
}
