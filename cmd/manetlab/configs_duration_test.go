package main

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/scenario"
	"manetlab/trace/analysis"
)

// JudgeMargin is how long after its last fault has had the stabilisation
// delay a shipped scenario must go on, so that its end is judged
// (docs/analysis.md, "No vacuous verdict").
const JudgeMargin = 2 * time.Second

// TestConfigsLastLongEnoughToJudge: every scenario under configs/, the
// explore configs included, lasts long enough to judge the faults it
// stages: its last fault plus the stabilisation delay of its protocol
// (analysis.Stabilisation) plus JudgeMargin. (That a run without faults
// judges something at its end, settled or in a final state, is
// TestConfigsJudgeSomething's and TestShippedConfigsVerdicts'.)
func TestConfigsLastLongEnoughToJudge(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../../configs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 30 {
		t.Fatalf("configs: %v, %d files", err, len(files))
	}
	for _, f := range files {
		s, err := scenario.Load(f, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		stab := analysis.Stabilisation(s)
		if len(s.Faults) == 0 {
			continue
		}
		var last time.Duration
		for _, x := range s.Faults {
			last = max(last, x.At.D())
		}
		need := last + stab + JudgeMargin
		if d := s.Duration.D(); d < need {
			t.Errorf("%s: duration %v, but its last fault at %v, the %v stabilisation delay and the %v margin need %v", f, d, last, stab, JudgeMargin, need)
		}
	}
}

// TestConfigsJudgeSomething: the run summary of every explore config
// judges its end (a settled component, or the run's final state): none
// says "nothing judged".
func TestConfigsJudgeSomething(t *testing.T) {
	files, err := filepath.Glob("../../configs/explore/*.yaml")
	if err != nil || len(files) < 10 {
		t.Fatalf("explore configs: %v, %d files", err, len(files))
	}
	for _, f := range files {
		out, err := runCLI(t, "sim", "--json", "--quiet", "--out", t.TempDir(), f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var sum struct{ Verdict, Reason string }
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if strings.HasPrefix(sum.Reason, "nothing judged") {
			t.Errorf("%s: %s (%s)", f, sum.Verdict, sum.Reason)
		}
	}
}
