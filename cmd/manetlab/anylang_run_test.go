package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/node/netnstest"
	"manetlab/scenario"
	"manetlab/trace/report"
)

// runExampleJSON runs `manetlab CMD examples/anylang/NAME.yaml` with the
// program at its absolute path and decodes the summary.
func runExampleJSON(t *testing.T, cmd, name, prog string, extra ...string) *report.Summary {
	t.Helper()
	abs, _ := filepath.Abs("../../examples/anylang/" + prog)
	dir := t.TempDir()
	t.Cleanup(func() {
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(dir, "*", "node-1.log"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, b)
			}
		}
	})
	args := append([]string{cmd, "../../examples/anylang/" + name + ".yaml", "--json", "--out", dir, "--quiet",
		"--set", "protocol.params.cmd=[python3, " + abs + "]"}, extra...)
	out, err := runCLI(t, args...)
	if err != nil && !verdictOnly(err) {
		t.Fatalf("%v\n%s", err, out)
	}
	var sum report.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return &sum
}

// TestAnyLanguageRealProcesses runs the Python Chang-Roberts and
// Ricart-Agrawala as real node processes over UDP multicast, each
// program beside its node process: the same counts as sim (the election
// and announcement; 14 messages per entry), and no violation.
func TestAnyLanguageRealProcesses(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed (scripts/deps.sh installs it): %v", err)
	}
	want := runExampleJSON(t, "sim", "changroberts", "changroberts.py", "--set", "duration=8s")
	if want.Complexity == nil || want.Verdict != "valid" {
		t.Fatalf("sim summary %+v", want)
	}
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	useHelper(t, "main")
	got := runExampleJSON(t, "run", "changroberts", "changroberts.py", "--set", "duration=8s")
	if !judgedOrTooShort(got.Verdict, got.Reason) || got.Complexity == nil {
		t.Fatalf("run summary %+v", got)
	}
	if g, w := got.Complexity, want.Complexity; g.Messages != w.Messages || g.Announce != w.Announce || g.Elections != 1 {
		t.Fatalf("run counts %d election + %d announcement (%d elections), sim %d + %d", g.Messages, g.Announce, g.Elections, w.Messages, w.Announce)
	}
	ra := runExampleJSON(t, "run", "ricartagrawala", "ricartagrawala.py", "--set", "duration=8s", "--set", "workload.stop=6s")
	m := ra.Mutex
	if !judgedOrTooShort(ra.Verdict, ra.Reason) || m == nil || m.Violations != 0 || m.Entries == 0 {
		t.Fatalf("run summary: %s (%s), mutex %+v", ra.Verdict, ra.Reason, m)
	}
	if m.MessagesPerEntry == nil || *m.MessagesPerEntry != 14 {
		t.Fatalf("run: %v messages per entry, want 2(n-1) = 14 (%v)", m.MessagesPerEntry, ra.Messages.ByKind)
	}
}

// anylangScenario is examples/anylang/changroberts.yaml with its
// program's absolute path; the test skips without python3.
func anylangScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed (scripts/deps.sh installs it): %v", err)
	}
	abs, _ := filepath.Abs("../../examples/anylang/changroberts.py")
	s, err := scenario.Load("../../examples/anylang/changroberts.yaml", []string{"protocol.params.cmd=[python3, " + abs + "]"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAnyLanguageFailureFromTheCLI: a program that crashes fails `sim`
// with an error naming the node, the line and the exit status (the
// estimate's pilot runs it first), not a panic.
func TestAnyLanguageFailureFromTheCLI(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed (scripts/deps.sh installs it): %v", err)
	}
	out, err := runCLI(t, "sim", "../../examples/anylang/changroberts.yaml", "--out", t.TempDir(), "--quiet",
		"--set", "protocol.params.cmd=[python3, -c, 'import sys; sys.exit(3)']")
	if err == nil || verdictOnly(err) {
		t.Fatalf("sim succeeded: %v\n%s", err, out)
	}
	for _, w := range []string{"node 1", "line 1 (init)", "exit status 3"} {
		if !strings.Contains(err.Error()+out, w) {
			t.Errorf("error %q (output %q) does not say %q", err, out, w)
		}
	}
}
