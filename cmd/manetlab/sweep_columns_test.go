package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSweepColumnsAndFormats: --columns chooses the text table's columns
// (the axes first), a name that is no column is refused before anything
// runs, and F prints in one format in the sweep's table and in trace
// report (0.0330, not 3.3%) for the same run (issue 35, item 10).
func TestSweepColumnsAndFormats(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCLI(t, "sweep", "../../configs/quickstart.yaml", "--vary", "nodes.count=6", "--columns", "valid,F,bogus", "--quiet", "--out", filepath.Join(dir, "x")); err == nil ||
		!strings.Contains(err.Error(), "--columns bogus: no such column") {
		t.Fatalf("a bad column: %v", err)
	}
	out, err := runCLI(t, "sweep", "../../configs/quickstart.yaml", "--vary", "nodes.count=6", "--set", "duration=12s", "--seeds", "1",
		"--columns", "F,valid,T", "--quiet", "--out", filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "nodes.count F valid T" {
		t.Fatalf("table:\n%s", out)
	}
	cells := strings.Fields(lines[1])
	f := regexp.MustCompile(`^(\d\.\d{4})±0\.0000$`).FindStringSubmatch(cells[1])
	if f == nil {
		t.Fatalf("F is %q, not a share with four decimals", cells[1])
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "seed1"))
	if len(runs) != 1 {
		t.Fatalf("run directories %v", runs)
	}
	rep, err := runCLI(t, "trace", "report", runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^F \(share of live time in an election\) +` + regexp.QuoteMeta(f[1]) + `$`).MatchString(rep) {
		t.Errorf("the sweep's F %s is not the report's:\n%s", f[1], rep)
	}
}
