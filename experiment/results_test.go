package experiment

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"manetlab/internal/tidy/tidytest"
)

// smallSweep is a grid of four points over two seeds on a short run.
func smallSweep(t *testing.T) Options {
	dir := t.TempDir()
	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte("duration: 10s\nnodes: {count: 5, placement: grid}\nmobility: {area: [300, 300]}\nradio: {range: 250}\n"), 0o644)
	return Options{Scenario: sc, Seeds: 2, Workers: 2, Version: "manetlab test",
		Axes: []Axis{{"protocol.name", []string{"adhoc/vasudevan", "baseline/floodmax"}}, {"nodes.count", []string{"4", "6"}}}}
}

func TestPlanIDsAreStableAndDistinct(t *testing.T) {
	opt := smallSweep(t)
	a, err := NewPlan(opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewPlan(opt)
	if len(a.Runs) != 8 || !reflect.DeepEqual(a.Runs[3].ID, b.Runs[3].ID) {
		t.Fatalf("plans differ: %d runs", len(a.Runs))
	}
	seen := map[string]bool{}
	for i, r := range a.Runs {
		if seen[r.ID] || len(r.ID) != 16 || r.ID != b.Runs[i].ID {
			t.Fatalf("run %d: id %q repeated, malformed or unstable", i, r.ID)
		}
		seen[r.ID] = true
	}
	opt.Sets = []string{"radio.range=200"}
	c, err := NewPlan(opt)
	if err != nil {
		t.Fatal(err)
	}
	if c.Hash == a.Hash || c.Runs[0].ID == a.Runs[0].ID {
		t.Fatal("another base scenario kept the ids")
	}
	// The slices of a plan partition it.
	var all []int
	for i := 0; i < 3; i++ {
		all = append(all, a.Shard(i, 3)...)
	}
	if len(all) != 8 {
		t.Fatalf("3 slices hold %d runs", len(all))
	}
}

func TestOverlappingShardsLeaveWholeRecordsAndTheSameTable(t *testing.T) {
	opt := smallSweep(t)
	want, recs, err := RunRecords(opt)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "results")
	// Slices 0/2 and 0/4 overlap (runs 0 and 4), as do two copies of 1/4:
	// all four run at once.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for k, s := range [][2]int{{0, 2}, {0, 4}, {1, 4}, {1, 4}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[k] = RunShard(opt, dir, s[0], s[1], false)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	g, err := Gather(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 0/2 holds 0,2,4,6; 1/4 holds 1,5: runs 3 and 7 are missing.
	if len(g.Missing) != 2 || g.Missing[0].ID != g.Plan.Runs[3].ID || g.Missing[1].ID != g.Plan.Runs[7].ID {
		t.Fatalf("missing %+v", g.Missing)
	}
	rep, err := RunShard(opt, dir, 3, 4, false)
	if err != nil || rep.Runs != 2 || rep.Ran != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	// Every run there now: a second pass skips them all.
	if rep, err := RunShard(opt, dir, 0, 1, false); err != nil || rep.Skipped != 8 || rep.Ran != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "sweep-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if len(entries) != 9 {
		t.Errorf("%d entries, want 8 records and the manifest", len(entries))
	}
	if g, err = Gather(dir); err != nil || len(g.Missing)+len(g.Failed) != 0 {
		t.Fatalf("%v", err)
	}
	var a, b bytes.Buffer
	want.WriteTable(&a)
	g.Result().WriteTable(&b)
	if a.String() != b.String() {
		t.Fatalf("gathered table\n%s\nwant\n%s", &b, &a)
	}
	for i, r := range g.Records {
		if !reflect.DeepEqual(r.Metrics, recs[i].Metrics) || r.Verdict != recs[i].Verdict {
			t.Errorf("run %d: metrics differ from the one-machine sweep's", i)
		}
	}
	// Another sweep may not write into this directory.
	opt.Seeds = 3
	if _, err := RunShard(opt, dir, 0, 1, false); err == nil || !strings.Contains(err.Error(), "another sweep") {
		t.Fatalf("another grid accepted: %v", err)
	}
}

func TestRecordKeepsEveryFloatExactly(t *testing.T) {
	dir := t.TempDir()
	in := &Record{ID: "x", Metrics: Metrics{"a": 0.1 + 0.2, "b": 1e-300, "c": 3, "inf": +inf(), "ninf": -inf()}, Version: "v"}
	if err := WriteRecord(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadRecord(dir, "x")
	if err != nil || !reflect.DeepEqual(in.Metrics, out.Metrics) {
		t.Fatalf("%v %v", out, err)
	}
	os.WriteFile(RecordPath(dir, "y"), []byte(`{"id":"z"}`), 0o644)
	if _, err := ReadRecord(dir, "y"); err == nil || !strings.Contains(err.Error(), "y.json: field id") {
		t.Fatalf("a misnamed record: %v", err)
	}
}

func inf() float64 { return math.Inf(1) }

func TestProgressEstimatesTheTimeLeft(t *testing.T) {
	p := &Plan{Hash: "h", Seeds: 10}
	p.lay()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := &Gathered{Plan: p, Missing: p.Runs[5:], Failed: []*Record{{ID: "f"}}, First: t0, Last: t0.Add(8 * time.Second)}
	// 5 records (one failed) in 8 s after the first: 0.5 runs/s, 5 left.
	if got := g.Progress(t0); got != "4/10 runs done, 1 failed, 5 remaining, about 10s left at 0.50 runs/s" {
		t.Fatal(got)
	}
}

// TestTidyTablesHoldEveryValue reads runs.parquet back with Arrow's
// reader and runs.csv with encoding/csv, and checks every cell against
// the records.
func TestTidyTablesHoldEveryValue(t *testing.T) {
	opt := smallSweep(t)
	_, recs, err := RunRecords(opt)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewPlan(opt)
	recs[1].Error, recs[1].Verdict, recs[1].Metrics = "boom", "", nil // a failed run's row
	dir := t.TempDir()
	if _, err := WriteTidy(dir, p, recs); err != nil {
		t.Fatal(err)
	}
	names, rows := tidytest.ReadWithArrow(t, filepath.Join(dir, RunsParquet))
	f, _ := os.Open(filepath.Join(dir, RunsCSV))
	table, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(table[0], names) {
		t.Fatalf("csv header %v, parquet %v", table[0], names)
	}
	wantHead := "id protocol.name nodes.count seed verdict error F leader R T M_bcast M_ucast wrong_or_unknown messages frames frames_per_election wall_s cpu_s version scenario_hash run_hash"
	if strings.Join(names, " ") != wantHead {
		t.Fatalf("columns %v", names)
	}
	if len(rows) != len(recs) || len(table) != len(recs)+1 {
		t.Fatalf("%d parquet rows, %d csv rows, want %d", len(rows), len(table)-1, len(recs))
	}
	for i, r := range recs {
		n, _ := strconv.ParseInt(r.Values[1], 10, 64)
		want := map[string]any{"id": r.ID, "protocol.name": r.Values[0], "nodes.count": n, "seed": int64(r.Seed), "wall_s": r.Wall, "cpu_s": r.CPU,
			"version": "manetlab test", "scenario_hash": p.Hash, "run_hash": r.RunHash, "verdict": nil, "error": nil}
		if r.Verdict != "" {
			want["verdict"] = r.Verdict
		}
		if r.Error != "" {
			want["error"] = r.Error
		}
		for c, name := range names {
			w, ok := want[name]
			if !ok {
				w = nil
				if v, has := r.Metrics[name]; has {
					w = v
				}
			}
			if got := rows[i][c]; !reflect.DeepEqual(got, w) {
				t.Errorf("run %d %s: parquet %#v, want %#v", i, name, got, w)
			}
			txt := ""
			switch w := w.(type) {
			case string:
				txt = w
			case int64:
				txt = fmt.Sprint(w)
			case float64:
				txt = strconv.FormatFloat(w, 'g', -1, 64)
			}
			if table[i+1][c] != txt {
				t.Errorf("run %d %s: csv %q, want %q", i, name, table[i+1][c], txt)
			}
		}
	}
}

// TestFailedRunsAreRecordedAndRunAgain makes every run of a slice fail
// (its trace directory cannot be made), then runs the slice again.
func TestFailedRunsAreRecordedAndRunAgain(t *testing.T) {
	opt := smallSweep(t)
	opt.Axes, opt.Seeds = opt.Axes[:1], 1
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, TracesDir), []byte("not a directory"), 0o644)
	rep, err := RunShard(opt, dir, 0, 1, true)
	if err != nil || rep.Ran != 2 || rep.Failed != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	g, err := Gather(dir)
	if err != nil || len(g.Failed) != 2 || g.Done() != 0 || len(g.Rows) != 2 {
		t.Fatalf("%+v %v", g, err)
	}
	var missing bytes.Buffer
	g.WriteMissing(&missing)
	if !strings.HasPrefix(missing.String(), "failed "+g.Plan.Runs[0].ID+" [adhoc/vasudevan] seed 1: ") {
		t.Fatalf("%q", missing.String())
	}
	os.Remove(filepath.Join(dir, TracesDir))
	if rep, err = RunShard(opt, dir, 0, 1, true); err != nil || rep.Skipped != 0 || rep.Ran != 2 || rep.Failed != 0 {
		t.Fatalf("the failed runs were not run again: %+v %v", rep, err)
	}
	if g, err = Gather(dir); err != nil || g.Done() != 2 {
		t.Fatalf("%v", err)
	}
}
