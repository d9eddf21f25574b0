package explore

import (
	"strings"
	"testing"

	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/analysis"
)

// TestConfirmRefusesWhatTheReplayDoesNotShow: a violation claimed on a
// schedule whose replay shows nothing (the correct Chang-Roberts in the
// simulator's order) is not confirmed, and the replay's line says what
// the explorer's check and trace check found (TestExploreFindsBrokenVariants
// holds real ones confirmed).
func TestConfirmRefusesWhatTheReplayDoesNotShow(t *testing.T) {
	s, err := scenario.Load("../configs/explore/cr3.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{}
	if err := check(s, &opt); err != nil {
		t.Fatal(err)
	}
	x, err := newExplorer(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	v := &Violation{Property: analysis.PropEpochLeader, Schedule: &sim.Schedule{Seed: s.Seed}}
	if err := x.confirm(v); err != nil {
		t.Fatal(err)
	}
	if v.Confirmed || !strings.Contains(v.Replayed, "the explorer's check: no violation") || !strings.Contains(v.Replayed, "one-leader-per-epoch valid") {
		t.Fatalf("confirmed %v: %s", v.Confirmed, v.Replayed)
	}
	t.Log(v.Replayed)
}
