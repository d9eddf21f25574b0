package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, c := range []struct {
		spec string
		vars map[string]string
		i, n int
		err  string
	}{
		{"2/4", nil, 2, 4, ""},
		{"0/1", nil, 0, 1, ""},
		{"4/4", nil, 0, 0, "0 <= I < N"},
		{"-1/4", nil, 0, 0, "0 <= I < N"},
		{"x", nil, 0, 0, "want I/N or N"},
		{"4", map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, 3, 4, ""},
		{"4", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 0, 4, ""},
		{"4", map[string]string{"PARALLEL_SEQ": "4"}, 3, 4, ""},
		{"4", map[string]string{"PARALLEL_SEQ": "5"}, 0, 0, "PARALLEL_SEQ=\"5\" gives slice 4"},
		{"4", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "PARALLEL_SEQ": "1"}, 1, 4, ""},
		{"4", nil, 0, 0, "none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, PARALLEL_SEQ is set"},
	} {
		i, n, err := parseShard(c.spec, env(c.vars))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %v: error %v, want %q", c.spec, c.vars, err, c.err)
			}
			continue
		}
		if err != nil || i != c.i || n != c.n {
			t.Errorf("%s %v: %d/%d %v, want %d/%d", c.spec, c.vars, i, n, err, c.i, c.n)
		}
	}
}

// sweepGrid is a small sweep's arguments (4 points, 2 seeds, short runs).
var sweepGrid = []string{"sweep", "../../configs/static-line.yaml", "--set", "nodes.list=[]", "--set", "duration=20s",
	"--vary", "nodes.count=4|6", "--vary", "protocol.name=adhoc/vasudevan|baseline/floodmax", "--seeds", "2", "--quiet"}

func sweepArgs(extra ...string) []string { return append(append([]string{}, sweepGrid...), extra...) }

func TestSweepShardsCollectToTheOneMachineTable(t *testing.T) {
	dir := t.TempDir()
	one, err := runCLI(t, sweepArgs("--out", filepath.Join(dir, "one"))...)
	if err != nil {
		t.Fatal(err)
	}
	oneJSON, err := runCLI(t, sweepArgs("--out", filepath.Join(dir, "one"), "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"runs.csv", "runs.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, "one", name)); err != nil {
			t.Errorf("the one-machine sweep wrote no %s: %v", name, err)
		}
	}
	plan, err := runCLI(t, sweepArgs("--plan")...)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(plan), "\n")
	if len(lines) != 9 || lines[0] != "id\tnodes.count\tprotocol.name\tseed" {
		t.Fatalf("plan:\n%s", plan)
	}
	if again, _ := runCLI(t, sweepArgs("--plan")...); again != plan {
		t.Fatal("the same grid planned other ids")
	}
	res := filepath.Join(dir, "results")
	for _, shard := range []string{"0/3", "2/3"} {
		if _, err := runCLI(t, sweepArgs("--results", res, "--shard", shard)...); err != nil {
			t.Fatal(err)
		}
	}
	// Slice 1/3 has not run: collect prints what there is and names the
	// runs missing, by the plan's ids.
	_, err = runCLI(t, "sweep", "collect", res, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "3 of 8 runs missing") {
		t.Fatalf("collect of 2 slices of 3: %v", err)
	}
	// --watch waits for the last slice, run meanwhile.
	watched := make(chan error, 1)
	go func() {
		_, err := runCLI(t, "sweep", "collect", res, "--quiet", "--watch", "--every", "20ms")
		watched <- err
	}()
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	if _, err := runCLI(t, sweepArgs("--results", res, "--shard", "3")...); err != nil {
		t.Fatal(err)
	}
	if err := <-watched; err != nil {
		t.Fatalf("collect --watch: %v", err)
	}
	for _, l := range lines[1:] {
		if _, err := os.Stat(filepath.Join(res, strings.Fields(l)[0]+".json")); err != nil {
			t.Errorf("no record named by the plan's id: %v", err)
		}
	}
	got, err := runCLI(t, "sweep", "collect", res, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if got != one {
		t.Fatalf("collected table\n%s\nthe one-machine sweep's\n%s", got, one)
	}
	if got, err = runCLI(t, "sweep", "collect", res, "--json", "--watch", "--quiet"); err != nil || got != oneJSON {
		t.Fatalf("collected JSON differs (%v):\n%s\nwant\n%s", err, got, oneJSON)
	}
	// The chart is the one-machine sweep's.
	if _, err := runCLI(t, sweepArgs("--out", filepath.Join(dir, "one"), "--html", filepath.Join(dir, "one.html"))...); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "sweep", "collect", res, "--quiet", "--html", filepath.Join(dir, "collect.html")); err != nil {
		t.Fatal(err)
	}
	if a, b := pageChart(t, filepath.Join(dir, "one.html")), pageChart(t, filepath.Join(dir, "collect.html")); !reflect.DeepEqual(a, b) {
		t.Fatalf("collected chart %+v\nthe one-machine sweep's %+v", b, a)
	}
	// --traces keeps each run's traces under DIR/traces/ID.
	kept := filepath.Join(dir, "kept")
	if _, err := runCLI(t, sweepArgs("--results", kept, "--shard", "0/8", "--traces")...); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(kept, "traces", strings.Fields(lines[1])[0], "run.jsonl")); err != nil {
		t.Errorf("--traces: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(kept, "traces")); len(entries) != 1 {
		t.Errorf("--traces with slice 0/8: %d trace directories, want 1", len(entries))
	}
	// --results without --shard: the whole sweep, every run already there.
	if got, err = runCLI(t, sweepArgs("--results", res)...); err != nil || got != one {
		t.Fatalf("sweep --results: %v\n%s", err, got)
	}
	if _, err := runCLI(t, sweepArgs("--shard", "0/2")...); err == nil || !strings.Contains(err.Error(), "need --results") {
		t.Fatalf("--shard without --results: %v", err)
	}
	if _, err := runCLI(t, "sweep", "collect", dir); err == nil || !strings.Contains(err.Error(), "no sweep.json") {
		t.Fatalf("collect of a directory that is not one: %v", err)
	}
}
