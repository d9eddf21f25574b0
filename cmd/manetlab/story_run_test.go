package main

import (
	"encoding/json"
	"strings"
	"testing"

	"manetlab/node/netnstest"
	"manetlab/trace/report"
)

// checkStory runs config with sim and then as real node processes and
// requires each summary to be valid and its leader timeline to pass the
// steps in order (a step may skip moments).
func checkStory(t *testing.T, config string, sets []string, steps []func(m report.Moment) bool) {
	t.Helper()
	if findCommand(newApp().Commands, "node") == nil {
		t.Skip("no node command in this build")
	}
	for _, driver := range []string{"sim", "run"} {
		if driver == "run" {
			if !netnstest.Run(t, netnstest.LoopbackMulticast) {
				return
			}
			useHelper(t, "main")
		}
		args := []string{driver, config, "--json", "--out", t.TempDir(), "--quiet"}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", driver, err, out)
		}
		var sum report.Summary
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", driver, err, out)
		}
		k := 0
		for _, m := range sum.Timeline {
			if k < len(steps) && steps[k](m) {
				k++
			}
		}
		if k < len(steps) || !judgedOrTooShort(sum.Verdict, sum.Reason) {
			t.Errorf("%s: verdict %s, timeline followed %d of %d steps: %+v", driver, sum.Verdict, k, len(steps), sum.Timeline)
		}
		// The per-node message budget is judged on real runs by the
		// same rules (docs/analysis.md, "Per-node budgets").
		if c := sum.Complexity; c == nil || c.Judged == nil || c.Judged.Verdict == "invalid" {
			t.Errorf("%s: message count not judged, or invalid: %+v", driver, c)
		} else {
			t.Logf("%s: message bound %s: %s", driver, c.Judged.Verdict, c.Judged.Reason)
		}
	}
}

// TestBullyRealProcessesTimeline runs configs/bully.yaml: the timeline
// shows the coordinator's crash, node 6 taking over and node 7's return,
// with real processes as in sim. (The timeline prints a moment when the
// set of leaders changes, so 7's first moment may show it before its
// followers.)
func TestBullyRealProcessesTimeline(t *testing.T) {
	checkStory(t, "../../configs/bully.yaml", []string{"duration=24s"}, []func(m report.Moment) bool{
		func(m report.Moment) bool { return m.Leaders["7"] > 0 },
		func(m report.Moment) bool { return strings.HasPrefix(m.Event, "node 7 crashed") },
		func(m report.Moment) bool { return m.Leaders["6"] == 6 },
		func(m report.Moment) bool { return strings.HasPrefix(m.Event, "node 7 recovered") },
		func(m report.Moment) bool { return m.Leaders["7"] == 7 },
	})
}

// TestInvitationRealProcessesTimeline runs the partition of
// configs/invitation.yaml: one group under 8, two groups (under 8 and 7)
// while the squares are apart, one group under 8 again after they meet
// (at 28 s; the run ends at 40 s, room for the merge on a loaded machine).
func TestInvitationRealProcessesTimeline(t *testing.T) {
	checkStory(t, "../../configs/invitation.yaml", []string{"duration=40s", "faults=[]"}, []func(m report.Moment) bool{
		func(m report.Moment) bool { return m.Leaders["8"] == 8 },
		func(m report.Moment) bool { return m.Leaders["8"] >= 3 && m.Leaders["7"] >= 3 }, // a straggler may still be between groups
		func(m report.Moment) bool { return m.Leaders["8"] == 8 },
	})
}
