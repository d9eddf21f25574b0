package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// expectedInvalid lists the shipped configs whose runs are invalid on
// purpose, by verdict or trace check property, with the reason.
var expectedInvalid = map[string]string{
	"invitation-stoller.yaml stable-leader": "Stoller's counterexample to the invitation algorithm: a group keeps a coordinator that is not the best",
	"invitation-stoller.yaml summary":       "the same: the run summary names the settled component with the wrong leader",
	"sync-bfs-async.yaml bfs-depth":         "BFS without a synchronizer builds a tree that is not breadth-first (the point of the config)",
}

// TestShippedConfigsVerdicts runs every scenario in configs/ (and the
// quickstart seeds that new users met as invalid) in the simulator and
// checks that neither the run summary nor trace check calls it invalid,
// unless expectedInvalid says why.
func TestShippedConfigsVerdicts(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("configs: %v, %d files", err, len(files))
	}
	type runCase struct {
		name string
		args []string
	}
	var cases []runCase
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if name == "static-10k" && testing.Short() {
			continue // 10,000 nodes: 8 s
		}
		cases = append(cases, runCase{name + ".yaml", []string{f}})
	}
	for _, seed := range []string{"2", "4", "10"} {
		cases = append(cases, runCase{"quickstart.yaml seed " + seed, []string{"../../configs/quickstart.yaml", "--seed", seed}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := runCLI(t, append([]string{"sim", "--json", "--quiet", "--out", dir}, c.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				Verdict, Reason string
			}
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Verdict == "invalid" && expectedInvalid[c.name+" summary"] == "" {
				t.Errorf("run summary: invalid (%s)", sum.Reason)
			}
			if sum.Verdict != "invalid" && expectedInvalid[c.name+" summary"] != "" {
				t.Errorf("run summary: %s, but listed as invalid on purpose", sum.Verdict)
			}
			out, err = runCLI(t, "trace", "check", dir, "--json")
			if err != nil && err != errInvalid {
				t.Fatal(err)
			}
			var rep struct {
				Properties []struct{ Name, Verdict, Reason string }
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			for _, p := range rep.Properties {
				if p.Verdict == "invalid" && expectedInvalid[c.name+" "+p.Name] == "" {
					t.Errorf("trace check %s: invalid (%s)", p.Name, p.Reason)
				}
			}
		})
	}
}
