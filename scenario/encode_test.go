package scenario

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"manetlab/internal/units"
	"manetlab/protocol"
	"manetlab/workload"
)

// denseScenario is a scenario of n nodes with nf faults, every node
// listed (values, positions, waypoints) and a command per fault: the
// lists YAML writes by hand.
func denseScenario(t testing.TB, n, nf int) *Scenario {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	fmt.Fprintf(&b, "name: dense\nduration: 100s\nmobility: {model: waypoints, area: [1000, 1000]}\nnodes:\n  list:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - {id: %d, pos: [%g, %g]", i+1, rng.Float64()*1000, rng.Float64()*1000)
		if i%3 == 0 {
			fmt.Fprintf(&b, ", value: %g", rng.NormFloat64()*1e6)
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, ", waypoints: [{at: %dms, pos: [%g, %g, 1.5]}, {at: 50s, pos: [0, 1e-7]}]", rng.IntN(40000)+1, rng.Float64()*1000, rng.Float64()*1000)
		}
		b.WriteString("}\n")
	}
	b.WriteString("faults:\n")
	for i := range nf {
		at := time.Duration(rng.Int64N(int64(99 * time.Second)))
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "  - {at: %v, crash: [%d]}\n", at, rng.IntN(n)+1)
		case 1:
			fmt.Fprintf(&b, "  - {at: %v, recover: [%d, %d]}\n", at, rng.IntN(n)+1, rng.IntN(n)+1)
		default:
			fmt.Fprintf(&b, "  - {at: %v, crash: [%d], recover: []}\n", at, rng.IntN(n)+1)
		}
	}
	b.WriteString("workload:\n  commands:\n")
	for i := range nf / 10 {
		fmt.Fprintf(&b, "    - {at: %dus, node: %d, command: set-value, value: %g}\n", i+1, rng.IntN(n)+1, rng.Float64()*100)
	}
	s, err := Parse([]byte(b.String()), "dense.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestYAMLDense writes a scenario of 20,000 faults, 500 listed nodes and
// 2,000 commands, reads it back equal, and bounds what writing it costs:
// the YAML library's emitter allocated about 36 KB a fault (720 MB here)
// and its block style took 55 bytes for a fault such as {at: 12.345678912s,
// crash: [3]}.
func TestYAMLDense(t *testing.T) {
	s := denseScenario(t, 500, 20000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := s.YAML()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*uint64(len(out)) {
		t.Errorf("YAML allocated %d bytes for %d bytes of output, want at most 16 times", alloc, len(out))
	}
	_, faults, _ := strings.Cut(string(out), "\nfaults:\n")
	faults, _, _ = strings.Cut(faults, "\nworkload:")
	if perFault := len(faults) / len(s.Faults); perFault > 40 {
		t.Errorf("%d bytes for %d faults: %d a fault, want at most 40", len(faults), len(s.Faults), perFault)
	}
	back, err := Parse(out, "other.yaml", nil)
	if err != nil {
		t.Fatalf("Parse(YAML()): %v", err)
	}
	if len(back.Faults) != 20000 || len(back.Nodes.List) != 500 || len(back.Workload.Commands) != 2000 {
		t.Fatalf("read back %d faults, %d nodes, %d commands", len(back.Faults), len(back.Nodes.List), len(back.Workload.Commands))
	}
	if !reflect.DeepEqual(s, back) {
		for i := range s.Faults {
			if !reflect.DeepEqual(s.Faults[i], back.Faults[i]) {
				t.Fatalf("fault %d: %+v read back as %+v", i, s.Faults[i], back.Faults[i])
			}
		}
		t.Fatal("the scenario read back differs")
	}
	again, err := back.YAML()
	if err != nil || string(again) != string(out) {
		t.Errorf("written again, it differs (%v)", err)
	}
}

// TestYAMLEntries pins the form of the hand-written entries and that
// every one reads back, odd values included.
func TestYAMLEntries(t *testing.T) {
	v, neg := 0.1, -2.5e-300
	s := Default()
	s.Nodes.List = []Node{{ID: 4, Value: &v, Pos: []float64{1e21, -0.5}}, {ID: 9, Value: &neg,
		Waypoints: []WaypointSpec{{At: units.Duration(1500 * time.Microsecond), Pos: []float64{3, 4}}, {At: units.Duration(time.Hour)}}}}
	s.Nodes.Count = 2
	s.Faults = []Fault{{At: units.Duration(20 * time.Second), Crash: []protocol.NodeID{4, 9}}, {At: units.Duration(time.Nanosecond), Recover: []protocol.NodeID{9}}, {At: 0}}
	s.Workload.Commands = []workload.Command{{At: units.Duration(2 * time.Second), Node: 4, Command: "set-value", Value: 1e-7}, {Node: 9, Command: "elect"}}
	out, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  list:\n  - {id: 4, value: 0.1, pos: [1e+21, -0.5]}\n  - {id: 9, value: -2.5e-300, waypoints: [{at: 1.5ms, pos: [3, 4]}, {at: 1h0m0s}]}\n",
		"faults:\n- {at: 20s, crash: [4, 9]}\n- {at: 1ns, recover: [9]}\n- {at: 0s}\n",
		"  commands:\n  - {at: 2s, node: 4, command: set-value, value: 1e-07}\n  - {at: 0s, node: 9, command: elect, value: 0}\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("YAML lacks\n%s\nin\n%s", want, out)
		}
	}
	var b []byte
	for _, c := range []string{"elect", "null", "yes", "a b", "x: y", "new\nline", "[1]", "ü"} {
		b, err = appendString(b[:0], c)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ C string }
		if err := yaml.Unmarshal([]byte("{c: "+string(b)+"}"), &got); err != nil || got.C != c {
			t.Errorf("string %q written %s, read back %q (%v)", c, b, got.C, err)
		}
	}
}

// TestYAMLTooLarge: a resolved scenario beyond MaxFileBytes, which no
// reader would take back, is refused by name.
func TestYAMLTooLarge(t *testing.T) {
	s := Default()
	ids := make([]protocol.NodeID, MaxFileBytes/8)
	for i := range ids {
		ids[i] = 1000000
	}
	s.Faults = []Fault{{At: units.Duration(time.Second), Crash: ids}}
	_, err := s.YAML()
	if err == nil || !strings.Contains(err.Error(), "MaxFileBytes") || !strings.Contains(err.Error(), "resolved") {
		t.Fatalf("YAML of %d crashes = %v, want the limit named", len(ids), err)
	}
}
