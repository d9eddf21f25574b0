package judge_test

import (
	"strings"
	"testing"

	"manetlab/explore/brokentest"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace/analysis"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

// TestVariantsInvalidOnShippedConfigs: every broken variant of issue 39
// (explore/brokentest) simulated on a shipped config is invalid in the
// run's summary and in trace check, on the property that shows its bug;
// the correct algorithm on the same run is valid in both. The Lamport
// variant needs an order where a request is still on its way when the
// one-short member enters: configs/mutex-contention.yaml (several hops,
// overlapping requests) has one in the simulator's own order with its
// shipped seed, as has mutex-lamport at rate 0.5 and seed 4 (the explorer
// finds it on configs/explore/lamport3.yaml as shipped); the same config
// shows Ricart-Agrawala replying early.
func TestVariantsInvalidOnShippedConfigs(t *testing.T) {
	for _, c := range []struct {
		variant, config string
		sets            []string
		prop            string // the trace check property that is invalid
	}{
		{brokentest.ChangRobertsForwardsSmaller, "explore/cr3", nil, analysis.PropEpochLeader},
		{brokentest.HSRelaysPast, "ring-hirschberg-sinclair", nil, analysis.PropBound},
		{brokentest.HSRelaysPast, "explore/hs4", nil, analysis.PropBound},
		{brokentest.LamportOneShort, "mutex-lamport", []string{"workload.rate=0.5", "seed=4"}, analysis.PropMutex},
		{brokentest.LamportOneShort, "mutex-contention", nil, analysis.PropMutex},
		{brokentest.RAEarly, "mutex-contention", []string{"protocol.name=" + "mutex/ricart-agrawala"}, analysis.PropMutex},
		{brokentest.RATiesYield, "explore/ra3", nil, analysis.PropMutex},
		{brokentest.RAEarly, "mutex-ricart-agrawala", nil, analysis.PropMutex},
		{brokentest.SKNoLN, "mutex-suzuki-kasami", nil, analysis.PropGranted},
		{brokentest.SKNoLN, "explore/sk3", nil, analysis.PropGranted},
		{brokentest.BullyKeepsLead, "bully", nil, analysis.PropStableLeader},
		{brokentest.TokenRingRegenNoGen, "explore/token3", nil, analysis.PropMutex},
		{brokentest.VasudevanLowerLeader, "explore/tree3", nil, analysis.PropStableLeader},
		// Count-only bugs, caught by the per-node budgets.
		{brokentest.BullyOKTwice, "bully", nil, analysis.PropBound},
		{brokentest.GarciaMolinaHalts2, "bully-garcia-molina", nil, analysis.PropBound},
		{brokentest.GarciaMolinaNewCoordTwice, "bully-garcia-molina", nil, analysis.PropBound},
		{brokentest.InvitationAcceptTwice, "invitation", nil, analysis.PropBound},
		{brokentest.FirewireAckTwice, "firewire", nil, analysis.PropBound},
		{brokentest.TokenRingTokenTwice, "mutex-token-ring", nil, analysis.PropBound},
		// One-line bugs of the same classes written after these.
		{brokentest.ChangRobertsElectsSmallest, "ring-chang-roberts", nil, analysis.PropStableLeader},
		{brokentest.ChangRobertsElectsSmallest, "explore/cr3", nil, analysis.PropStableLeader},
		{brokentest.RAInvertedPriority, "mutex-ricart-agrawala", nil, analysis.PropGranted},
		{brokentest.RAInvertedPriority, "explore/ra3", nil, analysis.PropGranted},
		{brokentest.RAReplyTwice, "mutex-ricart-agrawala", nil, analysis.PropBound},
		{brokentest.LamportReleaseTwice, "mutex-lamport", nil, analysis.PropBound},
		{brokentest.SKRequestTwice, "mutex-suzuki-kasami", nil, analysis.PropBound},
	} {
		t.Run(c.variant+"@"+c.config, func(t *testing.T) {
			s, err := scenario.Load("../../configs/"+c.config+".yaml", c.sets)
			if err != nil {
				t.Fatal(err)
			}
			correct := s.Protocol.Name
			sum, rep := simJudged(t, "../../configs/"+c.config+".yaml", c.sets, correct)
			for _, p := range rep.Properties {
				if p.Verdict == judge.Invalid {
					t.Errorf("correct %s: %s invalid (%s)", correct, p.Name, p.Reason)
				}
			}
			if sum.Verdict != judge.Valid {
				t.Errorf("correct %s: summary %s (%s)", correct, sum.Verdict, sum.Reason)
			}
			sum, rep = simJudged(t, "../../configs/"+c.config+".yaml", c.sets, c.variant)
			if sum.Verdict != judge.Invalid {
				t.Errorf("%s: summary %s (%s)", c.variant, sum.Verdict, sum.Reason)
			}
			p := property(rep, c.prop)
			if p.Verdict != judge.Invalid {
				t.Errorf("%s: trace check %s %s (%s)", c.variant, p.Name, p.Verdict, p.Reason)
			}
			// A count over its budget names the send that first went
			// over it and the request or election it was part of.
			if strings.Contains(p.Reason, "over its budget") && !strings.Contains(p.Reason, "the first send over a budget: node ") {
				t.Errorf("%s: %s does not name the entry over the budget: %s", c.variant, p.Name, p.Reason)
			}
			t.Logf("%s: %s", p.Name, p.Reason)
		})
	}
}

// simJudged simulates the config with protocol name and returns the
// summary and trace check's report.
func simJudged(t *testing.T, config string, sets []string, name string) (*report.Summary, *analysis.CheckReport) {
	t.Helper()
	s, err := scenario.Load(config, append(append([]string{}, sets...), "protocol.name="+name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.Lookup(name); err != nil {
		t.Fatal(err)
	}
	return judgedDir(t, simulated(t, s))
}
