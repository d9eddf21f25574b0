package sim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "manetlab/baseline"
	"manetlab/scenario"
	"manetlab/trace/report"
)

func parse(t *testing.T, y string, sets ...string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(y), "test.yaml", sets)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func run(t *testing.T, s *scenario.Scenario, dir string) *report.Summary {
	t.Helper()
	if _, err := Run(s, Options{Out: dir}); err != nil {
		t.Fatalf("seed %d: %v", s.Seed, err)
	}
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatalf("seed %d: %v", s.Seed, err)
	}
	return sum
}

const mobileYAML = `
duration: 40s
nodes: {count: 15}
radio: {range: 250}
mobility: {model: random-waypoint, area: [800, 800], speed: [2, 8], pause: 1s}
faults:
  - {at: 8s, crash: [3]}
  - {at: 14s, recover: [3]}
`

func TestSameSeedSameBytes(t *testing.T) {
	s := parse(t, mobileYAML, "seed=5", "radio.loss.p=0.1")
	a, b := t.TempDir(), t.TempDir()
	run(t, s, a)
	run(t, parse(t, mobileYAML, "seed=5", "radio.loss.p=0.1"), b)
	files, _ := filepath.Glob(filepath.Join(a, "*.jsonl"))
	if len(files) != 16 {
		t.Fatalf("want 16 trace files, got %d", len(files))
	}
	for _, f := range files {
		x, _ := os.ReadFile(f)
		y, err := os.ReadFile(filepath.Join(b, filepath.Base(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two runs with the same seed", filepath.Base(f))
		}
	}
	c := t.TempDir()
	run(t, parse(t, mobileYAML, "seed=6", "radio.loss.p=0.1"), c)
	x, _ := os.ReadFile(filepath.Join(a, "node-1.jsonl"))
	y, _ := os.ReadFile(filepath.Join(c, "node-1.jsonl"))
	if bytes.Equal(x, y) {
		t.Fatal("different seeds wrote identical traces")
	}
}

// settledYAML moves nodes by random waypoint for a while, then leaves them
// still long enough (three leases) for floodmax to settle.
func settledYAML(n int, area float64) string {
	return fmt.Sprintf(`
duration: 50s
nodes: {count: %d}
radio: {range: 250}
mobility: {model: random-waypoint, area: [%g, %g], speed: [3, 10], pause: 0s}
`, n, area, area)
}

func TestFloodMaxElectsBestPerComponent(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		sets []string
	}{
		{"static-connected", "duration: 20s\nnodes: {count: 30, placement: grid}\nmobility: {area: [800, 800]}\nradio: {range: 250}\n", nil},
		{"static-sparse", "duration: 20s\nnodes: {count: 25}\nmobility: {area: [1500, 1500]}\nradio: {range: 250}\n", nil},
		{"static-lossy", "duration: 20s\nnodes: {count: 25}\nmobility: {area: [800, 800]}\nradio: {range: 250, loss: {p: 0.1}}\n", nil},
		{"crash", mobileYAML, []string{"mobility.model=static", "duration=30s"}},
	}
	for _, tc := range cases {
		for seed := 1; seed <= 12; seed++ {
			sets := append([]string{fmt.Sprintf("seed=%d", seed)}, tc.sets...)
			s := parse(t, tc.yaml, sets...)
			sum := run(t, s, t.TempDir())
			if sum.Verdict != "valid" {
				t.Fatalf("%s seed %d: verdict %s: %+v", tc.name, seed, sum.Verdict, sum.Components)
			}
		}
	}
}

func TestFloodMaxAfterMobility(t *testing.T) {
	// Mobility stops at 30s (the waypoint trajectories end) and the run
	// goes on to 50s: every component must then agree on its best node.
	for seed := 1; seed <= 20; seed++ {
		s := parse(t, settledYAML(20, 1200), fmt.Sprintf("seed=%d", seed), "duration=30s")
		mob, err := s.MobilityModel()
		if err != nil {
			t.Fatal(err)
		}
		var list strings.Builder
		list.WriteString("duration: 50s\nmobility: {model: waypoints, area: [1200, 1200]}\nradio: {range: 250}\nnodes:\n  list:\n")
		for _, m := range s.Members() {
			p0 := mob.Position(m.Index, 0)
			fmt.Fprintf(&list, "    - {id: %d, value: %g, pos: [%g, %g], waypoints: [", m.ID, m.Value, p0.X, p0.Y)
			for k := 1; k <= 6; k++ {
				p := mob.Position(m.Index, secs(5*k))
				if k > 1 {
					list.WriteString(", ")
				}
				fmt.Fprintf(&list, "{at: %ds, pos: [%g, %g]}", 5*k, p.X, p.Y)
			}
			list.WriteString("]}\n")
		}
		s2 := parse(t, list.String(), fmt.Sprintf("seed=%d", seed))
		sum := run(t, s2, t.TempDir())
		if sum.Verdict != "valid" {
			t.Fatalf("seed %d: verdict %s: %+v", seed, sum.Verdict, sum.Components)
		}
	}
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }
