package explore

import (
	"testing"

	"manetlab/scenario"
)

// TestSleepSets: dfs with sleep sets (Options.POR) on the small correct
// scenarios finishes every order with no violation, as the plain dfs
// does, in fewer states; every combination of the nodes' protocol states
// (and the checker's memory) it reaches, the plain search reaches too
// (the reduction invents nothing); and it reaches fewer of them on the
// ring elections (the reduction is not exact: docs/explore.md, "Sleep
// sets"), all of them on the bully scenarios, where no two choices at
// different nodes are due at one time.
func TestSleepSets(t *testing.T) {
	cases := []struct {
		file  string
		depth int
		exact bool // every protocol state of the plain search reached
	}{
		{"cr3", 60, true}, {"sk3", 60, false},
		{"bully3", 150, true}, {"bully-gm3", 150, true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s, err := scenario.Load("../configs/explore/"+c.file+".yaml", nil)
			if err != nil {
				t.Fatal(err)
			}
			run := func(por bool) *explorer {
				opt := Options{Strategy: DFS, Depth: c.depth, POR: por}
				if err := check(s, &opt); err != nil {
					t.Fatal(err)
				}
				x, err := newExplorer(s, opt)
				if err != nil {
					t.Fatal(err)
				}
				x.coarse = map[fp]bool{}
				if err := x.dfs(); err != nil {
					t.Fatal(err)
				}
				if x.found != nil {
					t.Fatalf("por %v: %s: %s", por, x.found.prop, x.found.witness)
				}
				if !x.res.Exhaustive {
					t.Fatalf("por %v: not exhaustive: %s", por, x.res.Budget)
				}
				return x
			}
			plain, por := run(false), run(true)
			missing := 0
			for f := range por.coarse {
				if !plain.coarse[f] {
					t.Fatalf("sleep sets reached a protocol state the plain search did not")
				}
			}
			for f := range plain.coarse {
				if !por.coarse[f] {
					missing++
				}
			}
			t.Logf("%s: plain %d states (%d distinct, %d protocol states), sleep sets %d (%d, %d)",
				c.file, plain.res.States, len(plain.seen), len(plain.coarse), por.res.States, len(por.seen), len(por.coarse))
			if por.res.States > plain.res.States {
				t.Errorf("sleep sets took more states: %d > %d", por.res.States, plain.res.States)
			}
			if c.exact != (missing == 0) {
				t.Errorf("%d of %d protocol states not reached with sleep sets; exact %v", missing, len(plain.coarse), c.exact)
			}
		})
	}
}
