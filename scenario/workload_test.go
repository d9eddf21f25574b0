package scenario

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/internal/units"
	"manetlab/protocol"
	"manetlab/workload"
)

// Two test-only protocols: one that implements request, one that does
// not, so that the check against the registry has both to see.
func init() {
	noop := func(protocol.Config) (protocol.Process, error) { return nil, nil }
	protocol.Register(protocol.Spec{Name: "scenariotest/lock", New: noop, Goal: protocol.GoalMutex,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release}})
	protocol.Register(protocol.Spec{Name: "scenariotest/elect", New: noop})
}

func TestWorkloadListForm(t *testing.T) {
	s := mustParse(t, "workload:\n  - {at: 2s, node: 1, command: elect}\n  - {at: 3s, node: 2, command: set-value, value: 4}\n")
	want := []Command{{At: secs(2), Node: 1, Command: "elect"}, {At: secs(3), Node: 2, Command: "set-value", Value: 4}}
	if !reflect.DeepEqual(s.Workload.Commands, want) || s.Workload.Generating() {
		t.Errorf("list form: %+v", s.Workload)
	}
	// Old --set paths into the list still work.
	s = mustParse(t, "workload: [{at: 2s, node: 1, command: elect}]", "workload.0.node=5")
	if s.Workload.Commands[0].Node != 5 {
		t.Errorf("--set workload.0.node=5: %+v", s.Workload.Commands)
	}
	s = mustParse(t, "", "workload=[{at: 1s, node: 3, command: elect}]")
	if len(s.Workload.Commands) != 1 || s.Workload.Commands[0].Node != 3 {
		t.Errorf("--set workload=[...]: %+v", s.Workload)
	}
}

func TestWorkloadMappingForm(t *testing.T) {
	src := `
nodes: {count: 5}
protocol: {name: scenariotest/lock}
workload:
  rate: 0.5
  hold: 200ms
  hold_dist: exponential
  nodes: [1, 2, 3]
  start: 2s
  stop: 50s
  commands:
    - {at: 2s, node: 1, command: request}
`
	s := mustParse(t, src)
	w := s.Workload
	if w.Rate == nil || *w.Rate != (workload.Rate{PerSecond: 0.5}) || w.Hold.D() != 200*time.Millisecond ||
		w.HoldDist != "exponential" || !reflect.DeepEqual(w.Nodes, []protocol.NodeID{1, 2, 3}) ||
		w.Start != secs(2) || w.Stop != secs(50) || len(w.Commands) != 1 {
		t.Errorf("mapping form: %+v", w)
	}
	if !w.Generates(3) || w.Generates(4) {
		t.Errorf("nodes [1 2 3]: generates 3 %v, 4 %v", w.Generates(3), w.Generates(4))
	}
	// --set and the sweep's --vary (which is --set per run).
	for in, want := range map[string]workload.Rate{"2": {PerSecond: 2}, "saturate": {Saturate: true}, "0": {}} {
		s := mustParse(t, src, "workload.rate="+in)
		if *s.Workload.Rate != want {
			t.Errorf("--set workload.rate=%s: %+v", in, *s.Workload.Rate)
		}
	}
	// Defaults: no generator; hold 100ms, fixed, start 1s, stop 0 (the end).
	d := Default().Workload
	if d.Rate != nil || d.Hold.D() != workload.DefaultHold || d.HoldDist != "fixed" || d.Start.D() != time.Second || d.Stop != 0 {
		t.Errorf("defaults: %+v", d)
	}
	// --set on a list form converts it: the commands are kept.
	s = mustParse(t, "protocol: {name: scenariotest/lock}\nworkload: [{at: 2s, node: 1, command: request}]", "workload.rate=1", "workload.hold=50ms")
	if s.Workload.Rate == nil || s.Workload.Rate.PerSecond != 1 || s.Workload.Hold.D() != 50*time.Millisecond || len(s.Workload.Commands) != 1 {
		t.Errorf("--set workload.rate on the list form: %+v", s.Workload)
	}
	// The generator survives the recorded YAML.
	out, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out, "again.yaml", nil)
	if err != nil || !reflect.DeepEqual(back.Workload, s.Workload) {
		t.Errorf("round trip: %v\n%+v\n%+v\n%s", err, back.Workload, s.Workload, out)
	}
}

// TestWorkloadErrors: each bad field is named, with the file.
func TestWorkloadErrors(t *testing.T) {
	lock := "nodes: {count: 3}\nprotocol: {name: scenariotest/lock}\n"
	cases := []struct {
		src  string
		sets []string
		want string
	}{
		{lock + "workload: {rate: -1}", nil, `workload.rate: -1 is negative; want requests per second per node (>= 0) or "saturate"`},
		{lock + "workload: {rate: .nan}", nil, `workload.rate: NaN is not a finite number`},
		{lock + "workload: {rate: .inf}", nil, `workload.rate: +Inf is not a finite number`},
		{lock + "workload: {rate: lots}", nil, `workload.rate: "lots" is not a rate; want requests per second per node (>= 0) or "saturate"`},
		{lock, []string{"workload.rate=-3"}, `workload.rate: -3 is negative`},
		{lock, []string{"workload.rate=often"}, `workload.rate: "often" is not a rate`},
		{lock + "workload: {rate: 1, hold: 0}", nil, `workload.hold: 0s is not above zero`},
		{lock + "workload: {rate: 1, hold: 2m}", nil, `workload.hold: 2m0s is longer than the run (1m0s)`},
		{lock + "workload: {rate: 1, hold_dist: normal}", nil, `workload.hold_dist: "normal" is unknown (allowed: fixed, exponential)`},
		{lock + "workload: {rate: 1, nodes: [1, 4]}", nil, `workload.nodes[1]: 4 is not a node of the scenario`},
		{lock + "workload: {rate: 1, start: 70s}", nil, `workload.start: 1m10s is outside the run`},
		{lock + "workload: {rate: 1, start: 5s, stop: 3s}", nil, `workload.stop: 3s is before start 5s`},
		{lock + "workload: {rate: 1, often: 2}", nil, `workload.often: unknown field (allowed: rate, hold, hold_dist, nodes, start, stop, commands)`},
		{lock + "workload: {commands: [{at: 1s, node: 9, command: request}]}", nil, `workload.commands[0].node: 9 is not a node`},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.src), "configs/x.yaml", c.sets)
		if err == nil {
			t.Errorf("%q %v: accepted, want %q", c.src, c.sets, c.want)
			continue
		}
		// Errors name the file (and line), or the flag that set the bad
		// value.
		where := "configs/x.yaml"
		if c.sets != nil {
			where = "--set " + c.sets[0] + ": "
		}
		wantContains(t, err.Error(), where, c.want)
	}
}

// TestWorkloadNeedsRequest: a workload that asks for the section fails to
// load unless the protocol implements request.
func TestWorkloadNeedsRequest(t *testing.T) {
	elect := "protocol: {name: scenariotest/elect}\n"
	for _, src := range []string{
		elect + "workload: [{at: 1s, node: 1, command: request}]",
		elect + "workload: {commands: [{at: 1s, node: 1, command: release}]}",
		elect + "workload: {rate: saturate}",
	} {
		got := parseErr(t, src)
		wantContains(t, got, "configs/x.yaml: workload: protocol scenariotest/elect does not implement request",
			"mutual exclusion protocols: ", "scenariotest/lock")
		if strings.Contains(got, "scenariotest/elect,") {
			t.Errorf("%q lists the election protocol as mutual exclusion", got)
		}
	}
	mustParse(t, elect+"workload: [{at: 1s, node: 1, command: elect}]")
	mustParse(t, "protocol: {name: scenariotest/lock}\nworkload: {rate: saturate, commands: [{at: 1s, node: 1, command: request}]}")
	// An unregistered protocol is the driver's to report; CheckCommands
	// is what the drivers call.
	s := mustParse(t, "protocol: {name: not/registered}\nworkload: {rate: 1}")
	err := s.CheckCommands(protocol.Spec{Name: "not/registered"})
	if err == nil || !strings.Contains(err.Error(), "workload: protocol not/registered does not implement request (the workload gives it a request generator (workload.rate))") {
		t.Errorf("CheckCommands: %v", err)
	}
}

func secs(n int) units.Duration { return units.Duration(time.Duration(n) * time.Second) }
