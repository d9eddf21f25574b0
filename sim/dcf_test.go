package sim_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"manetlab/internal/ns3test"
	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	_ "manetlab/traffic" // registers traffic/beacon
)

// The setup of scripts/ns3/contention.cc: N nodes uniformly in a 50 m
// square (every node in range of every other), 802.11b at 1 Mbps,
// log-distance with exponent 3 and 20 dBm, one 100-byte broadcast a node
// (44 + 4 + 52 bytes on manetlab's wire); no hellos.
const contention = `
name: contention
duration: %s
nodes: {count: %d, placement: uniform}
mobility: {model: static, area: [50, 50]}
radio: {propagation: log-distance, exponent: 3, tx_power: 20, range: 250, mac: dcf,
        hello: {period: 1000s, timeout: 3500s}}
protocol: {name: traffic/beacon, params: {start: 1s, size: 38, %s}}
`

// simulated runs s (loaded with error err) with seed into a temporary
// directory, which it returns.
func simulated(t *testing.T, s *scenario.Scenario, err error, seed uint64) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	s.Seed = seed
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// beaconRun runs scenario y (named name in errors) with seed and returns
// it with the traffic/beacon events of every member's trace.
func beaconRun(t *testing.T, y, name string, seed uint64) (*scenario.Scenario, []trace.Event) {
	t.Helper()
	s, err := scenario.Parse([]byte(y), name, nil)
	dir := simulated(t, s, err, seed)
	var out []trace.Event
	for _, id := range s.MemberIDs() {
		evs, probs, err := trace.ReadFile(filepath.Join(dir, fmt.Sprintf("node-%d.jsonl", id)))
		if err != nil || len(probs) > 0 {
			t.Fatal(err, probs)
		}
		for _, e := range evs {
			if e.Kind == "beacon" {
				out = append(out, e)
			}
		}
	}
	return s, out
}

// beacons is what a run of traffic/beacon delivered: the fraction of
// (frame, other node) pairs received and the median latency.
func beacons(t *testing.T, y string, seed uint64) (frac float64, p50 time.Duration, members int) {
	t.Helper()
	s, evs := beaconRun(t, y, "contention.yaml", seed)
	sent := map[[2]int64]int64{}
	var recvs []trace.Event
	for _, e := range evs {
		switch {
		case e.Ev == trace.EvSend:
			if e.Bytes+4+44 != 100 {
				t.Fatalf("a beacon is %d bytes on the wire, not ns-3's 100", e.Bytes+48)
			}
			sent[[2]int64{int64(e.Node), int64(e.Seq)}] = e.T
		case e.Ev == trace.EvRecv:
			recvs = append(recvs, e)
		}
	}
	n := len(s.MemberIDs())
	var lat []time.Duration
	for _, e := range recvs {
		lat = append(lat, time.Duration(e.T-sent[[2]int64{int64(e.From), int64(e.Seq)}]))
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		p50 = lat[len(lat)/2]
	}
	return float64(len(recvs)) / float64(len(sent)*(n-1)), p50, n
}

// ns3Live is whether the tests compare with ns-3 run here (scripts/ns3
// built with ns3test) rather than with its figures recorded in
// scripts/ns3/README.md.
func ns3Live(t *testing.T) bool {
	if why := ns3test.Missing(); why != "" {
		t.Logf("ns-3 is not installed here (%s; scripts/deps.sh installs it as root): comparing with ns-3's figures recorded in scripts/ns3/README.md", why)
		return false
	}
	return true
}

// ns3Mean is the mean over --run=1..runs of ns-3 program bin's key and,
// when p50 is given, the median over runs of that key (in µs).
func ns3Mean(t *testing.T, bin string, runs int, key, p50 string, args ...string) (mean float64, med time.Duration) {
	var ps []time.Duration
	for r := 1; r <= runs; r++ {
		kv := ns3test.Run(t, bin, append(args, fmt.Sprintf("--run=%d", r))...)
		var v float64
		if _, err := fmt.Sscan(kv[key], &v); err != nil {
			t.Fatalf("%s %v: %s=%q: %v", bin, args, key, kv[key], err)
		}
		mean += v / float64(runs)
		if p50 != "" {
			var us float64
			fmt.Sscan(kv[p50], &us)
			ps = append(ps, time.Duration(us*1000))
		}
	}
	if len(ps) > 0 {
		slices.Sort(ps)
		med = ps[len(ps)/2]
	}
	return mean, med
}

// TestDCFAgainstNS3 reproduces issue 25's table with the DCF medium on
// the setup of scripts/ns3/contention.cc (ns-3 3.37), seeds 1..10 against
// ns-3's --run=1..10 (ns-3 run here when installed, else its recorded
// figures): the same-instant rows within 0.05, the 10 ms rows within
// 0.10, hellos at least 0.999.
func TestDCFAgainstNS3(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 60 simulated runs")
	}
	var bin string
	if ns3Live(t) {
		bin = ns3test.Program(t, "contention")
	}
	cases := []struct {
		mode   string
		n      int
		params string
		ns3    float64
		tol    float64
		ns3p50 time.Duration // 0: none
		seeds  int
	}{
		{"same instant", 5, "spread: 0s", 0, 0.05, 0, 10},
		{"same instant", 20, "spread: 0s", 0, 0.05, 0, 10},
		{"same instant", 100, "spread: 0s", 0, 0.05, 0, 10},
		{"over 10 ms", 5, "spread: 10ms", 0.965, 0.10, 1741 * time.Microsecond, 10},
		{"over 10 ms", 20, "spread: 10ms", 0.836, 0.10, 7480 * time.Microsecond, 10},
		{"over 10 ms", 100, "spread: 10ms", 0.261, 0.10, 19659 * time.Microsecond, 10},
		{"hellos", 20, "spread: 1s, count: 60, period: 1s", 1, 0.001, 1330 * time.Microsecond, 2},
		{"hellos", 100, "spread: 1s, count: 60, period: 1s", 0.999, 0.001, 1330 * time.Microsecond, 1},
	}
	for _, c := range cases {
		duration := "3s"
		if c.mode == "hellos" {
			duration = "63s"
		}
		y := fmt.Sprintf(contention, duration, c.n, c.params)
		var frac float64
		var p50s []time.Duration
		for seed := uint64(1); seed <= uint64(c.seeds); seed++ {
			f, p, _ := beacons(t, y, seed)
			frac += f / float64(c.seeds)
			p50s = append(p50s, p)
		}
		slices.Sort(p50s)
		p50 := p50s[len(p50s)/2]
		if bin != "" {
			mode := map[string][]string{"same instant": {"--mode=same"}, "over 10 ms": {"--mode=rand10"},
				"hellos": {"--mode=hello", "--hellos=60"}}[c.mode]
			runs := 10
			if c.mode == "hellos" {
				runs = c.seeds
			}
			frac, med := ns3Mean(t, bin, runs, "frac", "p50", append(mode, fmt.Sprintf("--n=%d", c.n))...)
			if c.ns3p50 > 0 {
				c.ns3p50 = med
			}
			if c.mode == "hellos" {
				frac = min(frac, c.ns3) // the bound asked for: at least 0.999
			}
			c.ns3 = frac
		}
		t.Logf("%s, N = %d: %.3f delivered (ns-3 %.3f), latency p50 %s (ns-3 %s)", c.mode, c.n, frac, c.ns3, p50, c.ns3p50)
		switch {
		case c.mode == "hellos" && frac < c.ns3-c.tol:
			t.Errorf("%s, N = %d: %.4f delivered, want at least %.3f", c.mode, c.n, frac, c.ns3-c.tol)
		case c.mode != "hellos" && (frac < c.ns3-c.tol || frac > c.ns3+c.tol):
			t.Errorf("%s, N = %d: %.3f delivered, want ns-3's %.3f within %.2f", c.mode, c.n, frac, c.ns3, c.tol)
		}
		// Latency: within a third of ns-3's median (the table's
		// p50 is a median over runs of the runs' medians).
		if c.ns3p50 > 0 && (p50 < c.ns3p50*2/3 || p50 > c.ns3p50*4/3) {
			t.Errorf("%s, N = %d: latency p50 %s, ns-3 %s", c.mode, c.n, p50, c.ns3p50)
		}
	}
}

// The setup of scripts/ns3/flood.cc: a 10x10 grid 100 m apart, a 150 m
// unit disk (ns-3's RangePropagationLossModel), one 100-byte flood frame
// (44 + 18 + 4 + 34 bytes) relayed by every node after a jitter below 1 ms.
const gridFlood = `
name: grid-flood
duration: 2s
nodes: {count: 100, placement: grid}
mobility: {model: static, area: [1000, 1000]}
radio: {propagation: unit-disk, range: 150, mac: dcf, hello: {period: 1000s, timeout: 3500s}}
protocol: {name: traffic/beacon, params: {start: 1s, size: 20, flood: true, from: [%d]}}
`

// TestDCFGridFloodAgainstNS3: the flood reaches every node, within 20 %
// of ns-3's mean time over ten runs, from a corner (21.6 ms) and from the
// centre (11.4 ms), and from the corner with routing.relay_jitter at
// 10 ms against flood.cc --jitter_us=10000 (44.9 ms).
func TestDCFGridFloodAgainstNS3(t *testing.T) {
	if netstack.DefaultRelayJitter != time.Millisecond {
		t.Fatalf("ns-3's figures are for a 1 ms relay jitter, the stack's is %s", netstack.DefaultRelayJitter)
	}
	var bin string
	if ns3Live(t) {
		bin = ns3test.Program(t, "flood")
	}
	for _, c := range []struct {
		src    protocol.NodeID
		jitter time.Duration
		ns3    time.Duration
	}{{1, time.Millisecond, 21630 * time.Microsecond}, {45, time.Millisecond, 11444 * time.Microsecond},
		{1, 10 * time.Millisecond, 44860 * time.Microsecond}} {
		if bin != "" {
			ms, _ := ns3Mean(t, bin, 10, "t_all_ms", "", fmt.Sprintf("--src=%d", c.src-1), fmt.Sprintf("--jitter_us=%d", c.jitter.Microseconds()))
			c.ns3 = time.Duration(ms * float64(time.Millisecond))
		}
		y := fmt.Sprintf(gridFlood, c.src)
		if c.jitter != netstack.DefaultRelayJitter {
			y += fmt.Sprintf("routing: {relay_jitter: %s}\n", c.jitter)
		}
		var mean time.Duration
		const seeds = 10
		for seed := uint64(1); seed <= seeds; seed++ {
			_, evs := beaconRun(t, y, "grid-flood.yaml", seed)
			var t0 int64
			first := map[protocol.NodeID]int64{}
			for _, e := range evs {
				switch {
				case e.Ev == trace.EvSend:
					t0 = e.T
				case e.Ev == trace.EvRecv:
					if _, ok := first[e.Node]; !ok {
						first[e.Node] = e.T
					}
				}
			}
			if len(first) != 99 {
				t.Fatalf("flood from %d, seed %d: %d of 99 nodes reached", c.src, seed, len(first))
			}
			var last int64
			for _, v := range first {
				last = max(last, v-t0)
			}
			mean += time.Duration(last) / seeds
		}
		t.Logf("flood from node %d, jitter %s: all reached in %s on average (ns-3 %s)", c.src, c.jitter, mean, c.ns3)
		if mean < c.ns3*8/10 || mean > c.ns3*12/10 {
			t.Errorf("flood from node %d, jitter %s: all reached in %s, want ns-3's %s within 20 %%", c.src, c.jitter, mean, c.ns3)
		}
	}
}
