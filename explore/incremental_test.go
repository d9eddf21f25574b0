package explore

import (
	"testing"

	"manetlab/scenario"
)

// TestIncrementalFingerprint: dfs hashes again only the nodes whose
// Touch count moved since the parent state (sim.NodeView.Touch); on
// every state of exhaustive searches of the ring elections, mutual
// exclusion, the tree election and bully, with crashes and drops, the
// fingerprint is the one of hashing every node afresh.
func TestIncrementalFingerprint(t *testing.T) {
	cases := []struct {
		file string
		opt  Options
	}{
		{"cr4", Options{Strategy: DFS, Depth: 60, States: 2000}},
		{"lelann3", Options{Strategy: DFS, Depth: 60, States: 2000}},
		{"hs3", Options{Strategy: DFS, Depth: 60, POR: true, States: 2000}},
		{"ra3", Options{Strategy: DFS, Depth: 60, States: 2000}},
		{"sk3", Options{Strategy: DFS, Depth: 60, States: 2000}},
		{"tree4", Options{Strategy: DFS, Depth: 60, States: 2000}},
		{"bully3", Options{Strategy: DFS, Depth: 150, Crashes: 1, States: 2000}},
		{"cr3", Options{Strategy: DFS, Depth: 60, Crashes: 1, Drops: 1, States: 2000}},
	}
	for _, c := range cases {
		s, err := scenario.Load("../configs/explore/"+c.file+".yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		opt := c.opt
		if err := check(s, &opt); err != nil {
			t.Fatal(err)
		}
		x, err := newExplorer(s, opt)
		if err != nil {
			t.Fatal(err)
		}
		x.checkIncremental = true
		if err := x.dfs(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d states, %d distinct, %d fingerprints differ", c.file, x.res.States, len(x.seen), x.incrementalWrong)
		if x.incrementalWrong > 0 || x.res.States < 100 {
			t.Errorf("%s: %d of %d fingerprints differ from hashing every node", c.file, x.incrementalWrong, x.res.States)
		}
	}
}
