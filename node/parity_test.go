package node

import (
	"maps"
	"testing"

	"manetlab/node/netnstest"
	"manetlab/sim"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

const staticYAML = `
name: parity
duration: 4s
nodes: {count: 5}
radio: {range: 250, hello: {period: 500ms}}
mobility: {model: static, area: [150, 150]}
protocol: {name: baseline/floodmax, params: {period: 400ms}}
`

// TestParityWithSim runs the same static scenario in the simulator and
// with real nodes (five in one process) over real multicast and expects
// the same protocol messages, kind by kind, the same final leaders, and a
// valid summary of the real run's directory.
func TestParityWithSim(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	// ideal: real processes see the DCF medium's carrier sense late
	// (docs/node.md, "The DCF medium in real processes"), so undilated
	// they collide where the simulator defers; the exact comparison is the
	// ideal medium's (TestStackParityWithSim compares the DCF medium in
	// virtual time).
	s := parse(t, staticYAML, "radio.mac=ideal")
	simDir, nodeDir := t.TempDir(), t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: simDir}); err != nil {
		t.Fatal(err)
	}
	want, err := report.Summarize(simDir)
	if err != nil {
		t.Fatal(err)
	}
	res := runHost(t, Options{Scenario: s, IDs: ids(5), Out: nodeDir, Run: "parity"})
	if err := WriteRunFile(nodeDir, s, "parity", nil, 0); err != nil {
		t.Fatal(err)
	}
	got, err := report.Summarize(nodeDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("node stats: %s", res.Stats)
	if !judge.ValidOrNothingJudged(got.Verdict, got.Reason) || !judge.ValidOrNothingJudged(want.Verdict, want.Reason) {
		t.Fatalf("verdicts: node %s %+v, sim %s %+v", got.Verdict, got.Components, want.Verdict, want.Components)
	}
	if got.Driver != "node" || len(got.Problems) != 0 {
		t.Errorf("driver %q, problems %v", got.Driver, got.Problems)
	}
	if len(got.Components) != len(want.Components) {
		t.Fatalf("components: node %+v, sim %+v", got.Components, want.Components)
	}
	for i := range got.Components {
		if !maps.Equal(got.Components[i].Leaders, want.Components[i].Leaders) {
			t.Errorf("component %d: node leaders %v, sim %v", i, got.Components[i].Leaders, want.Components[i].Leaders)
		}
	}
	if !maps.Equal(got.Messages.ByKind, want.Messages.ByKind) || got.Messages.Total == 0 {
		t.Errorf("messages: node %v, sim %v", got.Messages.ByKind, want.Messages.ByKind)
	}
	for id, l := range res.Leaders {
		if l != got.Components[0].ExpectedLeader {
			t.Errorf("node %d ended with leader %d, want %d", id, l, got.Components[0].ExpectedLeader)
		}
	}
	if res.Stats.Delivered == 0 || res.Stats.Rejected["own"] == 0 {
		t.Errorf("stats %s: want deliveries and own frames looped back", res.Stats)
	}
}
