package explore_test

import (
	"strings"
	"testing"
	"time"

	"manetlab/adhoc"
	"manetlab/bully"
	"manetlab/explore"
	"manetlab/explore/brokentest"
	"manetlab/firewire"
	"manetlab/invitation"
	"manetlab/mutex"
	"manetlab/ring"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/analysis"
)

// bugCase is a broken variant (package explore/brokentest) on a scenario,
// the search that must catch it within budget states, the property the
// search reports, and the property `trace check` finds invalid on the
// traces of the minimised schedule replayed (with the stabilisation
// delay given, as `trace check --stabilisation` would; 0: the default),
// and valid on the real algorithm's run of the scenario.
type bugCase struct {
	variant, real, file string
	opt                 explore.Options
	search, check       string
	stabilisation       time.Duration
}

var bugCases = []bugCase{
	// Every initiator's token comes back: too many tokens first, then two
	// leaders in epoch 1 (trace check reports the second).
	{brokentest.ChangRobertsForwardsSmaller, ring.ChangRoberts, "../configs/explore/cr3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 200},
		explore.PropBound, analysis.PropEpochLeader, 0},
	// The right leader, more messages than Hirschberg-Sinclair's exact
	// count (28 on this ring, in every order): only the count shows it,
	// which trace check does not judge on this branch ("").
	{brokentest.HSRelaysPast, ring.HirschbergSinclair, "../configs/explore/hs4.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		explore.PropBound, "", 0},
	// Found by random schedules within a few hundred states (bfs takes
	// about 8,000, dfs goes deep into other orders first).
	{brokentest.LamportOneShort, mutex.Lamport, "../configs/explore/lamport3.yaml",
		explore.Options{Strategy: explore.Random, Depth: 60, Schedules: 500},
		analysis.PropMutex, analysis.PropMutex, 0},
	{brokentest.RATiesYield, mutex.RicartAgrawala, "../configs/explore/ra3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		analysis.PropMutex, analysis.PropMutex, 0},
	// Requests starve once the token has gone back to a node that no
	// longer wants it: the explorer sees it at quiescence; trace check
	// calls a request waiting at the end unknown on this branch ("").
	{brokentest.SKNoLN, mutex.SuzukiKasami, "../configs/explore/sk3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		analysis.PropGranted, "", 0},
	// Judged at the run's end (18 s, the stabilisation delay after the
	// recovery): the failure detectors' checks never let it go quiet.
	{brokentest.BullyKeepsLead, bully.Textbook, "../configs/explore/bully-recover3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 200, States: 2000},
		analysis.PropStableLeader, analysis.PropStableLeader, 0},
	{brokentest.TokenRingRegenNoGen, mutex.TokenRing, "../configs/explore/token3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 100, States: 2000},
		analysis.PropMutex, analysis.PropMutex, 0},
	// Count-only: a node sends every message of one kind twice; the
	// per-node budget (protocol.Budget) shows it, at the run's end or
	// at quiescence.
	{brokentest.BullyOKTwice, bully.Textbook, "../configs/explore/bully3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 200, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	{brokentest.GarciaMolinaNewCoordTwice, bully.GarciaMolina, "../configs/explore/bully-gm3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 200, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	{brokentest.InvitationAcceptTwice, invitation.Name, "../configs/explore/invitation3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 200, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	{brokentest.FirewireAckTwice, firewire.Name, "../configs/explore/firewire3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 200, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	// A halt round is paid for by an epoch led, a halt received, a
	// recovery or an election under way by the node's notes: the second
	// copy of the first halt is over it at once.
	{brokentest.GarciaMolinaHalts2, bully.GarciaMolina, "../configs/explore/bully-gm3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 200, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	// The lower-valued leader's followers start over at once and for
	// ever: leaders never stay put, but the component does, and at the
	// run's end (the stabilisation delay after its last change, as trace
	// check judges a settled component) it does not follow its best
	// node. Random schedules reach the end (one is enough); dfs goes
	// deep into the orders of the first elections.
	{brokentest.VasudevanLowerLeader, adhoc.Name, "../configs/explore/tree3.yaml",
		explore.Options{Strategy: explore.Random, Depth: 5000, Schedules: 20},
		analysis.PropStableLeader, analysis.PropStableLeader, 0},
	{brokentest.TokenRingTokenTwice, mutex.TokenRing, "../configs/explore/token3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 200, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	// One-line bugs of the same classes written after these.
	{brokentest.ChangRobertsElectsSmallest, ring.ChangRoberts, "../configs/explore/cr3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		analysis.PropStableLeader, analysis.PropStableLeader, 0},
	// The inverted priority lets the later request in beside the
	// earlier one in some order (the simulator's own order shows the
	// starvation: trace/judge TestVariantsInvalidOnShippedConfigs).
	{brokentest.RAInvertedPriority, mutex.RicartAgrawala, "../configs/explore/ra3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		analysis.PropMutex, analysis.PropMutex, 0},
	{brokentest.RAReplyTwice, mutex.RicartAgrawala, "../configs/explore/ra3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	{brokentest.LamportReleaseTwice, mutex.Lamport, "../configs/explore/lamport3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	{brokentest.SKRequestTwice, mutex.SuzukiKasami, "../configs/explore/sk3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 2000},
		explore.PropBound, analysis.PropBound, 0},
	{brokentest.RAEarly, mutex.RicartAgrawala, "testdata/broken-ra3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 200},
		analysis.PropMutex, analysis.PropMutex, 0},
	{brokentest.BullyNoOKWait, bully.Textbook, "testdata/broken-bully3.yaml",
		explore.Options{Strategy: explore.DFS, Depth: 60, States: 200},
		analysis.PropStableLeader, analysis.PropStableLeader, 500 * time.Millisecond},
	// Judged at the run's end (25 s, past the 22.5 s stabilisation
	// delay); random schedules reach the end, dfs goes deep into the
	// orders of the first elections.
	{brokentest.VasudevanLowerIndex, adhoc.Name, "testdata/broken-tree4.yaml",
		explore.Options{Strategy: explore.Random, Depth: 300, Schedules: 100},
		analysis.PropStableLeader, analysis.PropStableLeader, 300 * time.Millisecond},
}

// TestExploreFindsBrokenVariants: each broken variant is caught within
// its state budget with the violation expected, the schedule comes back
// minimised (no longer than found), and replayed by sim.RunSchedule it
// gives traces on which analysis.Check (`trace check`) finds the
// violation.
func TestExploreFindsBrokenVariants(t *testing.T) {
	for _, c := range bugCases {
		t.Run(strings.TrimPrefix(c.variant, "test/"), func(t *testing.T) {
			s, err := scenario.Load(c.file, []string{"protocol.name=" + c.variant})
			if err != nil {
				t.Fatal(err)
			}
			r, err := explore.Run(s, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			v := r.Violation
			if v == nil {
				t.Fatalf("no violation in %d states (budget %d; %s)", r.States, c.opt.States, r.Budget)
			}
			t.Logf("%s: %s after %d states (%d distinct, depth %d, %v): %s; %d choices found, %d kept",
				c.variant, v.Property, r.States, r.Distinct, r.MaxDepth, r.Elapsed.Round(time.Millisecond), v.Witness, v.Found, len(v.Schedule.Choices))
			if v.Property != c.search {
				t.Fatalf("violation %s (%s), want %s", v.Property, v.Witness, c.search)
			}
			// dfs with sleep sets catches it too, with the same property.
			if c.opt.Strategy == explore.DFS {
				po := c.opt
				po.POR = true
				pr, err := explore.Run(s, po)
				if err != nil {
					t.Fatal(err)
				}
				if pr.Violation == nil || pr.Violation.Property != c.search {
					t.Fatalf("with sleep sets: %+v after %d states, want %s", pr.Violation, pr.States, c.search)
				}
				t.Logf("with sleep sets: %s after %d states", pr.Violation.Property, pr.States)
			}
			if v.Schedule == nil || len(v.Schedule.Choices) > v.Found {
				t.Fatalf("schedule %+v not minimised (%d choices found)", v.Schedule, v.Found)
			}
			// The schedule file, read back, replays to the violation.
			path := t.TempDir() + "/schedule.json"
			if err := writeFile(path, v.Schedule.JSON()); err != nil {
				t.Fatal(err)
			}
			sched, err := sim.ReadSchedule(path)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if _, err := sim.RunSchedule(s, sim.Options{Out: dir}, sched); err != nil {
				t.Fatal(err)
			}
			if !v.Confirmed {
				t.Fatalf("not confirmed by its replay: %s", v.Replayed)
			}
			t.Logf("replayed: %s", v.Replayed)
			if c.check == "" {
				return // trace check does not decide it on this branch
			}
			p := checkProperty(t, dir, c.check, c.stabilisation)
			if p.Verdict != analysis.Invalid || len(p.Witnesses) == 0 && p.Name != analysis.PropBound {
				t.Fatalf("replayed: %s is %s (%s)", p.Name, p.Verdict, p.Reason)
			}
			if len(p.Witnesses) > 0 {
				t.Logf("replayed: %s invalid: %s", p.Name, p.Witnesses[0].Text)
			} else {
				t.Logf("replayed: %s invalid: %s", p.Name, p.Reason)
			}
			// The real algorithm on the same scenario passes the same check.
			rs, err := scenario.Load(c.file, []string{"protocol.name=" + c.real})
			if err != nil {
				t.Fatal(err)
			}
			dir = t.TempDir()
			if _, err := sim.Run(rs, sim.Options{Out: dir}); err != nil {
				t.Fatal(err)
			}
			if p := checkProperty(t, dir, c.check, c.stabilisation); p.Verdict != analysis.Valid {
				t.Fatalf("%s on the same scenario: %s is %s (%s) %+v", c.real, p.Name, p.Verdict, p.Reason, p.Witnesses)
			}
		})
	}
}

// checkProperty is what analysis.Check says of property name on the run
// in dir.
func checkProperty(t *testing.T, dir, name string, stabilisation time.Duration) analysis.Property {
	t.Helper()
	chk, err := analysis.Check(dir, analysis.CheckOptions{Stabilisation: stabilisation})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range chk.Properties {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no %s in %+v", name, chk.Properties)
	return analysis.Property{}
}
