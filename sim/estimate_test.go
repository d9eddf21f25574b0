package sim

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/report"
)

// TestEstimateMatchesRun: the pre-start estimate of a floodmax grid of
// 900 nodes for 25 s (pilots of 400 and 200 nodes at the same density,
// 20 s, carried to 25 s: the real pilots' 4,000 nodes scaled down ten
// times, with no CPU bound, so that the figures do not depend on the
// machine's speed, nor the test's time on -race) predicts the run's events, trace bytes and recorded
// events within 10 % (the issue asks 30 % of its figures); and a run the
// pilot covers whole (quickstart) is predicted exactly.
func TestEstimateMatchesRun(t *testing.T) {
	defer func(f, q pilotLimits) { fullPilot, quickPilot = f, q }(fullPilot, quickPilot)
	fullPilot = pilotLimits{nodes: 400, minEvents: 20_000, maxEvents: PilotEvents, cpu: time.Hour}
	quickPilot = pilotLimits{nodes: 400, minEvents: quickEvents, maxEvents: quickEvents, cpu: time.Hour}
	grid := "name: g\nduration: 25s\nnodes: {count: 900, values: random, placement: grid}\n" +
		"radio: {propagation: unit-disk, range: 150, mac: ideal}\nmobility: {model: static, area: [3000, 3000]}\n"
	small := "name: s\nduration: 60s\nnodes: {count: 20}\nmobility: {model: random-waypoint, area: [600, 600], speed: [1, 5]}\n" +
		"faults: [{at: 20s, crash: [20]}]\n"
	for _, c := range []struct {
		name, y string
		tol     float64
		scaled  bool
	}{{"grid", grid, 0.10, true}, {"small", small, 1e-9, false}} {
		s, err := scenario.Parse([]byte(c.y), c.name+".yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		// The grid through the full pilots (its quick one, 20,000 events,
		// finds it small: 17 MB), the small run as EstimateRun does it.
		e, err := EstimateRun(s, report.Keep)
		if c.scaled {
			e, err = estimate(s, report.Keep, fullPilot)
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Pilot.Scaled != c.scaled || (c.scaled && e.Pilot.Virtual < PilotTime) {
			t.Errorf("%s: pilot %+v, want scaled %v", c.name, e.Pilot, c.scaled)
		}
		dir := t.TempDir()
		res, err := Run(s, Options{Out: dir, Record: report.Keep})
		if err != nil {
			t.Fatal(err)
		}
		var bytes int64
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			bytes += st.Size()
		}
		recorded := 0
		names, err := res.Recording.Names(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if _, err := res.Recording.ScanEvents(filepath.Join(dir, name), report.Keep, func(*trace.Event, int) error { recorded++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range []struct {
			what      string
			got, want float64
		}{
			{"events", e.Events, float64(res.Events)},
			{"trace bytes", e.TraceBytes, float64(bytes)},
			{"recorded events", e.Recorded, float64(recorded)},
		} {
			if math.Abs(m.got-m.want) > c.tol*m.want {
				t.Errorf("%s: %s estimated %.0f, measured %.0f", c.name, m.what, m.got, m.want)
			} else {
				t.Logf("%s: %s estimated %.0f, measured %.0f", c.name, m.what, m.got, m.want)
			}
		}
	}
}

// TestQuickPilotStandsForMidSizedRun: a 2,000-node grid for 30 s is small
// enough (well under the CLI's 1 GiB and 30 s) that EstimateRun keeps the
// quick pilot's figures (500 nodes and 250, scaled up), and they are
// within 15 % of the full pilot's (which runs this grid whole).
func TestQuickPilotStandsForMidSizedRun(t *testing.T) {
	defer func(f, q pilotLimits) { fullPilot, quickPilot = f, q }(fullPilot, quickPilot)
	fullPilot.cpu, quickPilot.cpu = time.Hour, time.Hour // machine-independent
	y := "name: g\nduration: 30s\nnodes: {count: 2000, values: random, placement: grid}\n" +
		"radio: {propagation: unit-disk, range: 150, mac: ideal}\nmobility: {model: static, area: [4500, 4500]}\n"
	s, err := scenario.Parse([]byte(y), "g.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := EstimateRun(s, report.Keep)
	if err != nil {
		t.Fatal(err)
	}
	if q.Pilot.Nodes != quickNodes || !q.Pilot.Scaled {
		t.Fatalf("EstimateRun's pilot %+v, want the quick one of %d nodes, scaled", q.Pilot, quickNodes)
	}
	f, err := estimate(s, report.Keep, fullPilot)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		what        string
		quick, full float64
	}{{"events", q.Events, f.Events}, {"trace bytes", q.TraceBytes, f.TraceBytes}, {"recorded", q.Recorded, f.Recorded}} {
		if math.Abs(m.quick-m.full) > 0.15*m.full {
			t.Errorf("%s: quick pilot %.0f, full %.0f", m.what, m.quick, m.full)
		} else {
			t.Logf("%s: quick pilot %.0f, full %.0f", m.what, m.quick, m.full)
		}
	}
}
