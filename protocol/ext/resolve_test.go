package ext

import (
	"testing"

	"manetlab/protocol"
)

func TestResolveTakesGoalRingAndBoundsFromParams(t *testing.T) {
	params := protocol.Params{"cmd": []any{"python3", "x.py"}, "goal": "highest-id", "ring": "random",
		"announce": []any{"elected"}, "worst": "n(n+1)/2", "args": map[string]any{"initiators": "all"}}
	s, err := protocol.LookupFor(Name, params)
	if err != nil {
		t.Fatal(err)
	}
	if s.Goal != protocol.GoalHighestID || !s.LogicalRing || s.Complexity == nil || s.Complexity.Bound == nil {
		t.Fatalf("resolved spec: goal %q ring %v complexity %+v", s.Goal, s.LogicalRing, s.Complexity)
	}
	b, err := s.Complexity.Bound(make([]protocol.NodeID, 8), params, 1)
	if err != nil || b.Worst == nil || *b.Worst != 36 || !b.EveryOrder {
		t.Fatalf("bound for n=8: %+v %v, want worst 36 in every order", b, err)
	}
}
