package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/trace"
	"manetlab/trace/judge"
)

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	app := newApp()
	var out bytes.Buffer
	app.Writer = &out
	err := app.Run(reorderArgs(app, append([]string{"manetlab"}, args...)))
	if st := (exitStatus{}); errors.As(err, &st) && st.verdict {
		// The verdict's exit status (1 invalid, 2 undecided): the tests
		// read the verdict from the output; runCLIStatus keeps it.
		err = nil
	}
	return out.String(), err
}

// runCLIStatus is runCLI keeping the verdict's exit status as an error.
func runCLIStatus(t *testing.T, args ...string) (string, error) {
	t.Helper()
	app := newApp()
	var out bytes.Buffer
	app.Writer = &out
	err := app.Run(reorderArgs(app, append([]string{"manetlab"}, args...)))
	return out.String(), err
}

func TestSimJSONWithFlagsAfterTheScenario(t *testing.T) {
	dir := t.TempDir()
	out, err := runCLI(t, "sim", "../../configs/quickstart.yaml", "--json", "--out", dir, "--quiet",
		"--set", "nodes.count=8", "--set", "radio.range=400", "--set", "radio.loss.p=0.1", "--set", "mobility.speed=[2,9]",
		"--set", "protocol.name=baseline/floodmax", "--seed", "7")
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Verdict    string
		Seed       uint64
		Nodes      int
		Components []struct {
			Nodes          []int
			ExpectedLeader int `json:"expected_leader"`
			Leaders        map[string]int
		}
		Messages struct {
			Total  int
			ByKind map[string]int `json:"by_kind"`
		}
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if sum.Seed != 7 || sum.Nodes != 8 || sum.Verdict == "" || len(sum.Components) == 0 {
		t.Fatalf("summary %+v", sum)
	}
	if sum.Messages.Total == 0 || sum.Messages.ByKind["announce"] != sum.Messages.Total {
		t.Fatalf("messages %+v", sum.Messages)
	}
	members := 0
	for _, c := range sum.Components {
		members += len(c.Nodes)
		if c.ExpectedLeader == 0 || len(c.Leaders) == 0 {
			t.Fatalf("component %+v", c)
		}
	}
	if members != 8 {
		t.Fatalf("components hold %d nodes, want 8", members)
	}
	if _, err := os.Stat(trace.RunFile(dir)); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "node-*.jsonl"))
	if len(files) != 8 {
		t.Fatalf("%d node files, want 8", len(files))
	}
}

// quickstart with a shorter duration has a fault at its end and one beyond
// it: both are dropped with one warning on standard error, and the run
// goes on.
func TestSimDropsFaultsBeyondTheRun(t *testing.T) {
	app := newApp()
	var out, errw bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errw
	args := []string{"manetlab", "sim", "../../configs/quickstart.yaml", "--set", "duration=20s", "--set", "nodes.count=8", "--quiet", "--out", t.TempDir()}
	if err := app.Run(reorderArgs(app, args)); err != nil {
		t.Fatal(err)
	}
	want := "manetlab: warning: dropped 2 faults at or after the run's end 20s, outside the run: never applied (the first: faults[0] at 20s)\n"
	if errw.String() != want {
		t.Errorf("standard error %q, want %q", errw.String(), want)
	}
	if !strings.Contains(out.String(), "verdict:") {
		t.Errorf("no summary:\n%s", out.String())
	}
}

func TestSimRejectsBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("nodes:\n  count: 5\nradio:\n  rnage: 100\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sim"}, "exactly one scenario file"},
		{[]string{"sim", bad}, "bad.yaml:4: radio.rnage: unknown field"},
		{[]string{"sim", "../../configs/quickstart.yaml", "--set", "protocol.name=nope/x"}, `--set protocol.name=nope/x: protocol.name: unknown protocol "nope/x"`},
		{[]string{"sim", "../../configs/quickstart.yaml", "--set", "protocol.params.perod=1s"}, "--set protocol.params.perod=1s: protocol.params.perod: unknown parameter"},
		{[]string{"sim", "../../configs/quickstart.yaml", "--set", "radio.range=-1"}, "--set radio.range=-1: radio.range: must be above 0"},
	}
	for _, c := range cases {
		_, err := runCLI(t, append(c.args, "--out", t.TempDir())...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.args, err, c.want)
		}
	}
}

// judgedOrTooShort: a summary verdict that is valid, or that of a run too
// short for anything to settle, which judges nothing at the end
// (unsettled, "nothing judged"; docs/analysis.md, "Run summary"): never
// wrong. Short real runs (a second, five) end so.
func judgedOrTooShort(verdict, reason string) bool {
	return judge.ValidOrNothingJudged(verdict, reason)
}

// textJudgedOrTooShort is judgedOrTooShort on a text summary.
func textJudgedOrTooShort(out string) bool {
	return strings.Contains(out, "verdict: valid") || strings.Contains(out, "verdict: unsettled (nothing judged")
}

// verdictOnly reports whether err is only a verdict's exit status (1 or
// 2: docs/analysis.md, "Exit statuses"), not a failure.
func verdictOnly(err error) bool {
	st := exitStatus{}
	return err == errInvalid || errors.As(err, &st) && st.verdict
}
