package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/explore/exploretest"
)

// TestExploreCLI: explore clears Chang-Roberts on 3 nodes exhaustively
// with the documented last line, reports a spent budget, and on the hasty
// election with one drop allowed prints the violation and what its replay
// shows, writes its schedule into the folder --out names as
// violation-1.json (a second search writes violation-2.json, the first
// left as it was) with the replay's traces beside it, exits with an
// error; `sim --schedule` replays the schedule and `trace check` on its
// traces finds the same property invalid, with the explorer's witness.
func TestExploreCLI(t *testing.T) {
	out, err := runCLI(t, "explore", "../../configs/explore-ring.yaml", "--quiet")
	if err != nil || !strings.Contains(out, "no violation in 1199 states (exhaustive to depth 40)\n") {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = runCLI(t, "explore", "../../configs/explore-ring.yaml", "--quiet", "--states", "10")
	if err != nil || !strings.Contains(out, "no violation (budget reached after 1") || !strings.Contains(out, ": 10 states)") {
		t.Fatalf("%v\n%s", err, out)
	}
	dir := t.TempDir()
	sc := filepath.Join(dir, "hasty.yaml")
	if err := os.WriteFile(sc, []byte(exploretest.Scenario(3)), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "found")
	sched := filepath.Join(folder, "violation-1.json")
	out, err = runCLI(t, "explore", sc, "--drops", "1", "--strategy", "bfs", "--out", folder, "--quiet")
	if err != errViolation {
		t.Fatalf("a violation: err %v\n%s", err, out)
	}
	first, err := os.ReadFile(sched)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(folder, "violation-1", "run.jsonl")); err != nil {
		t.Errorf("the replay's traces: %v", err)
	}
	for _, want := range []string{"violation: one-leader-per-epoch: epoch 1 has two leaders", "minimised from", "to 1 choices, written to " + sched,
		"replayed: the explorer's check: one-leader-per-epoch: epoch 1 has two leaders", "trace check: one-leader-per-epoch invalid",
		"the replay's traces: " + filepath.Join(folder, "violation-1"), "replay again: manetlab sim " + sc + " --schedule " + sched, "step through it: manetlab studio " + sc + " --schedule " + sched} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if out, err := runCLI(t, "explore", sc, "--drops", "1", "--strategy", "bfs", "--out", folder, "--quiet"); err != errViolation ||
		!strings.Contains(out, "written to "+filepath.Join(folder, "violation-2.json")) {
		t.Fatalf("a second violation: %v\n%s", err, out)
	}
	if again, err := os.ReadFile(sched); err != nil || string(again) != string(first) {
		t.Fatalf("the first violation's file changed: %v", err)
	}
	if _, err := runCLI(t, "explore", sc, "--out", filepath.Join(dir, "v.json")); err == nil || !strings.Contains(err.Error(), "names the folder") {
		t.Errorf("--out FILE.json: %v", err)
	}
	witness := out[strings.Index(out, "epoch 1 has two leaders"):]
	witness = witness[:strings.Index(witness, "\n")]
	if b, err := os.ReadFile(sched); err != nil || !strings.Contains(string(b), `"scenario_hash": "`) {
		t.Errorf("the schedule records no scenario hash (%v)", err)
	}
	run := filepath.Join(dir, "run")
	if out, err := runCLI(t, "sim", sc, "--schedule", sched, "--out", run, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = runCLI(t, "trace", "check", run)
	if err != errInvalid || !strings.Contains(out, witness) {
		t.Fatalf("trace check: %v, want %q in\n%s", err, witness, out)
	}
}

// TestExploreRejectsBadInput: each bad input fails plainly, naming the
// file and field or the flag.
func TestExploreRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "../../configs/explore-ring.yaml", "--strategy", "astar"}, `strategy "astar": want one of bfs, dfs, random, pct`},
		{[]string{"explore", "../../configs/explore-ring.yaml", "--depth", "0"}, "--depth 0"},
		{[]string{"explore", "../../configs/explore-ring.yaml", "--crashes", "-1"}, "crashes -1 is negative"},
		{[]string{"explore", "../../configs/ring-chang-roberts.yaml"}, "ring-chang-roberts.yaml: radio.mac: dcf"},
		{[]string{"explore", "../../configs/explore-ring.yaml", "--set", "nodes.count=30"}, "explore-ring.yaml: nodes.count: 30 nodes"},
		{[]string{"explore"}, "needs exactly one scenario file"},
	} {
		if out, err := runCLI(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q\n%s", c.args, err, c.want, out)
		}
	}
}
