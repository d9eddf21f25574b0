package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/trace/analysis"
)

// simRun simulates the quickstart scenario, shortened, into a directory.
func simRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := runCLI(t, "sim", "../../configs/quickstart.yaml", "--out", dir, "--quiet"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTraceCommands(t *testing.T) {
	dir := simRun(t)
	merged := filepath.Join(t.TempDir(), "merged.jsonl")
	app := newApp()
	var stderr bytes.Buffer
	app.Writer, app.ErrWriter = &bytes.Buffer{}, &stderr
	if err := app.Run(reorderArgs(app, []string{"manetlab", "trace", "merge", dir, "-o", merged})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "merged run sim-quickstart-1") {
		t.Errorf("merge report on stderr: %q", stderr.String())
	}
	data, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n < 100 || !bytes.Contains(data, []byte(`"src":"`)) {
		t.Errorf("merged file has %d lines, or no src fields", n)
	}

	// Floodmax's leases outlast 5 s, so the verdict may be invalid: the
	// report must be complete either way.
	out, err := runCLI(t, "trace", "check", dir, "--json", "--stabilisation", "5s")
	if err != nil && err != errInvalid {
		t.Fatal(err)
	}
	var rep analysis.CheckReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	if len(rep.Properties) != 3 {
		t.Errorf("check: %+v", rep)
	}

	out, err = runCLI(t, "trace", "report", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"F", "R", "T", "M_bcast", "M_ucast", "wrong_or_unknown", "messages", "per_node"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report --json lacks %q", k)
		}
	}
	if w, ok := m["wrong_or_unknown"].(float64); !ok || w < 0 || w > 1 {
		t.Errorf("wrong_or_unknown = %v", m["wrong_or_unknown"])
	}
}

func TestTraceCheckExitsOneWhenInvalid(t *testing.T) {
	dir := simRun(t)
	// Node 1 claims under epoch "9" a leader that node 2 contradicts.
	for _, id := range []string{"1", "2"} {
		appendLines(t, dir, "node-"+id+".jsonl", `{"t":1,"node":`+id+`,"ev":"leader","leader":`+id+`,"epoch":"9"}`)
	}
	out, err := runCLI(t, "trace", "check", dir)
	if err == nil {
		t.Fatalf("check of an invalid run succeeded:\n%s", out)
	}
	if !strings.Contains(out, "one-leader-per-epoch   invalid") || !strings.Contains(out, "node-2.jsonl:") {
		t.Errorf("check output:\n%s", out)
	}
}

// TestWitnessNamesTheElection: an epoch that an election-start began
// is named in trace check's witness by its initiator and start, never by
// its ID (issue 35); one that no election-start carries keeps "epoch
// ID" (TestTraceCheckExitsOneWhenInvalid).
func TestWitnessNamesTheElection(t *testing.T) {
	dir := simRun(t)
	appendLines(t, dir, "node-1.jsonl", `{"t":1500000000,"node":1,"ev":"election-start","epoch":"424242.3"}`,
		`{"t":1600000000,"node":1,"ev":"leader","leader":1,"epoch":"424242.3"}`)
	appendLines(t, dir, "node-2.jsonl", `{"t":1520000000,"node":2,"ev":"election-start","epoch":"424242.3"}`,
		`{"t":1600000000,"node":2,"ev":"leader","leader":2,"epoch":"424242.3"}`)
	out, err := runCLI(t, "trace", "check", dir)
	if err != errInvalid || !strings.Contains(out, "the election by node 1 at 1.500 s has two leaders: node 1 announces 1, node 2 announces 2") || strings.Contains(out, "424242") {
		t.Errorf("check: %v\n%s", err, out)
	}
}

func TestSimJSONHasMetrics(t *testing.T) {
	out, err := runCLI(t, "sim", "../../configs/quickstart.yaml", "--out", t.TempDir(), "--quiet", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Metrics map[string]any `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Metrics["wrong_or_unknown"].(float64); !ok {
		t.Errorf("sim --json metrics: %v", s.Metrics)
	}
}

// TestTraceProfiles: `trace --cpuprofile F --memprofile G CMD` writes a
// CPU and a heap profile of the command (gzipped, as pprof writes them),
// whatever the command's verdict status.
func TestTraceProfiles(t *testing.T) {
	dir := simRun(t)
	cpu, mem := filepath.Join(t.TempDir(), "cpu.prof"), filepath.Join(t.TempDir(), "mem.prof")
	if _, err := runCLI(t, "trace", "--cpuprofile", cpu, "--memprofile", mem, "check", dir); err != nil && err != errInvalid {
		t.Fatal(err)
	}
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: %d bytes, not a gzipped profile", p, len(b))
		}
	}
}
