package explore_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/explore"
	"manetlab/scenario"
)

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }

// clearCase is a correct algorithm on a scenario of configs/explore and
// the search that must find no violation; exhaustive says the search must
// also finish every order within the depth (no budget spent).
type clearCase struct {
	file       string
	opt        explore.Options
	exhaustive bool
}

var clearCases = []clearCase{
	{"cr3", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	{"cr4", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	{"lelann3", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	// Exhaustive in 1,129,360 states, two minutes from the command line:
	// too long for a test (docs/explore.md); with sleep sets, below.
	{"lelann4", explore.Options{Strategy: explore.DFS, Depth: 60, States: 5000}, false},
	{"hs3", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	{"hs4", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	{"bully3", explore.Options{Strategy: explore.DFS, Depth: 150}, true},
	{"bully-gm3", explore.Options{Strategy: explore.DFS, Depth: 150}, true},
	{"ra3", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	{"lamport3", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	{"sk3", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	{"tree4", explore.Options{Strategy: explore.DFS, Depth: 60}, true},
	// With sleep sets (not exact: docs/explore.md, "Sleep sets").
	{"lelann4", explore.Options{Strategy: explore.DFS, Depth: 60, POR: true}, true},
	{"hs4", explore.Options{Strategy: explore.DFS, Depth: 60, POR: true}, true},
}

// TestExploreClearsCorrectAlgorithms: the correct algorithms of issue 23
// on the small scenarios of configs/explore show no violation in any
// order the search tries: every order within the depth where the case
// says exhaustive, else within the state budget (figures in
// docs/explore.md).
func TestExploreClearsCorrectAlgorithms(t *testing.T) {
	for _, c := range clearCases {
		name := c.file
		if c.opt.POR {
			name += "-por"
		}
		t.Run(name, func(t *testing.T) {
			s, err := scenario.Load(filepath.Join("../configs/explore", c.file+".yaml"), nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := explore.Run(s, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d states, %d distinct, %d schedules, depth %d, exhaustive %v, %v; budget %q; notes %s",
				c.file, r.States, r.Distinct, r.Schedules, r.MaxDepth, r.Exhaustive, r.Elapsed.Round(time.Millisecond), r.Budget, strings.Join(r.Notes, "; "))
			if v := r.Violation; v != nil {
				t.Fatalf("%s: %s at step %d\n%s", v.Property, v.Witness, v.Step, v.Schedule.JSON())
			}
			if c.exhaustive && !r.Exhaustive {
				t.Fatalf("not exhaustive: budget %q", r.Budget)
			}
		})
	}
}

// TestExploreConfigsCleared: every scenario of configs/explore has its
// case in clearCases (so none ships unexplored), and the explorer
// accepts it (ideal medium, few nodes).
func TestExploreConfigsCleared(t *testing.T) {
	files, err := filepath.Glob("../configs/explore/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs/explore/*.yaml: %v", err)
	}
	have := map[string]bool{}
	for _, c := range clearCases {
		have[c.file] = true
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if !have[name] {
			t.Errorf("%s: no case in clearCases", f)
		}
		s, err := scenario.Load(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := explore.Run(s, explore.Options{Strategy: explore.DFS, States: 1}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
