package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A shorter duration (--set duration=20s on quickstart) leaves faults and
// workload commands beyond the run: they are dropped with one warning per
// section naming how many and the first, not refused. A fault at the end
// itself goes too (it would be applied after the nodes stop); a command
// at the end stays.
func TestBeyondRunDropped(t *testing.T) {
	src := `faults:
  - {at: 20s, crash: [8]}
  - {at: 40s, recover: [8]}
  - {at: 50s, crash: [3]}
workload:
  - {at: 10s, node: 1, command: elect}
  - {at: 30s, node: 2, command: elect}
`
	s := mustParse(t, src, "duration=20s")
	if len(s.Faults) != 0 {
		t.Errorf("faults %+v, want none: the one at 20s is at the end of the run, outside it", s.Faults)
	}
	if c := s.Workload.Commands; len(c) != 1 || c[0].Node != 1 {
		t.Errorf("workload %+v, want only node 1's command at 10s", c)
	}
	want := []string{
		"dropped 3 faults at or after the run's end 20s, outside the run: never applied (the first: faults[0] at 20s)",
		"dropped 1 workload command beyond the run's duration 20s (the first: workload.commands[1] at 30s)",
	}
	if strings.Join(s.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(s.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if s := mustParse(t, src); len(s.Warnings) != 0 || len(s.Faults) != 3 {
		t.Errorf("60 s run: warnings %q, %d faults", s.Warnings, len(s.Faults))
	}
}

// A generator's stop beyond a shortened run stops it at the run's end,
// with a warning; a hold longer than the run is still an error.
func TestBeyondRunGeneratorStop(t *testing.T) {
	src := "protocol: {name: mutex/centralized}\nworkload: {rate: 1, stop: 50s}\n"
	s := mustParse(t, src, "duration=20s")
	if s.Workload.Stop != 0 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "workload.stop 50s is beyond the run's duration 20s") {
		t.Errorf("stop %v, warnings %q", s.Workload.Stop, s.Warnings)
	}
	if err := parseErr(t, "protocol: {name: mutex/centralized}\nworkload: {rate: 1, hold: 30s}\n", "duration=20s"); !strings.Contains(err, "workload.hold") {
		t.Errorf("hold longer than the run: %q", err)
	}
}

// An error in a value that a --set override wrote names the flag, not the
// file; an error in the file's own value still names the file.
func TestSetErrorsNameTheFlag(t *testing.T) {
	cases := []struct {
		src  string
		sets []string
		want string
	}{
		{"", []string{"nodes.count=abc"}, `--set nodes.count=abc: nodes.count: "abc" is not an integer`},
		{"", []string{"radio.range=-3"}, "--set radio.range=-3: radio.range: must be above 0"},
		{"", []string{"nodes.count=0"}, "--set nodes.count=0: nodes.count: 0 is out of range"},
		{"faults: [{at: 1s, crash: [1]}]", []string{"seed=2", "faults.0.at=-3s"}, "--set faults.0.at=-3s: faults[0].at: -3s is outside the run"},
		{"", []string{"faults=[{at: 1s, crash: [99]}]"}, "--set faults=[{at: 1s, crash: [99]}]: faults[0].crash[0]: 99 is not a node"},
		{"", []string{"nodes.values=best", "radio.range=100"}, `--set nodes.values=best: nodes.values: "best" is unknown`},
		{"nodes: {list: [{id: 1}, {id: 2}]}", []string{"nodes.count=5"}, "--set nodes.count=5: nodes.count: 5 but nodes.list has 2 entries"},
		{"radio: {range: -3}", []string{"nodes.count=5"}, "configs/x.yaml: radio.range: must be above 0"},
		{"nodes: {values: best}", []string{"radio.range=100"}, `configs/x.yaml: nodes.values: "best" is unknown`},
	}
	for _, c := range cases {
		got := parseErr(t, c.src, c.sets...)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%q with %q: error %q, want it to start with %q", c.src, c.sets, got, c.want)
		}
	}
}

// An ns-2 trace whose Tcl lines ns-3 skips loads, and the scenario carries
// the reader's warnings for the CLI to print.
func TestNS2WarningsReachTheScenario(t *testing.T) {
	dir := t.TempDir()
	trace := "set god_ [God instance]\n$node_(0) set X_ 1;\n$node_(1) set X_ 2\n$ns_ at 1 \"$node_(0) reset\"\n"
	if err := os.WriteFile(filepath.Join(dir, "m.ns2"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte("nodes: {count: 2}\nmobility: {model: ns2, file: m.ns2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[0], "m.ns2:1: skipped 1 line of Tcl that moves no node") ||
		!strings.Contains(s.Warnings[1], "m.ns2:4: skipped 1 line of node commands other than setdest and set X_/Y_/Z_: reset") {
		t.Errorf("warnings %q", s.Warnings)
	}
}
