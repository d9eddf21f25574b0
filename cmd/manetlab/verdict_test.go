package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"manetlab/trace/analysis"
	"manetlab/trace/htmlreport"
	"manetlab/trace/htmlreport/chromiumtest"
)

// TestVerdictWordsAreDocumented runs sim, trace check and trace report
// --html on a few runs (a settled ring, one cut before it settles, one
// outside Chang-Roberts' assumptions, a round protocol) and requires
// every verdict word each prints to be one of docs/analysis.md's
// ("Verdicts", analysis.Verdicts), the page's run verdict to be the
// summary's word for word, and the runs to reach more than one word.
// `run` prints its summary with the same code as sim (printSummary).
func TestVerdictWordsAreDocumented(t *testing.T) {
	runs := [][]string{
		{"../../configs/ring-chang-roberts.yaml", "--set", "duration=5s"},
		{"../../configs/ring-chang-roberts.yaml", "--set", "duration=1.05s"},
		{"../../configs/bully.yaml", "--set", "duration=12s"},
	}
	summaryLine := regexp.MustCompile(`(?m)^verdict: ([a-z ]+?)(?: \(|$)`)
	checkLine := regexp.MustCompile(`(?m)^([a-z-]+) +([a-z ]+?)(?: \(|: |$)`)
	seen := map[string]bool{}
	for _, r := range runs {
		dir := t.TempDir()
		out, err := runCLI(t, append([]string{"sim", r[0], "--out", dir, "--quiet"}, r[1:]...)...)
		if err != nil {
			t.Fatalf("sim %v: %v\n%s", r, err, out)
		}
		m := summaryLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("sim %v prints no verdict:\n%s", r, out)
		}
		word := m[1]
		if !analysis.IsVerdict(word) {
			t.Errorf("sim %v: verdict %q is not one of %q", r, word, analysis.Verdicts)
		}
		seen[word] = true
		out, err = runCLI(t, "trace", "check", dir)
		if err != nil && !strings.Contains(err.Error(), "invalid") {
			t.Fatalf("trace check %v: %v\n%s", r, err, out)
		}
		lines := checkLine.FindAllStringSubmatch(out, -1)
		if len(lines) < 2 {
			t.Fatalf("trace check %v: no property lines in\n%s", r, out)
		}
		for _, l := range lines {
			if !analysis.IsVerdict(l[2]) {
				t.Errorf("trace check %v: %s is %q, not one of %q", r, l[1], l[2], analysis.Verdicts)
			}
			seen[l[2]] = true
		}
		d, _ := reportPage(t, dir)
		if d.Verdict == nil || d.Verdict.Word != word {
			t.Errorf("%v: the page's verdict %+v, the summary's %q", r, d.Verdict, word)
		}
		for _, p := range d.Check.Properties {
			if !analysis.IsVerdict(p.Verdict) {
				t.Errorf("%v: the page's %s is %q", r, p.Name, p.Verdict)
			}
		}
	}
	if len(seen) < 2 {
		t.Errorf("the runs reached only %v: the test would not see a wrong word of another kind", seen)
	}
	t.Logf("verdicts seen: %v", seen)
}

// TestReportPageStatesTheVerdict opens the page of `trace report --html`
// in Chromium: it states the run's verdict in the summary's word, styled
// as the check's verdicts are, above the property table.
func TestReportPageStatesTheVerdict(t *testing.T) {
	chromiumtest.ForTest(t)
	dir := t.TempDir()
	out, err := runCLI(t, "sim", "../../configs/ring-chang-roberts.yaml", "--out", dir, "--quiet", "--set", "duration=1.05s")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	word := regexp.MustCompile(`(?m)^verdict: ([a-z]+)`).FindStringSubmatch(out)
	if word == nil || word[1] == analysis.Valid {
		t.Fatalf("want a run that is not valid yet (unsettled), got\n%s", out)
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if out, err := runCLI(t, "trace", "report", dir, "--html", page); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	dom := chromiumtest.ReadyDOM(t, page)
	want := `<div id="run-verdict">verdict: <span class="verdict ` + word[1] + `">` + word[1] + `</span><span class="reason"> (`
	if !strings.Contains(dom, want) || strings.Index(dom, `id="run-verdict"`) > strings.Index(dom, `id="verdict-table"`) {
		t.Fatalf("the page does not state %q above the check's verdicts", want)
	}
}

// TestVerdictLineFirst: sim, trace report (text and page) and trace
// check begin with one verdict line (judge.Line), the summary's the same
// in sim, the report and the page; metrics follow; elections are named by
// initiator, not epoch; a run where no election finished says its count
// is not compared rather than "matches"; and the epoch property states
// what it saw rather than guessing at the protocol (issue 35, item 8).
func TestVerdictLineFirst(t *testing.T) {
	dir := t.TempDir()
	// Cut before any leader note: no election finished.
	out, err := runCLI(t, "sim", "../../configs/ring-chang-roberts.yaml", "--out", dir, "--quiet", "--set", "duration=1.05s")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	first := func(s string) string { return strings.SplitN(s, "\n", 2)[0] }
	line := first(out)
	if !strings.HasPrefix(line, "verdict: unsettled (") {
		t.Fatalf("sim does not start with its verdict line:\n%s", out)
	}
	rep, err := runCLI(t, "trace", "report", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, rep)
	}
	if first(rep) != line {
		t.Errorf("trace report starts with %q, sim with %q", first(rep), line)
	}
	if i, j := strings.Index(rep, "verdict: "), strings.Index(rep, "F (share"); i != 0 || j < 0 {
		t.Errorf("the report's metrics do not follow its verdict line:\n%s", rep)
	}
	if strings.Contains(rep, "matches") || !strings.Contains(rep, "(not compared: no election finished)") {
		t.Errorf("a run with no finished election compares its count:\n%s", rep)
	}
	chk, err := runCLI(t, "trace", "check", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, chk)
	}
	if !strings.HasPrefix(chk, "verdict: unknown (judged and holding: ") || !strings.Contains(first(chk), "not judged: one-leader-per-epoch unknown: no node adopted a leader") {
		t.Errorf("trace check's verdict line:\n%s", chk)
	}
	if strings.Contains(chk, "no epochs?") {
		t.Errorf("trace check guesses at the protocol's epochs:\n%s", chk)
	}
	// The JSON of both carries the same line, first.
	for cmd, want := range map[string]string{"report": line, "check": first(chk)} {
		out, err := runCLI(t, "trace", cmd, dir, "--json")
		if err != nil && cmd == "report" {
			t.Fatalf("%v\n%s", err, out)
		}
		var v struct {
			Verdict struct{ Word, Reason, Line string }
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("trace %s --json: %v\n%s", cmd, err, out)
		}
		if v.Verdict.Line != want || !strings.HasPrefix(want, "verdict: "+v.Verdict.Word+" (") || !strings.HasPrefix(strings.TrimLeft(out, "{ \n"), `"verdict": {`) {
			t.Errorf("trace %s --json's verdict %+v, its text's line %q:\n%.300s", cmd, v.Verdict, want, out)
		}
	}
	d, out := reportPage(t, dir)
	if first(out) != line {
		t.Errorf("trace report --html starts with %q, sim with %q", first(out), line)
	}
	if d.Verdict == nil || d.Verdict.Line != line {
		t.Errorf("the page's verdict line %+v, sim's %q", d.Verdict, line)
	}
	// A run with elections names them by initiator.
	dir = t.TempDir()
	if out, err := runCLI(t, "sim", "../../configs/ring-chang-roberts.yaml", "--out", dir, "--quiet", "--set", "duration=5s"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rep, err = runCLI(t, "trace", "report", dir)
	if err != nil || !regexp.MustCompile(`(?m)^  node 1 +1\.000 `).MatchString(rep) {
		t.Errorf("the report does not name the election by node 1 at 1 s: %v\n%s", err, rep)
	}
}

// reportPage runs trace report --html on dir: the page's data and what
// the command printed.
func reportPage(t *testing.T, dir string) (*htmlreport.Data, string) {
	t.Helper()
	page := filepath.Join(t.TempDir(), "r.html")
	out, err := runCLI(t, "trace", "report", dir, "--html", page)
	if err != nil {
		t.Fatalf("trace report %s --html: %v\n%s", dir, err, out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	d, err := htmlreport.Extract(b)
	if err != nil {
		t.Fatal(err)
	}
	return d, out
}
