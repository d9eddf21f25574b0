package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

func mustParse(t *testing.T, src string, sets ...string) *Scenario {
	t.Helper()
	s, err := Parse([]byte(src), "test.yaml", sets)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// parseErr parses src and returns the error, failing if there is none.
func parseErr(t *testing.T, src string, sets ...string) string {
	t.Helper()
	_, err := Parse([]byte(src), "configs/x.yaml", sets)
	if err == nil {
		t.Fatalf("Parse(%q, %q) succeeded, want an error", src, sets)
	}
	return err.Error()
}

func wantContains(t *testing.T, got string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Errorf("error %q does not contain %q", got, p)
		}
	}
}

func TestDefaults(t *testing.T) {
	for _, s := range []*Scenario{Default(), mustParse(t, "")} {
		if s.Seed != 1 || s.Duration.D() != 60*time.Second || s.Nodes.Count != 20 ||
			s.Nodes.Values != "random" || s.Nodes.Placement != "uniform" ||
			s.Protocol.Name != "baseline/floodmax" {
			t.Errorf("scenario defaults wrong: %+v", s)
		}
		if s.Radio.Propagation == "" || s.Radio.Range <= 0 || s.Mobility.Model == "" || s.Mobility.Area[0] <= 0 {
			t.Errorf("radio or mobility defaults not applied: %+v %+v", s.Radio, s.Mobility)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("defaults do not validate: %v", err)
		}
	}
	if got := mustParse(t, "").Name; got != "test" {
		t.Errorf("Name = %q, want the file's base name %q", got, "test")
	}
	if got := Default().Name; got != "default" {
		t.Errorf("Default().Name = %q", got)
	}
}

func TestZeroIsNotDefault(t *testing.T) {
	// An explicit zero duration or count is an error, not the default.
	wantContains(t, parseErr(t, "duration: 0"), "configs/x.yaml: duration:", "above zero")
	wantContains(t, parseErr(t, "nodes: {count: 0}"), "nodes.count: 0", "allowed: 1 to 1000000")
}

func TestSetOverrides(t *testing.T) {
	src := "radio: {range: 100}\nnodes: {count: 5}\nprotocol: {name: other}\n"
	s := mustParse(t, src,
		"radio.range=250",
		"radio.loss.p=0.1",
		"nodes.count=200",
		"protocol.name=baseline/floodmax",
		"protocol.params.beacon=2s",
		"mobility.area=[500, 700]",
		"seed=42",
	)
	if s.Radio.Range != 250 {
		t.Errorf("radio.range = %v, want 250", s.Radio.Range)
	}
	if s.Radio.Loss.P != 0.1 || s.Radio.Loss.Model != "bernoulli" {
		t.Errorf("radio.loss = %+v, want p 0.1 (bernoulli)", s.Radio.Loss)
	}
	if s.Nodes.Count != 200 || len(s.Members()) != 200 {
		t.Errorf("nodes.count = %d, members %d, want 200", s.Nodes.Count, len(s.Members()))
	}
	if s.Protocol.Name != "baseline/floodmax" {
		t.Errorf("protocol.name = %q", s.Protocol.Name)
	}
	if got := s.Protocol.Params.Reader().Duration("beacon", 0); got != 2*time.Second {
		t.Errorf("protocol.params.beacon = %v (%#v), want 2s", got, s.Protocol.Params)
	}
	if s.Mobility.Area != [2]float64{500, 700} || s.Seed != 42 {
		t.Errorf("area %v seed %d", s.Mobility.Area, s.Seed)
	}
}

func TestSetListEntry(t *testing.T) {
	src := "nodes:\n  list:\n    - {id: 4, pos: [0, 0]}\n    - {id: 9}\n"
	s := mustParse(t, src, "nodes.list.1.pos=[3, 4, 5]", "nodes.list.0.value=7.5")
	if got := s.Nodes.List[1].Pos; !reflect.DeepEqual(got, []float64{3, 4, 5}) {
		t.Errorf("nodes.list[1].pos = %v", got)
	}
	if v := s.Nodes.List[0].Value; v == nil || *v != 7.5 {
		t.Errorf("nodes.list[0].value = %v", v)
	}
	wantContains(t, parseErr(t, src, "nodes.list.2.id=3"), "--set nodes.list.2.id=3: nodes.list: no entry 2 (the list has 2 entries)")
	wantContains(t, parseErr(t, src, "nodes.count=200"), "--set nodes.count=200: nodes.count: 200 but nodes.list has 2 entries")
	wantContains(t, parseErr(t, "nodes:\n  count: 3\n  list: [{}]\n"), "configs/x.yaml:2: nodes.count: 3 but nodes.list has 1 entry (give")
	if s := mustParse(t, src, "nodes.count=2"); s.Nodes.Count != 2 {
		t.Errorf("count = %d", s.Nodes.Count)
	}
	wantContains(t, parseErr(t, "", "nodes.list.0.id=3"), "--set nodes.list.0.id=3: nodes.list: no entry 0 (the list is empty)")
	wantContains(t, parseErr(t, "nodes: {list: ~}", "nodes.list.0.id=3"), "--set nodes.list.0.id=3: nodes.list: no entry 0 (the list is empty)")
}

func TestSetErrors(t *testing.T) {
	cases := []struct {
		set  string
		want []string
	}{
		{"radio.rnage=250", []string{"--set radio.rnage=250: radio.rnage: unknown field (allowed: propagation, range,"}},
		{"radio.loss.q=1", []string{"radio.loss.q: unknown field", "good_to_bad"}},
		{"bogus=1", []string{"--set bogus=1: bogus: unknown field (allowed: name, seed, duration, nodes,"}},
		{"radio.range=far", []string{"--set radio.range=far: radio.range: \"far\" is not a number"}},
		{"nodes.count=many", []string{"nodes.count: \"many\" is not an integer"}},
		{"seed=-3", []string{"seed: \"-3\" is not an integer from 0 to"}},
		{"duration=soon", []string{"--set duration=soon: duration:", "not a duration"}},
		{"mobility.area=[1,2,3]", []string{"mobility.area: a list is not a list of 2 numbers"}},
		{"radio.range.x=1", []string{"--set radio.range.x=1: radio.range: is a number, it has no field \"x\""}},
		{"radio.range", []string{"want path=value"}},
		{"trace.hello=maybe", []string{"trace.hello: \"maybe\" is not true or false"}},
		{"trace.layout=sideways", []string{"trace.layout: \"sideways\" is unknown (allowed: auto, per-node, combined)"}},
		{"trace.level=some", []string{"trace.level: \"some\" is unknown (allowed: full, summary)"}},
		{"trace.compress=gzip", []string{"trace.compress: \"gzip\" is unknown (allowed: none, zstd)"}},
	}
	for _, c := range cases {
		wantContains(t, parseErr(t, "", c.set), c.want...)
	}
}

func TestUnknownFieldInFile(t *testing.T) {
	src := "seed: 3\nnodes:\n  count: 4\n  cuont: 5\n"
	wantContains(t, parseErr(t, src), "configs/x.yaml:4: nodes.cuont: unknown field (allowed: count, values, placement, list)")

	src = "faults:\n  - at: 1s\n    crash: [1]\n  - at: 2s\n    crahs: [1]\n"
	wantContains(t, parseErr(t, src), "configs/x.yaml:5: faults[1].crahs: unknown field (allowed: at, crash, recover)")

	// protocol.params is free-form: the protocol checks its own keys.
	s := mustParse(t, "protocol:\n  params: {anything: 1, nested: {x: y}}\n")
	if s.Protocol.Params["anything"] != 1 {
		t.Errorf("params = %#v", s.Protocol.Params)
	}
	wantContains(t, parseErr(t, "seed: 1\nseed: 2\n"), "configs/x.yaml:2: seed: given twice (first on line 1)")
}

func TestTypeErrorsInFile(t *testing.T) {
	cases := []struct{ src, want string }{
		{"radio:\n  range: far\n", `configs/x.yaml:2: radio.range: "far" is not a number`},
		{"nodes:\n  list:\n    - pos: [1, x]\n", `configs/x.yaml:3: nodes.list[0].pos[1]: "x" is not a number`},
		{"nodes: 5\n", `configs/x.yaml:1: nodes: "5" is not a mapping (allowed keys: count, values, placement, list)`},
		{"faults: {at: 1}\n", `configs/x.yaml:1: faults: a mapping is not a list of entries`},
		{"duration: [1]\n", `configs/x.yaml:1: duration: want a duration`},
		{"protocol:\n  params: [1, 2]\n", `configs/x.yaml:2: protocol.params: a list is not a mapping`},
	}
	for _, c := range cases {
		wantContains(t, parseErr(t, c.src), c.want)
	}
}

func TestBadValues(t *testing.T) {
	cases := []struct{ src, want string }{
		{"radio: {propagation: foo}", `configs/x.yaml: radio.propagation: "foo" is unknown (allowed: `},
		{"nodes: {values: best}", `nodes.values: "best" is unknown (allowed: random, id)`},
		{"nodes: {placement: circle}", `nodes.placement: "circle" is unknown (allowed: uniform, grid, ring)`},
		{"nodes: {count: 2000000}", `nodes.count: 2000000 is out of range`},
		{"nodes: {list: [{id: 2}, {id: 2}]}", `nodes.list[1].id: 2 is given twice (also nodes.list[0])`},
		{"nodes: {list: [{pos: [1]}]}", `nodes.list[0].pos: 1 numbers (want [x, y] or [x, y, z]`},
		{"nodes: {list: [{waypoints: [{at: 1s, pos: [1, 2]}]}]}", `nodes.list[0].waypoints: given but mobility.model is "static"`},
		{"nodes: {count: 3}\nfaults: [{at: 1s, crash: [4]}]", `faults[0].crash[0]: 4 is not a node of the scenario`},
		{"faults: [{at: -2m, crash: [1]}]", `faults[0].at: -2m0s is outside the run (allowed: 0 to 1m0s)`},
		{"faults: [{at: 1s}]", `faults[0]: neither crash nor recover`},
		{"workload: [{at: 1s, node: 1, command: jump}]", `workload.commands[0].command: "jump" is unknown (allowed: elect, request, release, set-value)`},
		{"workload: [{at: 1s, node: 21, command: elect}]", `workload.commands[0].node: 21 is not a node`},
		{"workload: [{at: -1s, node: 1, command: elect}]", `workload.commands[0].at: -1s is outside the run`},
		{"protocol: {name: ''}", `protocol.name: empty`},
		{"mobility: {model: ns2}", `mobility.file`},
		{"mobility: {model: teleport}", `mobility.model`},
	}
	for _, c := range cases {
		wantContains(t, parseErr(t, c.src), "configs/x.yaml: ", c.want)
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	srcs := []string{
		"",
		`name: rt
seed: 99
duration: 90s
nodes:
  values: id
  list:
    - {id: 7, pos: [1, 2], value: 3.25}
    - {pos: [4, 5, 6], waypoints: [{at: 1s, pos: [10, 10]}, {at: 5s, pos: [20, 0]}]}
mobility: {model: waypoints, area: [300, 400]}
radio: {propagation: log-distance, shadowing: 2, loss: {model: gilbert-elliott, loss_bad: 0.5}}
protocol: {name: x/y, params: {beacon: 2s, n: 3, f: 0.5, ok: true}}
faults: [{at: 10s, crash: [7], recover: []}]
workload: [{at: 3s, node: 2, command: set-value, value: 1.5}]
trace: {hello: true}
`,
	}
	for _, src := range srcs {
		s := mustParse(t, src)
		out, err := s.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out, "other.yaml", nil)
		if err != nil {
			t.Fatalf("Parse(YAML()): %v\n%s", err, out)
		}
		if !reflect.DeepEqual(s, back) {
			t.Errorf("round trip differs:\n%+v\n%+v\n%s", s, back, out)
		}
	}
}

func TestLoadNamesFileAndResolvesNS2(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "scen")
	if err := os.MkdirAll(filepath.Join(sub, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	ns2 := "$node_(0) set X_ 1.0\n$node_(0) set Y_ 2.0\n$node_(1) set X_ 3.0\n$node_(1) set Y_ 4.0\n" +
		"$ns_ at 1.0 \"$node_(1) setdest 10.0 4.0 1.0\"\n"
	if err := os.WriteFile(filepath.Join(sub, "traces", "t.ns2"), []byte(ns2), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sub, "x.yaml")
	src := "nodes: {count: 2}\nmobility: {model: ns2, file: traces/t.ns2}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Load from another working directory: the trace must be found next
	// to the scenario, not in the working directory.
	s, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(sub, "traces", "t.ns2"); s.Mobility.File != want {
		t.Errorf("mobility.file = %q, want %q", s.Mobility.File, want)
	}
	if s.Name != "x" || s.Path != path {
		t.Errorf("name %q path %q", s.Name, s.Path)
	}
	m, err := s.MobilityModel()
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Position(1, 0); p.X != 3 || p.Y != 4 {
		t.Errorf("node 1 starts at %v, want (3,4) from the trace", p)
	}

	// More nodes than the trace moves is an error naming the file.
	_, err = Load(path, []string{"nodes.count=3"})
	if err == nil {
		t.Fatal("3 nodes over a 2-node trace accepted")
	}
	wantContains(t, err.Error(), path+": mobility.file:", "2 nodes", "has 3")

	// A missing trace names the field, and the --set that named the file.
	_, err = Load(path, []string{"mobility.file=nope.ns2"})
	if err == nil {
		t.Fatal("missing trace accepted")
	}
	wantContains(t, err.Error(), "--set mobility.file=nope.ns2: mobility.file:")

	// A syntax error names the file.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("nodes: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad, nil); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("syntax error = %v, want it to name %s", err, bad)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), nil); err == nil {
		t.Error("missing file accepted")
	}
}

func TestMemberIDsSorted(t *testing.T) {
	s := mustParse(t, "nodes: {values: id, list: [{id: 9}, {id: 3}, {id: 5, value: 1}]}")
	if got := s.MemberIDs(); !reflect.DeepEqual(got, []protocol.NodeID{3, 5, 9}) {
		t.Errorf("MemberIDs = %v", got)
	}
	want := []Member{{9, 9, 0}, {3, 3, 1}, {5, 1, 2}}
	if got := s.Members(); !reflect.DeepEqual(got, want) {
		t.Errorf("Members = %v, want %v", got, want)
	}
}
