package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// helpText runs `manetlab ARGS... --help` and returns what it printed.
func helpText(t *testing.T, args ...string) string {
	t.Helper()
	app := newApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	if err := app.Run(append(append([]string{"manetlab"}, args...), "--help")); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// What new users tripped over, issue 9: help texts that lie or omit, and
// flags that silently do something else.
func TestHelpSaysWhatIsTrue(t *testing.T) {
	for _, cmd := range []string{"sim", "run"} {
		h := helpText(t, cmd)
		seed := regexp.MustCompile(`--seed value +(.*)`).FindStringSubmatch(h)
		if seed == nil || seed[1] != "override the scenario's seed (default: the scenario's seed; 1 when it gives none)" {
			t.Errorf("%s --help on --seed: %q", cmd, seed)
		}
		if strings.Contains(h, ") (default: ") {
			t.Errorf("%s --help gives some default twice:\n%s", cmd, h)
		}
	}
	h := helpText(t, "trace")
	for _, sub := range []string{"merge", "check", "report", "export", "collect"} {
		if !strings.Contains(h, "manetlab trace "+sub+" ") {
			t.Errorf("trace --help has no usage line for %s:\n%s", sub, h)
		}
	}
}

func TestTraceOnAMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, args := range [][]string{{"check", missing}, {"report", missing}, {"merge", missing}, {"export", "--format", "shiviz", missing}} {
		_, err := runCLI(t, append([]string{"trace"}, args...)...)
		if err == nil || err.Error() != "run directory "+missing+" does not exist" {
			t.Errorf("trace %s: error %v, want that the directory does not exist", args[0], err)
		}
	}
}

func TestSweepFlagsAndJSON(t *testing.T) {
	for _, c := range [][]string{{"--seeds", "0"}, {"--seeds", "-2"}, {"--workers", "0"}} {
		_, err := runCLI(t, append([]string{"sweep", "../../configs/static-line.yaml", "--vary", "nodes.count=4|5", "--quiet", "--out", t.TempDir()}, c...)...)
		if err == nil || !strings.HasPrefix(err.Error(), c[0]+" "+c[1]+": want 1 or more") {
			t.Errorf("%v: error %v", c, err)
		}
	}
	out, err := runCLI(t, "sweep", "../../configs/static-line.yaml", "--set", "nodes.list=[]", "--set", "duration=5s",
		"--vary", "nodes.count=3|4", "--seeds", "1", "--quiet", "--json", "--out", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	axes, _ := res["axes"].([]any)
	if len(axes) != 1 {
		t.Fatalf("axes %v", res["axes"])
	}
	if a, _ := axes[0].(map[string]any); a["path"] != "nodes.count" || len(a["values"].([]any)) != 2 {
		t.Errorf("axis %v, want {path, values}", axes[0])
	}
	// Every key in the document is lower-case (metric names aside, which
	// are keys of mean and sd: M_bcast).
	for _, k := range regexp.MustCompile(`"([A-Za-z_.]+)":`).FindAllStringSubmatch(out, -1) {
		if k[1] != strings.ToLower(k[1]) && !strings.HasPrefix(k[1], "M_") {
			t.Errorf("key %q is not lower-case", k[1])
		}
	}
}

// mobility sample reads whole ns-2 scripts and says what it skipped, one
// line per kind, on standard error.
func TestMobilitySampleWarnsOfSkippedLines(t *testing.T) {
	app := newApp()
	var out, errw bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errw
	args := []string{"manetlab", "mobility", "sample", "../../mobility/testdata/scen-3-test", "--at", "0:100:50"}
	if err := app.Run(reorderArgs(app, args)); err != nil {
		t.Fatal(err)
	}
	want := "manetlab: warning: ../../mobility/testdata/scen-3-test:18: skipped 5 lines of Tcl that moves no node"
	if !strings.HasPrefix(errw.String(), want) || strings.Count(errw.String(), "\n") != 1 {
		t.Errorf("standard error %q, want one line starting %q", errw.String(), want)
	}
	if n := strings.Count(out.String(), "\n"); n != 1+3*3 {
		t.Errorf("%d lines of CSV, want a header and 3 nodes at 3 instants:\n%s", n, out.String())
	}
}
