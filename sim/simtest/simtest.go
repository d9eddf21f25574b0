// Package simtest runs scenarios in the simulator for the protocol
// families' tests: parse, simulate into a fresh directory, summarise (from
// memory, as sim does, checked against the traces read back).
//
// It imports scenario, sim and trace/report; only tests use it.
package simtest

import (
	"bytes"
	"encoding/json"
	"testing"

	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/report"
)

// Run simulates s into a fresh temporary directory and returns the
// directory and the run's summary; any error fails the test.
func Run(t testing.TB, s *scenario.Scenario) (string, *report.Summary) {
	t.Helper()
	dir := t.TempDir()
	res, err := sim.Run(s, sim.Options{Out: dir, Record: report.Keep})
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	sum, err := report.SummarizeFrom(res.Recording, dir)
	if err != nil {
		t.Fatal(err)
	}
	// The summary from memory (what `sim` prints) must be the one read
	// back from the traces (what `trace report` computes).
	disk, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]any{{sum, disk}, {sum.Measurements(), disk.Measurements()}} {
		a, aerr := json.Marshal(p[0])
		b, berr := json.Marshal(p[1])
		if aerr != nil || berr != nil || !bytes.Equal(a, b) {
			t.Fatalf("%s: the summary from memory differs from the traces read back (%v, %v):\n%s\n%s", s.Name, aerr, berr, a, b)
		}
	}
	return dir, sum
}

// RunYAML parses a scenario given as YAML (name names it in errors) and
// runs it as Run does.
func RunYAML(t testing.TB, name, y string) (string, *report.Summary) {
	t.Helper()
	s, err := scenario.Parse([]byte(y), name, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return Run(t, s)
}
