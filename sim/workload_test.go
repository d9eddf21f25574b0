package sim

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/mutex/mutextest"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

const genYAML = `
name: gen
duration: 30s
nodes: {count: 4}
radio: {range: 250}
mobility: {model: static, area: [100, 100]}
protocol: {name: test/mutex-central}
workload:
  rate: 1
  hold: 50ms
  nodes: [2, 3, 4]
  commands:
    - {at: 5s, node: 1, command: request}
    - {at: 5.5s, node: 1, command: release}
`

// nodeLog is what one node's trace says of the section.
type nodeLog struct {
	requests []time.Duration // request commands, explicit or generated
	notes    []time.Duration // cs-request notes
	enter    []time.Duration
	exit     []time.Duration
	events   []trace.Event
}

func readNodes(t *testing.T, dir string, ids ...protocol.NodeID) map[protocol.NodeID]*nodeLog {
	t.Helper()
	out := map[protocol.NodeID]*nodeLog{}
	for _, id := range ids {
		evs, probs, err := trace.ReadFile(trace.NodeFile(dir, id))
		if err != nil || len(probs) > 0 {
			t.Fatalf("node %d: %v %v", id, err, probs)
		}
		l := &nodeLog{events: evs}
		for _, e := range evs {
			at := time.Duration(e.T)
			switch {
			case e.Ev == trace.EvCommand && e.Text == string(protocol.Request):
				l.requests = append(l.requests, at)
			case e.Ev == string(protocol.NoteCSRequest):
				l.notes = append(l.notes, at)
			case e.Ev == string(protocol.NoteCSEnter):
				l.enter = append(l.enter, at)
			case e.Ev == string(protocol.NoteCSExit):
				l.exit = append(l.exit, at)
			}
		}
		out[id] = l
	}
	return out
}

// disjoint fails t unless no two sections of the run overlap in time.
func disjoint(t *testing.T, logs map[protocol.NodeID]*nodeLog, end time.Duration) int {
	t.Helper()
	type section struct {
		from, to time.Duration
		id       protocol.NodeID
	}
	var all []section
	for id, l := range logs {
		for i, x := range l.enter {
			to := end
			if i < len(l.exit) {
				to = l.exit[i]
			}
			all = append(all, section{x, to, id})
		}
	}
	slices.SortFunc(all, func(a, b section) int { return int(a.from - b.from) })
	for i := 1; i < len(all); i++ {
		if all[i].from < all[i-1].to {
			t.Errorf("node %d enters at %v while node %d holds the section until %v", all[i].id, all[i].from, all[i-1].id, all[i-1].to)
		}
	}
	return len(all)
}

// TestGeneratorInSim runs the generator end to end: requests only on the
// generator's nodes and after its start, each section held exactly the
// hold, node 1's explicit commands kept (it has no generator to release
// its section), no overlapping sections, the same bytes from the same
// seed.
func TestGeneratorInSim(t *testing.T) {
	s := parse(t, genYAML)
	dir := t.TempDir()
	if _, err := Run(s, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	logs := readNodes(t, dir, 1, 2, 3, 4)
	if got := logs[1].requests; !slices.Equal(got, []time.Duration{5 * time.Second}) {
		t.Errorf("node 1 (no generator): requests at %v, want only the explicit one at 5s", got)
	}
	if len(logs[1].enter) != 1 || !slices.Equal(logs[1].exit, []time.Duration{5500 * time.Millisecond}) {
		t.Errorf("node 1: entered %v, left %v; want one section left at 5.5s by the explicit release", logs[1].enter, logs[1].exit)
	}
	total := 0
	for _, id := range []protocol.NodeID{2, 3, 4} {
		l := logs[id]
		total += len(l.requests)
		if len(l.requests) == 0 || l.requests[0] < time.Second {
			t.Errorf("node %d: requests %v; want some, from 1s", id, l.requests)
		}
		if !slices.Equal(l.requests, l.notes) {
			t.Errorf("node %d: %d request commands, %d cs-request notes", id, len(l.requests), len(l.notes))
		}
		for i, x := range l.exit {
			if x-l.enter[i] != 50*time.Millisecond {
				t.Errorf("node %d section %d: held %v, want 50ms", id, i, x-l.enter[i])
			}
		}
	}
	// Three nodes at 1/s for 29s: 87 requests, Poisson standard
	// deviation 9.3; allowed 5 of them.
	if math.Abs(float64(total)-87) > 5*math.Sqrt(87) {
		t.Errorf("%d requests, want 87 ± 47", total)
	}
	n := disjoint(t, logs, s.Duration.D())
	t.Logf("%d generated requests, %d sections", total, n)

	again := t.TempDir()
	if _, err := Run(parse(t, genYAML), Options{Out: again}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		x, _ := os.ReadFile(f)
		y, _ := os.ReadFile(filepath.Join(again, filepath.Base(f)))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs of one seed", filepath.Base(f))
		}
	}
	other := t.TempDir()
	if _, err := Run(parse(t, genYAML, "seed=2"), Options{Out: other}); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(readNodes(t, other, 2)[2].requests, logs[2].requests) {
		t.Errorf("seeds 1 and 2 give node 2 the same requests")
	}
}

// TestSaturateInSim: every node always wants the section: a new request
// at the instant of each exit, the lock busy back to back.
func TestSaturateInSim(t *testing.T) {
	s := parse(t, genYAML, "workload.rate=saturate", "workload.nodes=[]", "workload.commands=[]", "workload.hold=20ms", "duration=10s")
	dir := t.TempDir()
	if _, err := Run(s, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	logs := readNodes(t, dir, 1, 2, 3, 4)
	for id, l := range logs {
		if len(l.exit) < 50 || l.requests[0] != time.Second {
			t.Fatalf("node %d: %d sections, first request %v; want many, from 1s", id, len(l.exit), l.requests[0])
		}
		for i, x := range l.exit {
			if i+1 >= len(l.requests) || l.requests[i+1] != x {
				t.Errorf("node %d: exit %d at %v, no request at that instant", id, i, x)
				break
			}
		}
		if len(l.requests) != len(l.exit)+1 && len(l.requests) != len(l.exit) {
			t.Errorf("node %d: %d requests, %d exits", id, len(l.requests), len(l.exit))
		}
	}
	t.Logf("%d sections in 9s", disjoint(t, logs, s.Duration.D()))
}

// TestGeneratorCrash: a crashed node's generator dies with it; the
// recovered node gets a fresh one, with a fresh stream.
func TestGeneratorCrash(t *testing.T) {
	y := genYAML + "faults: [{at: 10s, crash: [3]}, {at: 15s, recover: [3]}]\n"
	s := parse(t, y, "workload.rate=4", "workload.commands=[]")
	dir := t.TempDir()
	if _, err := Run(s, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	if _, err := Run(parse(t, genYAML, "workload.rate=4", "workload.commands=[]"), Options{Out: plain}); err != nil {
		t.Fatal(err)
	}
	got, want := readNodes(t, dir, 3)[3].requests, readNodes(t, plain, 3)[3].requests
	var before, during, after []time.Duration
	for _, x := range got {
		switch {
		case x < 10*time.Second:
			before = append(before, x)
		case x <= 15*time.Second:
			during = append(during, x)
		default:
			after = append(after, x)
		}
	}
	if len(before) == 0 || len(during) != 0 || len(after) == 0 {
		t.Fatalf("requests before the crash %d, while down %v, after recovery %d", len(before), during, len(after))
	}
	if !slices.Equal(before, want[:len(before)]) {
		t.Errorf("before the crash the requests differ from the run without faults")
	}
	if slices.Contains(want, after[0]) {
		t.Errorf("the recovered node's first request %v repeats the first life's schedule", after[0])
	}
}

// TestRequestNeedsMutex: a generator or a request for a protocol that
// does not implement request fails before anything runs.
func TestRequestNeedsMutex(t *testing.T) {
	_, err := scenario.Parse([]byte(genYAML), "test.yaml", []string{"protocol.name=baseline/floodmax"})
	if err == nil || !strings.Contains(err.Error(), "test.yaml: workload: protocol baseline/floodmax does not implement request") ||
		!strings.Contains(err.Error(), mutextest.Name) {
		t.Errorf("load: %v", err)
	}
	// A scenario built in code is checked by the driver.
	s := parse(t, genYAML)
	s.Protocol.Name = "baseline/floodmax"
	_, err = Run(s, Options{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "does not implement request") {
		t.Errorf("run: %v", err)
	}
}
