package studio_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"manetlab/sim"
	"manetlab/studio"
)

// TestViolationCausesOverTheBound: for message-bound, the offending
// messages of a schedule's violation are those sent over the bound its
// witness states: over the worst case of the whole run (explore's
// count), or over one node's budget (the per-node budget's witness, as
// trace/judge words it). Chang-Roberts run to its end (26 tokens) under
// witnesses with lower bounds.
func TestViolationCausesOverTheBound(t *testing.T) {
	const path = "../configs/ring-chang-roberts.yaml"
	_, url := serve(t, path, "radio.mac=ideal")
	end := post(t, url, "/api/step", map[string]any{"n": 400})
	if end.Counts.Messages != 26 {
		t.Fatalf("%d election messages", end.Counts.Messages)
	}
	fours := 0 // the tokens node 4 sent, each delivered
	for _, h := range end.History {
		if h.Class == sim.ClassProtocol && strings.HasPrefix(h.Line, "token from ") && strings.Contains(h.Line, ": 4→") {
			fours++
		}
	}
	open := func(witness string) *studio.Violation {
		sched := &sim.Schedule{Seed: 1, Steps: end.Step, Violation: &sim.Violation{Property: "message-bound", Witness: witness, Step: end.Step}}
		st, err := studio.New(studio.Config{Scenario: loadScenario(t, path, "radio.mac=ideal"), Out: t.TempDir(), Schedule: sched})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		r, err := do(httptestServer(t, st), "GET", "/api/state", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var s studio.State
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
			t.Fatal(err)
		}
		return s.Violation
	}
	v := open("26 election messages, above the worst case 20 (n(n+1)/2 for 8 nodes, were it 20)")
	if len(v.Causes) != 6 {
		t.Fatalf("over the worst case 20: %+v", v.Causes)
	}
	for i, c := range v.Causes {
		if !strings.HasPrefix(c.Line, "token from ") || c.Why != fmt.Sprintf("election message %d, over the worst case 20", 21+i) || i > 0 && c.Step < v.Causes[i-1].Step {
			t.Fatalf("offending message %d: %+v", i, c)
		}
	}
	v = open("node 4 sent 9 token messages, over its budget of 1 (per node), which holds in this run (static); the budget: 1 token")
	if len(v.Causes) != fours-1 || fours < 2 {
		t.Fatalf("node 4 sent %d tokens; over its budget of 1: %+v", fours, v.Causes)
	}
	for i, c := range v.Causes {
		if !strings.Contains(c.Line, ": 4→") || c.Nodes[0] != 4 || c.Why != fmt.Sprintf("node 4's token message %d, over its budget of 1", i+2) {
			t.Fatalf("offending message %d: %+v", i, c)
		}
	}
}
