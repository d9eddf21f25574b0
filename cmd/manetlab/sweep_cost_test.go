package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"manetlab/experiment"
)

// The figures of docs/performance.md ("Sweeps"), measured when
// MANETLAB_SWEEP_COST=1 (they take minutes):
//
//	MANETLAB_SWEEP_COST=1 go test ./cmd/manetlab -run TestSweepCost -v -timeout 30m

func costGate(t *testing.T) {
	if os.Getenv("MANETLAB_SWEEP_COST") == "" {
		t.Skip("measures docs/performance.md's sweep figures: set MANETLAB_SWEEP_COST=1")
	}
}

// TestSweepCostSlurm times the same grid three ways, three times each
// in turn: the one-machine sweep keeping its traces (--out, 2 workers),
// the one-machine sweep into a results directory (--results, 2
// workers, traces removed after each run), and 4 Slurm array tasks of 1
// CPU on the local single-node Slurm (sbatch to the queue empty).
func TestSweepCostSlurm(t *testing.T) {
	costGate(t)
	s := startSlurm(t)
	bin := buildBinary(t)
	work := t.TempDir()
	scenario, _ := filepath.Abs("../../configs/quickstart.yaml")
	grid := []string{"--set", "duration=600s", "--vary", "protocol.name=adhoc/vasudevan|baseline/floodmax", "--vary", "nodes.count=20|40|80", "--seeds", "4"}
	script, _ := filepath.Abs("../../scripts/slurm/sweep.sbatch")
	s.env = append(s.env, "MANETLAB="+bin)
	var one string
	reps := 3
	if r, err := strconv.Atoi(os.Getenv("MANETLAB_SWEEP_COST_REPS")); err == nil {
		reps = r
	}
	for rep := 0; rep < reps; rep++ {
		dir := filepath.Join(work, fmt.Sprint(rep))
		start := time.Now()
		out, err := exec.Command(bin, append(append([]string{"sweep", scenario}, grid...), "--quiet", "--workers", "2", "--out", filepath.Join(dir, "one"))...).Output()
		if err != nil {
			t.Fatal(err)
		}
		oneWall := time.Since(start)
		one = string(out)
		start = time.Now()
		if _, err := exec.Command(bin, append(append([]string{"sweep", scenario}, grid...), "--quiet", "--workers", "2", "--results", filepath.Join(dir, "local"))...).Output(); err != nil {
			t.Fatal(err)
		}
		localWall := time.Since(start)
		res := filepath.Join(dir, "results")
		start = time.Now()
		job, err := s.run("sbatch", append([]string{"--parsable", "--array=0-3", "--mem-per-cpu=500M", "--output=" + filepath.Join(work, "task-%A_%a.out"), script, "4", res, scenario}, grid...)...)
		if err != nil {
			t.Fatal(err)
		}
		s.waitJob(t, strings.TrimSpace(job))
		slurmWall := time.Since(start)
		got, err := runCLI(t, "sweep", "collect", res, "--quiet")
		if err != nil || got != one {
			t.Fatalf("collect: %v\n%s\nwant\n%s", err, got, one)
		}
		g, _ := experiment.Gather(res)
		var wall, cpu float64
		for _, r := range g.Rows {
			wall += r.Wall
			cpu += r.CPU
		}
		n := len(g.Rows)
		// The engine's own cost: the same 4 tasks again, every run
		// already there (scheduling, start, plan, 24 records read).
		start = time.Now()
		job, err = s.run("sbatch", append([]string{"--parsable", "--array=0-3", "--mem-per-cpu=500M", "--output=" + filepath.Join(work, "again-%A_%a.out"), script, "4", res, scenario}, grid...)...)
		if err != nil {
			t.Fatal(err)
		}
		s.waitJob(t, strings.TrimSpace(job))
		t.Logf("4 Slurm tasks with nothing left to run: %.1f s from sbatch to the queue empty", time.Since(start).Seconds())
		up, _ := exec.Command("uptime").Output()
		t.Logf("%d runs: one machine --out %.1f s, --results %.1f s; 4 Slurm tasks %.1f s (%+.2f s per run against --results); Slurm's runs: wall %.1f s, cpu %.1f s in all; %s",
			n, oneWall.Seconds(), localWall.Seconds(), slurmWall.Seconds(), (slurmWall-localWall).Seconds()/float64(n), wall, cpu, strings.TrimSpace(string(up)))
	}
}

// TestSweepCostHundredThousandRuns writes a results directory of
// 100,000 synthetic records (copies of a real run's, with the plan's
// ids) and times sweep collect on it.
func TestSweepCostHundredThousandRuns(t *testing.T) {
	costGate(t)
	work := filepath.Join(os.TempDir(), "sweeps-100k")
	os.RemoveAll(work)
	defer os.RemoveAll(work)
	res := filepath.Join(work, "results")
	// A real record to copy, from a 1-run sweep.
	if _, err := runCLI(t, "sweep", "../../configs/quickstart.yaml", "--set", "duration=20s", "--seeds", "1", "--results", filepath.Join(work, "one"), "--quiet"); err != nil {
		t.Fatal(err)
	}
	g1, err := experiment.Gather(filepath.Join(work, "one"))
	if err != nil {
		t.Fatal(err)
	}
	model := g1.Rows[0]
	vals := func(n int) []string {
		var out []string
		for i := 10; i < 10+n; i++ {
			out = append(out, fmt.Sprint(i))
		}
		return out
	}
	opt := experiment.Options{Scenario: "../../configs/quickstart.yaml", Seeds: 100, Sets: []string{"faults=[]"},
		Axes: []experiment.Axis{{Path: "nodes.count", Values: vals(1000)}}}
	start := time.Now()
	p, err := experiment.NewPlan(opt)
	if err != nil {
		t.Fatal(err)
	}
	plan := time.Since(start)
	if err := p.Claim(res); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	for i, sp := range p.Runs {
		r := *model
		r.ID, r.Point, r.Values, r.Seed = sp.ID, sp.Point, sp.Values, sp.Seed
		r.Metrics = experiment.Metrics{}
		for k, v := range model.Metrics {
			r.Metrics[k] = v * (1 + float64(i%97)/1000)
		}
		if err := experiment.WriteRecord(res, &r); err != nil {
			t.Fatal(err)
		}
	}
	writeTime := time.Since(start)
	du, _ := exec.Command("du", "-sh", "--apparent-size", res).Output()
	du2, _ := exec.Command("du", "-sh", res).Output()
	start = time.Now()
	out, err := runCLI(t, "sweep", "collect", res, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	collect := time.Since(start)
	start = time.Now()
	gg, err := experiment.Gather(res)
	if err != nil {
		t.Fatal(err)
	}
	gather := time.Since(start)
	var b []byte
	b, _ = json.Marshal(model)
	fi1, _ := os.Stat(filepath.Join(res, experiment.RunsCSV))
	fi2, _ := os.Stat(filepath.Join(res, experiment.RunsParquet))
	up, _ := exec.Command("uptime").Output()
	t.Logf("plan of %d runs (ids only: a slice loads its own runs' scenarios) %.1f s", len(p.Runs), plan.Seconds())
	t.Logf("%d records (%d bytes each) written in %.1f s; %s apparent, %s on disk; sweep collect %.1f s (table of %d lines, runs.csv %d bytes, runs.parquet %d bytes); Gather alone %.1f s; %s",
		len(gg.Rows), len(b), writeTime.Seconds(), strings.Fields(string(du))[0], strings.Fields(string(du2))[0], collect.Seconds(), strings.Count(out, "\n"),
		fi1.Size(), fi2.Size(), gather.Seconds(), strings.TrimSpace(string(up)))
}
