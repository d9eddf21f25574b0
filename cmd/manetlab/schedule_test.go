package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
