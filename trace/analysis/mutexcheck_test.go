package analysis

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// Protocols registered only for these tests: a mutual exclusion protocol
// with a row of the seed's table, and an election whose goal is the
// highest ID.
const (
	mutexProto   = "test/mutex"
	highestProto = "test/highest-id"
)

func init() {
	none := func(protocol.Config) (protocol.Process, error) { return nil, nil }
	protocol.Register(protocol.Spec{Name: mutexProto, Goal: protocol.GoalMutex, New: none,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release},
		Mutex: &protocol.MutexCost{Messages: "3", Delay: "2", Problems: "coordinator crash",
			PerEntry: func(n int) (float64, float64) { return 3, float64(n) }}})
	protocol.Register(protocol.Spec{Name: highestProto, Goal: protocol.GoalHighestID, New: none})
}

// mutexScenario is lineScenario's line of n nodes with values 10n, ...,
// 20, 10 (node 1 has the best value, node n the highest ID), running
// proto with protocol.params.election = election when not empty.
func mutexScenario(t *testing.T, n int, duration time.Duration, proto, election string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "name: t\nseed: 1\nduration: %v\nnodes:\n  list:\n", duration)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "    - {id: %d, pos: [%d, 0], value: %d}\n", i, 100*(i-1), 10*(n+1-i))
	}
	b.WriteString("radio:\n  range: 150\nmobility:\n  model: static\n  area: [100000, 1000]\n")
	fmt.Fprintf(&b, "protocol:\n  name: %s\n", proto)
	if election != "" {
		fmt.Fprintf(&b, "  params:\n    election: %s\n", election)
	}
	sc, err := scenario.Parse([]byte(b.String()), "test.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	y, err := sc.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return string(y)
}

func TestCheckMutexGoalWithoutLeaders(t *testing.T) {
	dir := t.TempDir()
	nodes, runEvs := centralizedRun()
	synthRunAs(t, dir, mutexProto, mutexScenario(t, 3, 10*time.Second, mutexProto, ""), 10*time.Second, runEvs, nodes)
	rep, err := Check(dir, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{PropEpochLeader, PropStableLeader} {
		if p := property(t, rep, name); p.Verdict != Valid || p.Checked != 0 || !strings.Contains(p.Reason, "not applicable: no leader notes") {
			t.Errorf("%s on a mutex run without leader notes: %+v", name, p)
		}
	}
	if p := property(t, rep, PropMutex); p.Verdict != Valid {
		t.Errorf("mutual exclusion: %+v", p)
	}
	// Node 3's request of 3.5 and node 2's of 9.5 are still waiting.
	g := property(t, rep, PropGranted)
	if g.Verdict != Unknown || g.Checked != 6 || !strings.Contains(g.Reason, "2 of 6 requests still waiting") ||
		!strings.Contains(g.Reason, "node 3's of 3.500s, waiting 6.500s") {
		t.Errorf("requests-granted: %+v", g)
	}
	if len(g.Witnesses) != 1 || g.Witnesses[0].Events[0].Src != trace.NodeFile(dir, 3)+":11" {
		t.Errorf("requests-granted witness: %+v", g.Witnesses)
	}
	if rep.Invalid() {
		t.Error("an unknown liveness verdict made the report invalid")
	}

	m, err := ComputeMetrics(dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	th := m.Mutex.Theory
	if th == nil || th.N != 3 || th.Messages != "3" || th.Delay != "2" || th.PerEntryLo == nil || *th.PerEntryLo != 3 || th.PerEntryHi == nil || *th.PerEntryHi != 3 {
		t.Errorf("theory %+v", th)
	}
}

func TestCheckRequestsGranted(t *testing.T) {
	scen := lineScenario(t, 2, 10*time.Second)
	// Every request granted, one abandoned by a crash: valid, whether the
	// node's trace notes its crash or only the run file does (a killed
	// real node).
	for _, inNodeFile := range []bool{true, false} {
		dir := t.TempDir()
		node2 := []trace.Event{recvFrom(2.1, "token", 1, 1), csNote(3, protocol.NoteCSRequest), csNote(3, protocol.NoteCSEnter), csNote(4, protocol.NoteCSExit),
			csNote(4.5, protocol.NoteCSRequest)}
		if inNodeFile {
			node2 = append(node2, ev(5, trace.EvCrash))
		}
		synthRun(t, dir, scen, 10*time.Second, []trace.Event{{T: sec(5), Node: 2, Ev: trace.EvCrash}}, map[protocol.NodeID][]trace.Event{
			1: {csNote(1, protocol.NoteCSRequest), csNote(1, protocol.NoteCSEnter), csNote(2, protocol.NoteCSExit), sendTo(2, "token", 1, 2)},
			2: node2,
		})
		rep, err := Check(dir, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p := property(t, rep, PropGranted); p.Verdict != Valid || p.Reason != "3 requests: 2 granted, 1 abandoned by their node's crash" {
			t.Errorf("crash in the node file %v: requests-granted: %+v", inNodeFile, p)
		}
	}
	dir := t.TempDir()
	// A run of an election has no such property.
	synthRun(t, dir, scen, 10*time.Second, nil, map[protocol.NodeID][]trace.Event{1: {leaderAt(1, 2, "")}, 2: {leaderAt(1, 2, "")}})
	rep, err := Check(dir, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Properties {
		if p.Name == PropGranted {
			t.Errorf("requests-granted on an election: %+v", p)
		}
	}
}

// TestCheckMutexGoalJudgesItsElection: all nodes follow node 3, the
// highest ID, while node 1 has the best value. Judged by the composed
// highest-ID election it is right; with no election named, by the
// default goal, it is wrong.
func TestCheckMutexGoalJudgesItsElection(t *testing.T) {
	nodes := func() map[protocol.NodeID][]trace.Event {
		return map[protocol.NodeID][]trace.Event{
			1: {ev(0, trace.EvStart), leaderAt(1, 3, "e1")},
			2: {ev(0, trace.EvStart), leaderAt(1, 3, "e1")},
			3: {ev(0, trace.EvStart), leaderAt(1, 3, "e1")},
		}
	}
	for _, c := range []struct {
		election string
		want     string
	}{{highestProto, Valid}, {"", Invalid}} {
		dir := t.TempDir()
		synthRunAs(t, dir, mutexProto, mutexScenario(t, 3, 30*time.Second, mutexProto, c.election), 30*time.Second, nil, nodes())
		rep, err := Check(dir, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p := property(t, rep, PropStableLeader); p.Verdict != c.want {
			t.Errorf("election %q: stable-leader %s, want %s: %+v", c.election, p.Verdict, c.want, p)
		}
		if p := property(t, rep, PropEpochLeader); p.Verdict != Valid || p.Checked != 1 {
			t.Errorf("election %q: one-leader-per-epoch %+v", c.election, p)
		}
		if p := property(t, rep, PropGranted); p.Verdict != Valid || p.Reason != "no requests" {
			t.Errorf("election %q: requests-granted %+v", c.election, p)
		}
	}
}

// TestCheckMutexCrashEndsSection: a section that a crash ends ends at the
// crash instant; a section entered elsewhere after it, with no message
// between (a coordinator reclaiming on a timeout), is no violation; one
// entered before the crash is. The same holds for a section left before
// its node crashed (a token ring whose token died in the crashed node's
// channel, regenerated elsewhere on a timeout).
func TestCheckMutexCrashEndsSection(t *testing.T) {
	scen := lineScenario(t, 2, 10*time.Second)
	for _, c := range []struct {
		exit  float64 // node 1 leaves its section (0: the crash ends it)
		enter float64
		want  string
	}{{0, 3, Valid}, {0, 1.5, Invalid}, {1.5, 3, Valid}, {1.5, 1.8, Invalid}} {
		dir := t.TempDir()
		one := []trace.Event{csNote(0.5, protocol.NoteCSRequest), csNote(1, protocol.NoteCSEnter)}
		if c.exit > 0 {
			one = append(one, csNote(c.exit, protocol.NoteCSExit))
		}
		synthRun(t, dir, scen, 10*time.Second, []trace.Event{{T: sec(2), Node: 1, Ev: trace.EvCrash}}, map[protocol.NodeID][]trace.Event{
			1: append(one, ev(2, trace.EvCrash)),
			2: {csNote(0.5, protocol.NoteCSRequest), csNote(c.enter, protocol.NoteCSEnter), csNote(c.enter+1, protocol.NoteCSExit)},
		})
		rep, err := Check(dir, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p := property(t, rep, PropMutex); p.Verdict != c.want || p.Checked != 1 {
			t.Errorf("node 1 leaving at %gs (0: in the section) and crashed at 2s, node 2 entering at %gs: %+v, want %s", c.exit, c.enter, p, c.want)
		}
	}
}
