package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "manetlab/adhoc"
	_ "manetlab/baseline"
	"manetlab/mutex/mutextest"
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

// TestSweepVariesWorkloadRate: --vary workload.rate sets the generator's
// rate per point, on a file whose workload is the plain list form.
func TestSweepVariesWorkloadRate(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("duration: 10s\nnodes: {count: 3}\nmobility: {area: [100, 100]}\nprotocol: {name: "+mutextest.Name+"}\n"+
		"workload: [{at: 2s, node: 1, command: elect}]\n"), 0o644)
	res, err := Run(Options{Scenario: sc, Seeds: 1, Out: filepath.Join(dir, "out"), Sets: []string{"workload.hold=20ms"},
		Axes: []Axis{{"workload.rate", []string{"0", "0.5", "saturate"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 3 {
		t.Fatalf("%d points", len(res.Points))
	}
	var enters []int
	for _, v := range []string{"0", "0.5", "saturate"} {
		files, _ := filepath.Glob(filepath.Join(dir, "out", "workload.rate="+v, "seed1", "node-*.jsonl"))
		if len(files) != 3 {
			t.Fatalf("rate %s: node files %v", v, files)
		}
		n := 0
		for _, f := range files {
			b, _ := os.ReadFile(f)
			n += bytes.Count(b, []byte(`"ev":"cs-enter"`))
		}
		enters = append(enters, n)
	}
	t.Logf("sections at rates 0, 0.5, saturate: %v; valid runs %d %d %d", enters, res.Points[0].Valid, res.Points[1].Valid, res.Points[2].Valid)
	// 3 nodes for 9s: none at rate 0, about 13 at 0.5/s, hundreds when
	// saturated (20ms holds back to back).
	if enters[0] != 0 || enters[1] == 0 || enters[2] < 10*enters[1] {
		t.Errorf("sections at rates 0, 0.5, saturate: %v", enters)
	}
	_, err = Run(Options{Scenario: sc, Out: filepath.Join(dir, "bad"), Axes: []Axis{{"workload.rate", []string{"1", "-1"}}}})
	if err == nil || !strings.Contains(err.Error(), "workload.rate: -1 is negative") {
		t.Fatalf("bad rate: %v", err)
	}
}
