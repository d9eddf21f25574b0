package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepWithGNUParallel runs the sweep's 4 slices with GNU parallel,
// the two ways docs/sweeps.md shows: the index as an argument ({}/4) on
// this machine, and from PARALLEL_SEQ ({#}, --shard 4 with -N0) through
// --sshlogin (':' is this machine, reached by parallel's remote-login
// path), each collected and compared with the one-machine sweep's table.
func TestSweepWithGNUParallel(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (scripts/deps.sh installs it)")
	}
	bin := buildBinary(t)
	work := t.TempDir()
	one, err := runCLI(t, sweepArgs("--out", filepath.Join(work, "one"))...)
	if err != nil {
		t.Fatal(err)
	}
	scenario, _ := filepath.Abs(sweepGrid[1])
	sweep := append([]string{bin, "sweep", scenario}, sweepGrid[2:len(sweepGrid)-1]...) // without --quiet: each slice says which it was
	for _, c := range []struct {
		name string
		args func(res string) []string
	}{
		{"index", func(res string) []string {
			return append(append([]string{"--will-cite", "-q", "-j2"}, sweep...), "--results", res, "--shard", "{}/4", ":::", "0", "1", "2", "3")
		}},
		{"seq-sshlogin", func(res string) []string {
			return append(append([]string{"--will-cite", "-q", "-N0", "--sshlogin", "2/:"}, sweep...), "--results", res, "--shard", "4", ":::", "1", "2", "3", "4")
		}},
	} {
		res := filepath.Join(work, c.name)
		out, err := exec.Command("parallel", c.args(res)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: parallel: %v\n%s", c.name, err, out)
		}
		got, err := runCLI(t, "sweep", "collect", res, "--quiet")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != one {
			t.Fatalf("%s: the collected table\n%s\nthe one-machine sweep's\n%s", c.name, got, one)
		}
		for i := 0; i < 4; i++ {
			if line := fmt.Sprintf("sweep: slice %d/4: 2 runs, 0 already in %s, 2 run, 0 failed", i, res); !strings.Contains(string(out), line) {
				t.Errorf("%s: no line %q in parallel's output:\n%s", c.name, line, out)
			}
		}
	}
}
