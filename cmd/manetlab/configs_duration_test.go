package main

import (
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
// explore configs included, lasts long enough to judge what it stages:
// its last fault plus the stabilisation delay of its protocol
// (analysis.Stabilisation) plus JudgeMargin, and a run without faults at
// least the delay plus the margin, so that its end is settled and judged
// rather than "nothing judged".
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
