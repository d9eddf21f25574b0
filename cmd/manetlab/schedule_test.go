package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/scenario"
)

// TestSimSchedule: sim --schedule takes the seed and the --set of the
// schedule, replays it to the same bytes twice, and refuses a schedule
// whose events are not the scenario's.
func TestSimSchedule(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, []byte(`{"seed": 3, "set": ["protocol.params.ring=descending"], "steps": 60,
  "choices": [{"step": 60, "crash": 8}]}`), 0o644)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	out, err := runCLI(t, "sim", "../../configs/ring-chang-roberts.yaml", "--schedule", path, "--out", a, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "seed 3") || !strings.Contains(out, "node 8 crashed") {
		t.Fatalf("the schedule's seed or crash is not in the summary:\n%s", out)
	}
	if _, err := runCLI(t, "sim", "../../configs/ring-chang-roberts.yaml", "--schedule", path, "--out", b, "--quiet"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"run.jsonl", "node-8.jsonl", "node-1.jsonl"} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two replays", f)
		}
	}
	os.WriteFile(path, []byte(`{"steps": 9, "choices": [{"step": 8, "take": 14, "what": "token 1→2"}]}`), 0o644)
	if _, err := runCLI(t, "sim", "../../configs/ring-chang-roberts.yaml", "--schedule", path, "--out", b, "--quiet"); err == nil || !strings.Contains(err.Error(), `the schedule says "token 1→2"`) {
		t.Fatalf("a schedule of other events: %v", err)
	}
}

// TestSimScheduleOtherScenario: a schedule records its scenario's hash;
// sim --schedule on another scenario is refused naming both, and
// --other-scenario replays it anyway (issue 35, item 7).
func TestSimScheduleOtherScenario(t *testing.T) {
	const ring = "../../configs/ring-chang-roberts.yaml"
	s, err := scenario.Load(ring, []string{"protocol.params.ring=descending", "seed=3"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Hash()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	sched := `{"scenario": "` + ring + `", "seed": 3, "set": ["protocol.params.ring=descending"], "scenario_hash": "` + h + `", "steps": 60,
  "choices": [{"step": 60, "crash": 8}]}`
	if err := os.WriteFile(path, []byte(sched), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "sim", ring, "--schedule", path, "--out", filepath.Join(dir, "a"), "--quiet", "--set", "duration=3s"); err != nil {
		t.Fatalf("its own scenario, with a --set of the command line: %v\n%s", err, out)
	}
	_, err = runCLI(t, "sim", "../../configs/quickstart.yaml", "--schedule", path, "--out", filepath.Join(dir, "b"), "--quiet")
	if err == nil || !strings.Contains(err.Error(), "recorded on "+ring+" (scenario hash "+h+"), not on ../../configs/quickstart.yaml (hash ") ||
		!strings.Contains(err.Error(), "--other-scenario") {
		t.Fatalf("a schedule of another scenario: %v", err)
	}
	// Without the ring's own parameter, that would not apply to
	// quickstart's protocol.
	sched = strings.Replace(sched, `"set": ["protocol.params.ring=descending"], `, "", 1)
	if err := os.WriteFile(path, []byte(sched), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err = runCLI(t, "sim", "../../configs/quickstart.yaml", "--schedule", path, "--out", filepath.Join(dir, "b"), "--quiet"); err == nil || !strings.Contains(err.Error(), "not on ../../configs/quickstart.yaml") {
		t.Fatalf("a schedule of another scenario: %v", err)
	}
	out, err := runCLI(t, "sim", "../../configs/quickstart.yaml", "--schedule", path, "--out", filepath.Join(dir, "c"), "--quiet", "--other-scenario", "--set", "duration=2s")
	if err != nil || !strings.Contains(out, "node 8 crashed") {
		t.Fatalf("--other-scenario: %v\n%s", err, out)
	}
}
