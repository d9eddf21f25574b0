package explore_test

import (
	"path/filepath"
	"strings"
	"testing"

	"manetlab/explore"
	"manetlab/mutex"
	"manetlab/scenario"
)

// falseAlarmBudget bounds each search of TestExploreNoFalseAlarms (1,500 finds
// nothing either, in 10 s).
const falseAlarmBudget = 300

// falseAlarmSchedules bounds its random searches (200 schedules each,
// about 20,000 states a config, found nothing either after the fixes of
// issue 39's third session).
const falseAlarmSchedules = 10

// TestExploreNoFalseAlarms: on every shipped explore config, the correct
// algorithm shows no violation with one crash (and recovery) anywhere,
// nor with one drop anywhere, within a small budget of states (dfs) and
// of schedules to the run's end (random); and no
// violation is found that its replay does not confirm.
func TestExploreNoFalseAlarms(t *testing.T) {
	files, err := filepath.Glob("../configs/explore/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs/explore/*.yaml: %v", err)
	}
	for _, f := range files {
		s, err := scenario.Load(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []explore.Options{
			{Strategy: explore.DFS, Crashes: 1, States: falseAlarmBudget},
			{Strategy: explore.DFS, Drops: 1, States: falseAlarmBudget},
			// Random schedules reach the run's end, where liveness is
			// judged after the stabilisation delay (dfs stays among the
			// first orders): a crash and recovery at once, a parent
			// that crashed before its first hello (tree3) showed there.
			{Strategy: explore.Random, Crashes: 1, Depth: 3000, Schedules: falseAlarmSchedules},
			{Strategy: explore.Random, Drops: 1, Depth: 3000, Schedules: falseAlarmSchedules},
		} {
			r, err := explore.Run(s, opt)
			if err != nil {
				t.Fatal(err)
			}
			if v := r.Violation; v != nil {
				t.Errorf("%s, %d crash(es), %d drop(s): %s: %s (replayed: %s)\n%s", f, opt.Crashes, opt.Drops, v.Property, v.Witness, v.Replayed, v.Schedule.JSON())
			}
			if v := r.Unconfirmed; v != nil {
				t.Errorf("%s, %d crash(es), %d drop(s): found %s (%s), not confirmed by its replay: %s", f, opt.Crashes, opt.Drops, v.Property, v.Witness, v.Replayed)
			}
		}
	}
}

// TestExploreTokenRingDropNoFalseAlarm is issue 39's reproducer: the
// token ring on configs/explore/ra3.yaml with one drop reported
// requests-granted at the run's end, where its start timer fires at
// exactly the end (the minimised schedule held no drop) and the replay
// was valid. Liveness at the run's end is now judged only after the
// stabilisation delay, a run is quiescent only when nothing of the
// protocol is left after its end either, and a violation is reported
// only when its replay shows it.
func TestExploreTokenRingDropNoFalseAlarm(t *testing.T) {
	s, err := scenario.Load("../configs/explore/ra3.yaml", []string{"protocol.name=" + mutex.TokenRing})
	if err != nil {
		t.Fatal(err)
	}
	r, err := explore.Run(s, explore.Options{Strategy: explore.DFS, Drops: 1, States: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Violation; v != nil {
		t.Fatalf("%s: %s (replayed: %s)\n%s", v.Property, v.Witness, v.Replayed, v.Schedule.JSON())
	}
	if v := r.Unconfirmed; v != nil {
		t.Fatalf("found %s (%s), not confirmed: %s", v.Property, v.Witness, v.Replayed)
	}
	t.Logf("%d states, %d schedules; notes %v", r.States, r.Schedules, r.Notes)
}

// TestExploreSyncCrashStalled: on configs/explore/sync3.yaml (TimeSlice
// over the simple synchronizer) a crash before the election ends stalls
// the synchronizer: the leaders never settle, which the run summary calls
// stalled (judge.Summary), outside the round protocols' assumptions. The
// explorer says so in a note rather than report stable-leader (before,
// 16 random schedules found that false alarm, confirmed only by a trace
// check judging the leaders from quiescence).
func TestExploreSyncCrashStalled(t *testing.T) {
	s, err := scenario.Load("../configs/explore/sync3.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := explore.Run(s, explore.Options{Strategy: explore.Random, Crashes: 1, Depth: 3000, Schedules: 100})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Violation; v != nil {
		t.Fatalf("%s: %s (replayed: %s)\n%s", v.Property, v.Witness, v.Replayed, v.Schedule.JSON())
	}
	if v := r.Unconfirmed; v != nil {
		t.Fatalf("found %s (%s), not confirmed: %s", v.Property, v.Witness, v.Replayed)
	}
	notes := strings.Join(r.Notes, "; ")
	if !strings.Contains(notes, "stable-leader not judged: stalled") {
		t.Fatalf("no stalled note in 100 schedules with a crash: %s", notes)
	}
	t.Logf("%d states, %d schedules; notes %s", r.States, r.Schedules, notes)
}
