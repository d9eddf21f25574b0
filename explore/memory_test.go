package explore_test

import (
	"strings"
	"testing"

	"manetlab/explore"
	"manetlab/scenario"
)

// TestExploreMemoryBound: a bfs of lelann4 (hundreds of thousands of
// states) under a 1 MiB bound stops cleanly at its first reading of the
// memory, with a budget that names the memory, as the other budgets do;
// the default bound is a share of the available memory, said in the
// result.
func TestExploreMemoryBound(t *testing.T) {
	s, err := scenario.Load("../configs/explore/lelann4.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := explore.Run(s, explore.Options{Strategy: explore.BFS, Memory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if r.Exhaustive || r.Violation != nil || !strings.HasPrefix(r.Budget, "memory: ") || r.States > 1000 {
		t.Fatalf("after %d states: budget %q, exhaustive %v, violation %+v; want the memory bound to stop it", r.States, r.Budget, r.Exhaustive, r.Violation)
	}
	if !strings.Contains(r.Memory, "1 MiB (--memory)") {
		t.Fatalf("memory line %q", r.Memory)
	}
	t.Logf("%s; stopped after %d states: %s", r.Memory, r.States, r.Budget)
	r, err = explore.Run(s, explore.Options{Strategy: explore.BFS, States: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Memory, "available") {
		t.Fatalf("default memory line %q: want the share of the available memory", r.Memory)
	}
	t.Log(r.Memory)
}
