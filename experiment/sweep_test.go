package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "manetlab/adhoc"
	_ "manetlab/baseline"
)

func TestParseAxisKeepsYAMLLists(t *testing.T) {
	a, err := ParseAxis("mobility.speed=[1,3]|[1,19]")
	if err != nil || a.Path != "mobility.speed" || len(a.Values) != 2 || a.Values[1] != "[1,19]" {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range []string{"nodes.count", "=1|2", "nodes.count="} {
		if _, err := ParseAxis(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestGridIsEveryCombination(t *testing.T) {
	g := grid([]Axis{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}})
	if len(g) != 6 || strings.Join(g[0], ",") != "1,x" || strings.Join(g[5], ",") != "2,z" {
		t.Fatalf("%v", g)
	}
}

func TestSweepRunsEveryPointAndSeed(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("duration: 20s\nnodes: {count: 6, placement: grid}\nmobility: {area: [300, 300]}\nradio: {range: 250}\n"), 0o644)
	res, err := Run(Options{Scenario: sc, Seeds: 2, Out: filepath.Join(dir, "out"),
		Axes: []Axis{{"protocol.name", []string{"adhoc/vasudevan", "baseline/floodmax"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 {
		t.Fatalf("%d points", len(res.Points))
	}
	adhoc, flood := res.Points[0], res.Points[1]
	if adhoc.Runs != 2 || flood.Runs != 2 || adhoc.Valid != 2 || flood.Valid != 2 {
		t.Fatalf("runs/valid: %+v %+v", adhoc, flood)
	}
	if _, ok := adhoc.Mean["F"]; !ok {
		t.Fatalf("the tree election has no F: %v", adhoc.Mean)
	}
	if _, ok := flood.Mean["F"]; ok {
		t.Fatalf("floodmax holds no elections but got F: %v", flood.Mean)
	}
	if adhoc.Mean["wrong_or_unknown"] > 0.2 || adhoc.Mean["leader"] < 0.8 {
		t.Fatalf("a static connected network should mostly have the right leader: %v", adhoc.Mean)
	}
	var out bytes.Buffer
	res.WriteTable(&out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "adhoc/vasudevan") || !strings.Contains(lines[2], "2/2") {
		t.Fatalf("table:\n%s", out.String())
	}
	// The traces of every run are kept.
	if m, _ := filepath.Glob(filepath.Join(dir, "out", "*", "seed2", "run.jsonl")); len(m) != 2 {
		t.Fatalf("run files %v", m)
	}
	// A bad combination fails before anything runs.
	_, err = Run(Options{Scenario: sc, Out: filepath.Join(dir, "bad"), Axes: []Axis{{"radio.range", []string{"100", "-5"}}}})
	if err == nil || !strings.Contains(err.Error(), "radio.range") {
		t.Fatalf("bad value: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
		t.Fatal("a run started before the grid was validated")
	}
}
