package ext_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/explore"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/analysis"
)

// raSafety is configs/explore-mutex.yaml (3 nodes requesting at once)
// running the Ricart-Agrawala program at path, which declares the safety
// predicate "at most one node holds the section" over its described
// states.
func raSafety(t *testing.T, path string) string {
	t.Helper()
	return `  name: ext/stdio
  params:
    cmd: [python3, ` + path + `]
    goal: mutex
    reuse: true
    safety: count(state == "holding") <= 1
`
}

// brokenRA writes a variant of examples/anylang/ricartagrawala.py that
// never defers a reply and notes no section (only its described state
// shows that it holds the section), and returns its path.
func brokenRA(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "examples", "anylang", "ricartagrawala.py"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for _, r := range [][2]string{
		{`if state == "holding" or state == "wanting" and (req, me) < (ts, frm):`, `if False:  # broken: never defers`},
		{`note="cs-enter"`, `note="info"`}, {`note="cs-exit"`, `note="info"`},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("the example no longer has %q", r[0])
		}
		src = strings.ReplaceAll(src, r[0], r[1])
	}
	path := filepath.Join(t.TempDir(), "ra_broken.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSafetyPredicateCatchesBrokenVariant: a protocol's declared safety
// predicate over its described states holds for the Python
// Ricart-Agrawala (explore, 40 states; trace check) and catches a
// broken variant whose bug only its states show: `explore` after a step,
// `trace check` over the simulated trace.
func TestSafetyPredicateCatchesBrokenVariant(t *testing.T) {
	need(t, "python3")
	good := config(t, "explore-mutex", raSafety(t, filepath.Join(root, "examples", "anylang", "ricartagrawala.py")))
	// Three requests at once have about 10^6 orders (mutex/ricart-agrawala
	// explores 200,000 states in 2 minutes): a budget of 40 states here.
	res, err := explore.Run(good, explore.Options{Strategy: explore.DFS, Depth: 40, States: 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation != nil || res.States < 40 {
		t.Fatalf("the correct algorithm: violation %+v in %d states", res.Violation, res.States)
	}
	if p := checked(t, good); p.Verdict != analysis.Valid || p.Checked == 0 {
		t.Fatalf("trace check of the correct algorithm: %+v", p)
	}

	bad := config(t, "explore-mutex", raSafety(t, brokenRA(t)))
	res, err = explore.Run(bad, explore.Options{Strategy: explore.DFS, Depth: 40, States: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil || res.Violation.Property != analysis.PropSafety {
		t.Fatalf("explore did not catch the broken variant by its predicate: %+v", res.Violation)
	}
	p := checked(t, bad)
	if p.Verdict != analysis.Invalid || len(p.Witnesses) == 0 || !strings.Contains(p.Witnesses[0].Text, "holding") {
		t.Fatalf("trace check of the broken variant: %+v", p)
	}
	t.Logf("explore: %s; trace check: %s", res.Violation.Witness, p.Witnesses[0].Text)
}

// checked simulates s and returns trace check's safety-predicate property.
func checked(t *testing.T, s *scenario.Scenario) analysis.Property {
	t.Helper()
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Properties {
		if p.Name == analysis.PropSafety {
			return p
		}
	}
	t.Fatalf("no %s property in %+v", analysis.PropSafety, rep.Properties)
	return analysis.Property{}
}
