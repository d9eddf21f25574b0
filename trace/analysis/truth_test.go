package analysis

import (
	"fmt"
	"strings"
	"testing"
	"time"

	_ "manetlab/adhoc"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// pairScenario is two static nodes d metres apart (values = IDs, node 2
// best) under log-distance propagation with a nominal range of 100 m,
// the given shadowing and a hello timeout of the given hello periods.
func pairScenario(t *testing.T, d, shadowing float64, hellos int) string {
	t.Helper()
	y := fmt.Sprintf("name: pair\nseed: 1\nduration: 60s\nnodes:\n  values: id\n  list:\n    - {id: 1, pos: [0, 0]}\n    - {id: 2, pos: [%g, 0]}\n"+
		"radio:\n  propagation: log-distance\n  range: 100\n  shadowing: %g\n  hello: {period: 1s, timeout: %ds}\n"+
		"mobility:\n  model: static\n  area: [1000, 1000]\n", d, shadowing, hellos)
	sc, err := scenario.Parse([]byte(y), "pair.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sc.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTruthShadowingBeyondRange: with 8 dB of shadowing, frames cross
// 130 m although the nominal range is 100 m (a third of them). Over ten
// hellos neighbour discovery almost surely keeps that link: the ground
// truth has one component, so a protocol that merges the two nodes is
// valid and one that keeps two leaders is invalid. Over three hellos the
// link is uncertain: both are valid. Without shadowing nothing crosses
// 130 m: two components, each leading itself.
func TestTruthShadowingBeyondRange(t *testing.T) {
	merged := func() map[protocol.NodeID][]trace.Event {
		return map[protocol.NodeID][]trace.Event{
			1: {ev(0, trace.EvStart), leaderAt(1, 2, "")},
			2: {ev(0, trace.EvStart), leaderAt(1, 2, "")},
		}
	}
	apart := func() map[protocol.NodeID][]trace.Event {
		return map[protocol.NodeID][]trace.Event{
			1: {ev(0, trace.EvStart), leaderAt(1, 1, "")},
			2: {ev(0, trace.EvStart), leaderAt(1, 2, "")},
		}
	}
	cases := []struct {
		name      string
		shadowing float64
		hellos    int
		nodes     map[protocol.NodeID][]trace.Event
		want      string
	}{
		{"up link, merged", 8, 10, merged(), Valid},
		{"up link, apart", 8, 10, apart(), Invalid},
		{"uncertain link, merged", 8, 3, merged(), Valid},
		{"uncertain link, apart", 8, 3, apart(), Valid},
		{"no shadowing, apart", 0, 3, apart(), Valid},
		{"no shadowing, merged", 0, 3, merged(), Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			synthRun(t, dir, pairScenario(t, 130, c.shadowing, c.hellos), 60*time.Second, nil, c.nodes)
			rep, err := Check(dir, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			st := property(t, rep, PropStableLeader)
			if st.Verdict != c.want {
				t.Fatalf("stable-leader %s (%s), want %s; %+v", st.Verdict, st.Reason, c.want, st.Witnesses)
			}
			if st.Judged == nil || *st.Judged < 0.7 {
				t.Errorf("judged share %v, want most of the run", st.Judged)
			}
			m, err := ComputeMetrics(dir, MetricsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if wrong := *m.WrongOrUnknown; (c.want == Valid) != (wrong < 0.05) {
				t.Errorf("wrong_or_unknown %.3f with a %s verdict", wrong, c.want)
			}
		})
	}
}

// TestCheckPerComponent: one component is settled and right while another
// keeps changing (a node crashes and recovers every 5 s far away): the
// settled one is judged, and a wrong leader there is found although the
// network as a whole never stays unchanged for the delay.
func TestCheckPerComponent(t *testing.T) {
	// Nodes 1-3 on a line (one component), 4 and 5 far away.
	y := "name: t\nseed: 1\nduration: 60s\nnodes:\n  values: id\n  list:\n" +
		"    - {id: 1, pos: [0, 0]}\n    - {id: 2, pos: [100, 0]}\n    - {id: 3, pos: [200, 0]}\n" +
		"    - {id: 4, pos: [5000, 0]}\n    - {id: 5, pos: [5100, 0]}\n" +
		"radio:\n  range: 150\nmobility:\n  model: static\n  area: [10000, 1000]\n"
	sc, err := scenario.Parse([]byte(y), "t.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sc.YAML()
	var flaps []trace.Event
	for s := 5.0; s < 60; s += 10 {
		flaps = append(flaps, trace.Event{T: sec(s), Node: 5, Ev: trace.EvCrash}, trace.Event{T: sec(s + 5), Node: 5, Ev: trace.EvRecover})
	}
	nodes := func(lead3 protocol.NodeID) map[protocol.NodeID][]trace.Event {
		return map[protocol.NodeID][]trace.Event{
			1: {ev(0, trace.EvStart), leaderAt(1, lead3, "")},
			2: {ev(0, trace.EvStart), leaderAt(1, lead3, "")},
			3: {ev(0, trace.EvStart), leaderAt(1, lead3, "")},
			4: {ev(0, trace.EvStart), leaderAt(1, 4, "")},
		}
	}
	for _, c := range []struct {
		lead protocol.NodeID
		want string
	}{{3, Valid}, {2, Invalid}} {
		dir := t.TempDir()
		synthRun(t, dir, string(b), 60*time.Second, flaps, nodes(c.lead))
		rep, err := Check(dir, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := property(t, rep, PropStableLeader)
		if st.Verdict != c.want {
			t.Fatalf("component {1,2,3} following %d: %s (%s), want %s", c.lead, st.Verdict, st.Reason, c.want)
		}
		// {1,2,3} is judged from 15 s to 60 s: 451 samples of 3 nodes;
		// {4} and {5} change every 5 s and are never judged.
		if st.Judged == nil || *st.Judged < 0.4 || *st.Judged > 0.6 {
			t.Errorf("judged share %v", st.Judged)
		}
		if c.want == Invalid && (len(st.Witnesses) != 1 || !strings.Contains(st.Witnesses[0].Text, "component {1,2,3} should follow its best node 3")) {
			t.Errorf("witnesses %+v", st.Witnesses)
		}
	}
}

// TestStabilisationFromTheProtocol: the default delay is the protocol's
// Spec.Settle plus the hello timeout; 15 s for a protocol without one.
func TestStabilisationFromTheProtocol(t *testing.T) {
	for _, c := range []struct {
		proto string
		want  time.Duration
	}{
		// lease 6 s + beacon 2 s + start delay 1 s + 2 probes, + 3.5 s.
		{"{name: adhoc/vasudevan}", 14500 * time.Millisecond},
		// The paper's timers: 120 + 20 + 1 + 2, + 3.5 s.
		{"{name: adhoc/vasudevan, params: {variant: optimised, beacon_period: 20s, beacon_loss: 6}}", 146500 * time.Millisecond},
		// A hello timeout of 10 s instead of 3.5 s.
		{"{name: adhoc/vasudevan}\nradio: {hello: {timeout: 10s}}", 21 * time.Second},
		{"{name: ring/lelann}", DefaultStabilisation}, // declares none
		{"{name: no/such-protocol}", DefaultStabilisation},
	} {
		sc, err := scenario.Parse([]byte("nodes: {count: 2}\nprotocol: "+c.proto+"\n"), "s.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := Stabilisation(sc); got != c.want {
			t.Errorf("%s: %v, want %v", c.proto, got, c.want)
		}
	}
}
