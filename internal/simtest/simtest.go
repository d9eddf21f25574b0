// Package simtest runs scenarios in the simulator for the protocol
// families' tests: parse, simulate into a fresh directory, summarise.
//
// It imports scenario, sim and trace/report; only tests use it.
package simtest

import (
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
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
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
