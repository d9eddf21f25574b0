package main

import (
	"encoding/json"
	"strings"
	"testing"

	"manetlab/internal/netnstest"
	"manetlab/trace/report"
)

// TestBullyRealProcessesTimeline runs configs/bully.yaml as real node
// processes: the summary's leader timeline shows the coordinator's crash,
// node 6 taking over and node 7's return, as sim shows them.
func TestBullyRealProcessesTimeline(t *testing.T) {
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
		out, err := runCLI(t, driver, "../../configs/bully.yaml", "--json", "--out", t.TempDir(), "--quiet", "--set", "duration=24s")
		if err != nil {
			t.Fatalf("%s: %v\n%s", driver, err, out)
		}
		var sum report.Summary
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", driver, err, out)
		}
		// The story, in order: 7 leads, 7 crashes, 6 leads the six
		// others, 7 recovers, 7 leads all again. (The timeline prints a
		// moment when the set of leaders changes, so 7's first moment may
		// show it before its followers.)
		steps := []func(m report.Moment) bool{
			func(m report.Moment) bool { return m.Leaders["7"] > 0 },
			func(m report.Moment) bool { return strings.HasPrefix(m.Event, "node 7 crashed") },
			func(m report.Moment) bool { return m.Leaders["6"] == 6 },
			func(m report.Moment) bool { return strings.HasPrefix(m.Event, "node 7 recovered") },
			func(m report.Moment) bool { return m.Leaders["7"] == 7 },
		}
		k := 0
		for _, m := range sum.Timeline {
			if k < len(steps) && steps[k](m) {
				k++
			}
		}
		if k < len(steps) || sum.Verdict != "valid" {
			t.Errorf("%s: verdict %s, timeline followed %d of %d steps: %+v", driver, sum.Verdict, k, len(steps), sum.Timeline)
		}
	}
}
