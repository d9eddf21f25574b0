package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// dcfBeacons is issue 25's 10 ms case: N nodes all in range of each
// other broadcast one 100-byte frame each, their starts spread uniformly
// over 10 ms from 20 ms, on the DCF medium; no hellos. The last frame is
// judged by 46 ms in the simulator on seeds 1-3: 60 ms leave room for a
// real run's backoffs, and keep a dilated run short.
const dcfBeacons = `name: dcf-beacons
duration: 60ms
nodes: {count: %d, placement: uniform}
mobility: {model: static, area: [50, 50]}
radio: {propagation: log-distance, exponent: 3, tx_power: 20, range: 250, mac: dcf, hello: {period: 1000s, timeout: 3500s}}
protocol: {name: traffic/beacon, params: {start: 20ms, spread: 10ms, size: 38}}
`

// dcfDilation is how many times slower than the wall clock the real
// processes of TestDCFRealProcessesBeacons run: 60 ms of the model last
// 12 s.
const dcfDilation = 200

// beaconRun is what the traces of one run of dcfBeacons say.
type beaconRun struct {
	sent, recv int
	// unjudged counts (beacon, other node) pairs with no recv or drop.
	unjudged   int
	collisions int
	latencies  []time.Duration // recv less send
	stats      []string        // real nodes' stats lines
	lateBoot   []string        // nodes that started late, near the beacons
}

func (r *beaconRun) fraction(n int) float64 { return float64(r.recv) / float64(r.sent*(n-1)) }

func (r *beaconRun) p50() time.Duration {
	if len(r.latencies) == 0 {
		return -1
	}
	slices.Sort(r.latencies)
	return r.latencies[len(r.latencies)/2]
}

// readBeaconRun reads the traces of n nodes in dir.
func readBeaconRun(t *testing.T, dir string, n int) *beaconRun {
	t.Helper()
	type tx struct {
		node protocol.NodeID
		seq  uint64
	}
	sends := map[tx]int64{}
	judged := map[tx]map[protocol.NodeID]int{}
	var evs []trace.Event
	for id := protocol.NodeID(1); id <= protocol.NodeID(n); id++ {
		_, err := trace.ScanEvents(trace.NodeFile(dir, id), nil, func(e *trace.Event, _ int) error {
			evs = append(evs, *e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	r := &beaconRun{}
	for _, e := range evs {
		if e.Ev == trace.EvSend && e.Kind == "beacon" {
			sends[tx{e.Node, e.Seq}] = e.T
			judged[tx{e.Node, e.Seq}] = map[protocol.NodeID]int{}
			r.sent++
		}
		if e.Ev == trace.EvStats {
			r.stats = append(r.stats, e.Text)
		}
		if e.Ev == trace.EvStart && e.T >= int64(15*time.Millisecond) { // the beacons start at 20 ms
			r.lateBoot = append(r.lateBoot, fmt.Sprintf("node %d at %v", e.Node, time.Duration(e.T)))
		}
	}
	for _, e := range evs {
		if e.Kind != "beacon" || e.Ev != trace.EvRecv && e.Ev != trace.EvDrop {
			continue
		}
		k := tx{e.From, e.Seq}
		at, ok := sends[k]
		if !ok {
			t.Fatalf("%s: node %d: %s of a beacon (%d, %d) never sent", dir, e.Node, e.Ev, e.From, e.Seq)
		}
		judged[k][e.Node]++
		switch {
		case e.Ev == trace.EvRecv:
			r.recv++
			r.latencies = append(r.latencies, time.Duration(e.T-at))
		case e.Reason == "collision":
			r.collisions++
		}
	}
	for k, by := range judged {
		for id := protocol.NodeID(1); id <= protocol.NodeID(n); id++ {
			if id != k.node && by[id] != 1 {
				r.unjudged++
			}
		}
	}
	return r
}

// statValue is the value of name=V in a node's stats line, 0 if absent.
func statValue(line, name string) int {
	for _, f := range strings.Fields(line) {
		var v int
		if after, ok := strings.CutPrefix(f, name+"="); ok {
			fmt.Sscan(after, &v)
			return v
		}
	}
	return 0
}

// TestDCFRealProcessesBeacons runs issue 25's 10 ms case (N = 20) on the
// DCF medium in the simulator and as 20 real node processes over UDP
// multicast, in time dilated dcfDilation times (run --dilation), on three
// seeds. In the real run every process applies the medium to every frame
// at its node (each beacon is received or dropped exactly once at every
// other node, collisions among the drops, no air section refused), and
// `trace check` reads the dilated run. The delivered fraction is expected
// within 0.10 of the simulator's when the frames' datagrams arrive within
// 8 µs of their stamped start in the model's time (the median arrival
// lag the nodes measure by their dilated clocks, the host's lag over the
// dilation, rounded up to a power of two; the simulator with a carrier
// sense 10 µs late delivers 0.748 against 0.787 over seeds 1-10, 20 µs
// late 0.586): beyond, a node senses its neighbours' frames that much
// late, and more of them collide (docs/node.md, "The DCF medium in real
// processes"); then the figures are logged and the real fraction must
// not exceed the simulator's by more than 0.10.
func TestDCFRealProcessesBeacons(t *testing.T) {
	const n = 20
	seeds := []string{"1", "2", "3"}
	path := filepath.Join(t.TempDir(), "beacons.yaml")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(dcfBeacons, n)), 0o644); err != nil {
		t.Fatal(err)
	}
	var simFrac float64
	for _, seed := range seeds {
		dir := t.TempDir()
		if out, err := runCLI(t, "sim", path, "--out", dir, "--quiet", "--seed", seed); err != nil {
			t.Fatalf("sim: %v\n%s", err, out)
		}
		r := readBeaconRun(t, dir, n)
		if r.sent != n || r.unjudged != 0 {
			t.Fatalf("sim seed %s: %d beacons sent, %d pairs unjudged", seed, r.sent, r.unjudged)
		}
		simFrac += r.fraction(n) / float64(len(seeds))
		t.Logf("sim seed %s: delivered %.3f, latency p50 %v, %d collisions", seed, r.fraction(n), r.p50(), r.collisions)
	}
	if !realProcesses(t) {
		return
	}
	var realFrac float64
	var lag, collisions int
	for _, seed := range seeds {
		dir := t.TempDir()
		// A start 4 s ahead: 20 processes of the test binary start
		// within it on a loaded machine.
		began := time.Now()
		if out, err := runCLI(t, "run", path, "--out", dir, "--quiet", "--seed", seed, "--start-delay", "4s",
			"--dilation", fmt.Sprint(dcfDilation)); err != nil {
			t.Fatalf("run: %v\n%s", err, out)
		}
		if took, want := time.Since(began), dcfDilation*60*time.Millisecond; took < want {
			t.Fatalf("run seed %s took %v, less than the duration dilated %d times (%v)", seed, took, dcfDilation, want)
		}
		if seed == seeds[0] {
			// The analysis orders events by their clocks (host time),
			// and reads t as the model's: a dilated run checks.
			if out, err := runCLI(t, "trace", "check", dir); err != nil {
				t.Fatalf("trace check of a dilated run: %v\n%s", err, out)
			}
		}
		r := readBeaconRun(t, dir, n)
		if len(r.lateBoot) > 0 {
			t.Fatalf("run seed %s: processes started late (%s): the machine is too loaded for the comparison", seed, strings.Join(r.lateBoot, ", "))
		}
		if r.sent != n || r.unjudged != 0 || len(r.stats) != n {
			t.Fatalf("run seed %s: %d beacons sent, %d (beacon, node) pairs not judged exactly once, %d stats lines", seed, r.sent, r.unjudged, len(r.stats))
		}
		seedLag := 0
		for _, st := range r.stats {
			if statValue(st, "dilation") != dcfDilation {
				t.Fatalf("run seed %s: a node's stats do not say dilation=%d: %s", seed, dcfDilation, st)
			}
			if statValue(st, "air") != 0 || statValue(st, "air-frames") != n-1 {
				t.Fatalf("run seed %s: a node refused air sections, or did not put the %d others' frames on its air: %s", seed, n-1, st)
			}
			seedLag = max(seedLag, statValue(st, "air-lag-p50-us"))
		}
		lag = max(lag, seedLag)
		collisions += r.collisions
		realFrac += r.fraction(n) / float64(len(seeds))
		t.Logf("run seed %s: delivered %.3f, latency p50 %v, %d collisions; arrival lag p50 at most %d µs of the model (%v of the host's)",
			seed, r.fraction(n), r.p50(), r.collisions, seedLag, time.Duration(seedLag*dcfDilation)*time.Microsecond)
	}
	t.Logf("delivered: sim %.3f, real processes dilated %d times %.3f (mean of seeds %v); arrival lag p50 up to %d µs of the model",
		simFrac, dcfDilation, realFrac, seeds, lag)
	if collisions == 0 {
		t.Fatalf("no collision in the real runs")
	}
	if lag <= 8 {
		if d := realFrac - simFrac; d > 0.10 || d < -0.10 {
			t.Fatalf("with frames arriving within %d µs of the model, the real processes delivered %.3f, the simulator %.3f", lag, realFrac, simFrac)
		}
		return
	}
	if realFrac > simFrac+0.10 {
		t.Fatalf("real processes delivered %.3f, more than the simulator's %.3f + 0.10, though their carrier sense is late", realFrac, simFrac)
	}
}
