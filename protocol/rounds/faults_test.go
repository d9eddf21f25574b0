package rounds_test

import (
	"fmt"
	"strings"
	"testing"

	"manetlab/protocol/rounds"
	"manetlab/sim/simtest"
	"manetlab/trace/analysis"
)

// TestLossIsAbsorbed: with 15 % of frames lost the acknowledgements
// repair every round: the same rounds, messages and synchronizer counts
// as without loss, only the transport grows.
func TestLossIsAbsorbed(t *testing.T) {
	for _, sync := range []string{rounds.Simple, rounds.Alpha, rounds.Beta} {
		for _, c := range []struct{ graph, placement, params string }{
			{"ring", "ring", ", ring: ascending"},
			{"radio", "grid", ""},
		} {
			n := 8
			clean := simulate(t, c.graph, sync, n, c.placement, c.params, "")
			lossy := simulate(t, c.graph, sync, n, c.placement, c.params, ", loss: {model: bernoulli, p: 0.15}")
			checkRun(t, lossy, c.graph, sync, n, allWake(n))
			if lossy.c.Rounds != clean.c.Rounds || lossy.c.Messages != clean.c.Messages || lossy.c.SyncMessages != clean.c.SyncMessages {
				t.Fatalf("%s: %+v; without loss %+v", lossy.what, lossy.c, clean.c)
			}
			// virtual time: the repairs (link-layer retries 2 delays apart,
			// retransmissions after the channel's timeout) slow the rounds
			if lossy.c.Time <= clean.c.Time {
				t.Fatalf("%s: %.4fs from round 1 to the last, %.4fs without loss", lossy.what, lossy.c.Time, clean.c.Time)
			}
			t.Logf("%s: %.4fs (without loss %.4fs), transport %d (%d)", lossy.what, lossy.c.Time, clean.c.Time, lossy.sum.Messages.Transport, clean.sum.Messages.Transport)
		}
	}
}

// syncProp returns the synchronizer property of the run in dir.
func syncProp(t *testing.T, dir string) analysis.Property {
	t.Helper()
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Properties {
		if p.Name == analysis.PropSync {
			return p
		}
	}
	t.Fatalf("no %s property in %+v", analysis.PropSync, rep.Properties)
	return analysis.Property{}
}

// TestCrashStalls: a node crashing mid-run stops the rounds of its
// neighbours; the run ends stalled, naming the round and the nodes, and
// the check agrees.
func TestCrashStalls(t *testing.T) {
	for _, sync := range []string{rounds.Simple, rounds.Alpha, rounds.Beta} {
		for _, graph := range []string{"ring", "radio"} {
			settle := "3s"
			if graph == "ring" {
				settle = "1s"
			}
			y := fmt.Sprintf("name: crash\nseed: 1\nduration: 30s\nnodes: {count: 6, values: id, placement: ring}\nradio: {range: 250}\nmobility: {model: static}\n"+
				"protocol: {name: test/flood-%s, params: {synchronizer: %s, rounds: 100000, ring: ascending}}\nfaults:\n  - {at: %s, crash: [3]}\n", graph, sync, settleAfter(settle))
			if graph == "radio" {
				y = strings.Replace(y, ", ring: ascending", "", 1)
			}
			what := sync + " over " + graph
			dir, sum := simtest.RunYAML(t, "crash.yaml", y)
			if sum.Verdict != analysis.Stalled || !strings.Contains(sum.Reason, "stalled at round") || !strings.Contains(sum.Reason, "node(s) 3 crashed") {
				t.Fatalf("%s: verdict %s: %s", what, sum.Verdict, sum.Reason)
			}
			p := syncProp(t, dir)
			if p.Verdict != analysis.Stalled || p.Reason != sum.Reason || len(p.Witnesses) == 0 {
				t.Fatalf("%s: property %+v, summary %s", what, p, sum.Reason)
			}
			// the crashed node's ring neighbours are among the first stuck
			if !strings.Contains(p.Reason, "never started round") || !(strings.Contains(p.Reason, "2") && strings.Contains(p.Reason, "4")) {
				t.Fatalf("%s: %s", what, p.Reason)
			}
			t.Logf("%s: %s", what, p.Reason)
		}
	}
}

func settleAfter(settle string) string {
	if settle == "1s" {
		return "1.05s"
	}
	return "4.05s" // settled at 3s, hellos for rounds.HelloWait
}

// TestABDBreaksWhenDelaysExceedD: abd with d below the radio delay (2
// ms): messages arrive after their round, the check is invalid and its
// witnesses say who was late, for which round. Twenty rounds, so that the
// receivers still run when the late messages arrive (a link sends one
// unicast at a time: the second waits for the first's acknowledgement).
func TestABDBreaksWhenDelaysExceedD(t *testing.T) {
	// ideal: the radio delay of 2 ms that d undercuts is the ideal
	// medium's; the DCF medium's hop time (1.95 ms at 1 Mbps, more with
	// backoff) varies.
	y := "name: abd\nseed: 1\nduration: 10s\nnodes: {count: 5, values: id, placement: ring}\nradio: {mac: ideal, range: 250}\nmobility: {model: static}\n" +
		"protocol: {name: test/flood-radio, params: {synchronizer: abd, d: 500us, rounds: 20}}\n"
	dir, sum := simtest.RunYAML(t, "abd.yaml", y)
	p := syncProp(t, dir)
	if p.Verdict != analysis.Invalid || p.Violations == 0 || len(p.Witnesses) == 0 || !strings.Contains(p.Witnesses[0].Text, "late: the round 1 message from") {
		t.Fatalf("property %+v", p)
	}
	t.Logf("%s; %s", p.Reason, p.Witnesses[0].Text)
	_ = sum
	// with d above the delay the same run is valid
	dir, sum = simtest.RunYAML(t, "abd.yaml", strings.Replace(y, "d: 500us", "d: 10ms", 1))
	if p := syncProp(t, dir); p.Verdict != analysis.Valid || sum.Verdict != "valid" {
		t.Fatalf("d = 10ms: property %+v, summary %s", p, sum.Verdict)
	}
}

// TestNoneRunsEachEnvelopeAsARound: without a synchronizer the algorithm
// runs one round per envelope that arrives: no synchronizer messages at
// all, every algorithm message on the wire, and a node's rounds are its
// wake round plus one per envelope received before it halted.
func TestNoneRunsEachEnvelopeAsARound(t *testing.T) {
	r := simulate(t, "radio", rounds.None, 8, "grid", "", "")
	by := r.sum.Messages.ByKind
	for k := range by {
		if rounds.IsSync(k) && k != rounds.KindHello {
			t.Fatalf("%s: synchronizer messages %v", r.what, by)
		}
	}
	if r.c.Messages == 0 || r.c.Messages != by["max"] || r.c.SyncMessages != 0 || *r.c.Sync.ExactSync != 0 {
		t.Fatalf("%s: %+v, by kind %v", r.what, r.c, by)
	}
	// A node runs its wake round and one round per envelope it received:
	// never more local rounds than 1 + the envelopes on the wire.
	if r.c.Pulses < 2 || uint64(r.c.Pulses) > 1+r.c.Carriers {
		t.Fatalf("%s: %d local rounds, %d envelopes", r.what, r.c.Pulses, r.c.Carriers)
	}
}

// TestAloneHalts: a single member, with no neighbour to wait for, runs its
// rounds at once and halts, over every synchronizer.
func TestAloneHalts(t *testing.T) {
	for _, sync := range rounds.Synchronizers {
		y := fmt.Sprintf("name: alone\nseed: 1\nduration: 10s\nnodes: {count: 1, values: id}\nmobility: {model: static}\n"+
			"protocol: {name: test/flood-radio, params: {synchronizer: %s, rounds: 50, d: 1ms}}\n", sync)
		dir, sum := simtest.RunYAML(t, "alone.yaml", y)
		p := syncProp(t, dir)
		want := analysis.Valid
		if sync == rounds.None { // not judged: no synchronizer
			want = analysis.Unknown
		}
		if p.Verdict != want || (want == analysis.Valid && sum.Complexity.Pulses != 50) {
			t.Fatalf("%s: %+v, %d pulses", sync, p, sum.Complexity.Pulses)
		}
	}
}
