package sim_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"manetlab/internal/ns3test"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// gridFigures are one simulator's figures for the AODV grid over ten
// runs: means of the control frames, hops and first-packet latency,
// medians over runs of the replies (ns-3's mean is carried by the runs
// whose route broke and was found again: 160 and 178 replies against
// 23-49) and of the runs' median latency of the later packets.
type gridFigures struct {
	rreq, rrepMedian, rerr, hops, firstMS, laterMS float64
}

// ns3Grid are ns-3's figures for scripts/ns3/aodv.cc --case=grid
// --run=1..10 (recorded in scripts/ns3/README.md).
var ns3Grid = gridFigures{rreq: 190.7, rrepMedian: 38.5, rerr: 22.4, hops: 11.8, firstMS: 2006.2, laterMS: 18.651}

// ns3GridRERR100 is ns-3's mean of route error frames over --run=1..100
// of the grid (standard deviation 15.8 a run: ten runs' mean is too
// noisy to hold within 20 %; scripts/ns3/README.md).
const ns3GridRERR100 = 22.97

// rerrSeeds is how many seeds manetlab's route errors are averaged over.
const rerrSeeds = 100

// TestAODVGridAgainstNS3: configs/aodv-grid-ns3.yaml (routing.aodv
// preset ns-3.37) against ns-3's AODV on the same grid, seeds 1..10
// against --run=1..10 (ns-3 run here when installed): route requests,
// replies, hops, the first packet's latency and the later packets'
// within 20 % of ns-3's; route errors, averaged over seeds 1..100, within
// 20 % of ns-3's mean over --run=1..100 (recorded; live, runs 1..10 must
// give the recorded ten-run mean, as ns-3 is deterministic).
func TestAODVGridAgainstNS3(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10 simulated runs of 100 nodes")
	}
	ns3 := ns3Grid
	if ns3Live(t) {
		ns3 = ns3GridLive(t, ns3test.Program(t, "aodv"))
	}
	var ml gridFigures
	var rreps, laters []float64
	const seeds = 10
	for seed := uint64(1); seed <= seeds; seed++ {
		m, dir := gridRun(t, seed)
		if m.Delivered != 10 || m.Hellos == 0 || m.RREPIntermediate == 0 || m.RREPGratuitous == 0 {
			t.Fatalf("seed %d: %d delivered, %d hellos, %d intermediate and %d gratuitous replies", seed, m.Delivered,
				m.Hellos, m.RREPIntermediate, m.RREPGratuitous)
		}
		ml.rreq += float64(m.RREQ) / seeds
		ml.rerr += float64(m.RERR) / seeds
		ml.hops += *m.Hops / seeds
		ml.firstMS += firstLatencyMS(t, dir, 100) / seeds
		rreps = append(rreps, float64(m.RREP))
		laters = append(laters, 1000**m.LatencyP50)
	}
	ml.rrepMedian, ml.laterMS = median(rreps), upperMedian(laters)
	rerr := ml.rerr * seeds
	for seed := uint64(seeds + 1); seed <= rerrSeeds; seed++ {
		m, _ := gridRun(t, seed)
		rerr += float64(m.RERR)
	}
	rerr /= rerrSeeds
	t.Logf("manetlab %+v, route errors over %d seeds %.2f\nns-3     %+v, over 100 runs %.2f", ml, rerrSeeds, rerr, ns3, ns3GridRERR100)
	within := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol*want {
			t.Errorf("%s: manetlab %.1f, ns-3 %.1f: more than %.0f %% apart", name, got, want, 100*tol)
		}
	}
	within("route requests", ml.rreq, ns3.rreq, 0.2)
	within("route replies (median over runs)", ml.rrepMedian, ns3.rrepMedian, 0.2)
	within("hops", ml.hops, ns3.hops, 0.2)
	within("first packet latency (ms)", ml.firstMS, ns3.firstMS, 0.2)
	within("later packets' median latency (ms)", ml.laterMS, ns3.laterMS, 0.2)
	within("route errors (100 runs)", rerr, ns3GridRERR100, 0.2)
	if math.Abs(ns3.rerr-ns3Grid.rerr) > 0.05 {
		t.Errorf("ns-3's route errors over --run=1..10: %.2f, recorded %.2f: re-record ns3GridRERR100", ns3.rerr, ns3Grid.rerr)
	}
}

// gridRun simulates configs/aodv-grid-ns3.yaml with seed and returns its
// routing metrics.
func gridRun(t *testing.T, seed uint64) (*analysis.RoutingMetrics, string) {
	s, err := scenario.Load("../configs/aodv-grid-ns3.yaml", nil)
	dir := simulated(t, s, err, seed)
	m, err := analysis.ComputeRouting(dir, nil)
	if err != nil || m == nil || m.Hops == nil {
		t.Fatalf("seed %d: routing metrics %+v, %v", seed, m, err)
	}
	return m, dir
}

// ns3GridLive runs ns-3's grid ten times.
func ns3GridLive(t *testing.T, bin string) gridFigures {
	var g gridFigures
	var rreps, laters []float64
	num := func(kv map[string]string, key string) float64 {
		var v float64
		if _, err := fmt.Sscan(kv[key], &v); err != nil {
			t.Fatalf("%s --case=grid: %s=%q: %v", bin, key, kv[key], err)
		}
		return v
	}
	for r := 1; r <= 10; r++ {
		kv := ns3test.Run(t, bin, "--case=grid", fmt.Sprintf("--run=%d", r))
		g.rreq += num(kv, "rreq_frames") / 10
		g.rerr += num(kv, "rerr_frames") / 10
		g.hops += num(kv, "avg_hops") / 10
		g.firstMS += num(kv, "first_latency_ms") / 10
		rreps = append(rreps, num(kv, "rrep_frames"))
		laters = append(laters, num(kv, "later_latency_median_ms"))
	}
	g.rrepMedian, g.laterMS = median(rreps), upperMedian(laters)
	return g
}

// firstLatencyMS is the latency of message 1 of node 1 at node dest.
func firstLatencyMS(t *testing.T, dir string, dest int) float64 {
	evs, _, err := trace.ReadFile(filepath.Join(dir, fmt.Sprintf("node-%d.jsonl", dest)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Ev == trace.EvRecv && e.Origin == 1 && e.OSeq > 0 && e.Kind == "packet" {
			return float64(e.T)/1e6 - 1000 // sent at 1 s
		}
	}
	t.Fatalf("%s: node %d received nothing from node 1", dir, dest)
	return 0
}

func median(v []float64) float64 {
	v = slices.Sorted(slices.Values(v))
	n := len(v)
	return (v[(n-1)/2] + v[n/2]) / 2
}

func upperMedian(v []float64) float64 {
	v = slices.Sorted(slices.Values(v))
	return v[len(v)/2]
}
