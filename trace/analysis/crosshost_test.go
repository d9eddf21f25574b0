package analysis

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// crossRun writes a real run of four nodes on a line (node 4 the best),
// each node's events given, every trace ending at 30 s.
func crossRun(t *testing.T, nodes map[protocol.NodeID][]trace.Event) string {
	t.Helper()
	dir := t.TempDir()
	synthRun(t, dir, lineScenario(t, 4, 30*time.Second), 30*time.Second, nil, nodes)
	return dir
}

// onTime are node id's events when it starts with the run and follows
// leader.
func onTime(leader protocol.NodeID, more ...trace.Event) []trace.Event {
	return append([]trace.Event{ev(0.002, trace.EvStart), leaderAt(1, leader, "")}, more...)
}

func statsAt(s float64, text string) trace.Event {
	e := ev(s, trace.EvStats)
	e.Text = text
	return e
}

// crossOf checks that Check and ComputeMetrics report the same
// cross-host problems and returns them.
func crossOf(t *testing.T, dir string) []CrossHost {
	t.Helper()
	c := mustCheck(t, dir)
	m, err := ComputeMetrics(dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if CrossHostText(c.CrossHost) != CrossHostText(m.CrossHost) {
		t.Errorf("check and metrics disagree:\n%s\n%s", CrossHostText(c.CrossHost), CrossHostText(m.CrossHost))
	}
	return c.CrossHost
}

// A clean run of real nodes has no cross-host problem.
func TestCrossHostNoneOnACleanRun(t *testing.T) {
	dir := crossRun(t, map[protocol.NodeID][]trace.Event{1: onTime(4), 2: onTime(4), 3: onTime(4), 4: onTime(4)})
	if ps := crossOf(t, dir); len(ps) != 0 {
		t.Errorf("problems on a clean run: %+v", ps)
	}
}

// A host's traces missing: the scenario's nodes without a trace are
// named, and the check's text prints the problem after its verdict line,
// before the properties.
func TestCrossHostMissingTraces(t *testing.T) {
	dir := crossRun(t, map[protocol.NodeID][]trace.Event{1: onTime(2), 2: onTime(2)})
	ps := crossOf(t, dir)
	if len(ps) != 1 || ps[0].Kind != CrossNoTrace || len(ps[0].Nodes) != 2 || ps[0].Nodes[0] != 3 || ps[0].Nodes[1] != 4 ||
		!strings.Contains(ps[0].Text, "2 nodes of the scenario left no usable trace in "+dir+": 3, 4") {
		t.Fatalf("problems %+v", ps)
	}
	var b bytes.Buffer
	mustCheck(t, dir).WriteText(&b)
	out := b.String()
	if p, v := strings.Index(out, "problem: 2 nodes"), strings.Index(out, "\n"+PropStableLeader+" "); p < 0 || v < 0 || p > v || !strings.HasPrefix(out, "verdict: unknown (") {
		t.Errorf("the verdict line is not first, or the problem is not printed before the properties:\n%s", out)
	}
}

// A host without the key (issue 21): it accepts the others' signed frames
// while they drop its unsigned ones, a silent one-way partition. Their
// stats count its frames by reason; the analysis names the node, the
// reason, how many frames and how many nodes refused them; nodes 1 and 2
// share a process (--ids 1-2) and so one stats line, counted once. Stats
// without reasons (older traces) still name it.
func TestCrossHostKeylessNode(t *testing.T) {
	dir := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(3, statsAt(29.9, "received=300 delivered=180 sent=120 no-hmac=350 refused-from-4=350 refused-no-hmac-from-4=350")),
		2: onTime(3, statsAt(29.9, "received=300 delivered=180 sent=120 no-hmac=350 refused-from-4=350 refused-no-hmac-from-4=350")),
		3: onTime(3, statsAt(29.9, "received=300 delivered=180 sent=120 no-hmac=61 refused-from-4=61 refused-no-hmac-from-4=61 refused-from-9=3")),
		4: onTime(4, statsAt(29.9, "received=300 delivered=300 sent=120")),
	})
	ps := crossOf(t, dir)
	want := "node 4's frames were refused by 3 nodes (411 no-hmac: unsigned: it runs without the key the others have)"
	if len(ps) != 1 || ps[0].Kind != CrossRefused || len(ps[0].Nodes) != 1 || ps[0].Nodes[0] != 4 || !strings.HasPrefix(ps[0].Text, want) {
		t.Fatalf("problems %+v, want one starting %q", ps, want)
	}

	old := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(4), 2: onTime(4), 3: onTime(4, statsAt(29.9, "received=9 delivered=2 sent=5 hmac=7 refused-from-2=7")), 4: onTime(4),
	})
	if ps := crossOf(t, old); len(ps) != 1 || !strings.HasPrefix(ps[0].Text, "node 2's frames were refused by 1 node (7 refused: ") {
		t.Errorf("older stats: problems %+v", ps)
	}
}

// A frame is a node's only when it proves it (issue 40, item 8): in a
// keyed run the frames failing the HMAC check count by the address they
// came from. From an address no node of the run sends from (a forger),
// they are a note, no node's problem; from the address of nodes of the
// run, a problem of those nodes, both ways when two sides hold different
// keys. Without a key, frames claiming node 4 from another address than
// node 4's are that address's.
func TestCrossHostRefusedByAddress(t *testing.T) {
	const a1, a2 = " addr=10.0.0.1 host=h1", " addr=10.0.0.2 host=h2"
	forged := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(4, statsAt(29.9, "received=90 no-hmac=50 refused-from-3=50 refused-no-hmac-at-10.0.0.9=50"+a1)),
		2: onTime(4, statsAt(29.9, "received=90 no-hmac=40 refused-from-3=40 refused-no-hmac-at-10.0.0.9=40"+a1)),
		3: onTime(4, statsAt(29.9, "received=90"+a2)),
		4: onTime(4, statsAt(29.9, "received=90"+a2)),
	})
	if ps := crossOf(t, forged); len(ps) != 0 {
		t.Errorf("forged frames: problems %+v, want none", ps)
	}
	c := mustCheck(t, forged)
	if len(c.Unauthenticated) != 1 || !strings.HasPrefix(c.Unauthenticated[0], "90 unauthenticated frames from 10.0.0.9, which no node of the run sends from (proving no sender), were refused by 2 nodes (90 no-hmac: ") {
		t.Errorf("forged frames: notes %q", c.Unauthenticated)
	}
	if got := UnauthenticatedText(c.Unauthenticated); !strings.HasPrefix(got, "note: 90 unauthenticated frames from 10.0.0.9") {
		t.Errorf("notes printed %q", got)
	}

	twoKeys := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(4, statsAt(29.9, "received=90 hmac=30 refused-hmac-at-10.0.0.2=30"+a1)),
		2: onTime(4, statsAt(29.9, "received=91 hmac=30 refused-hmac-at-10.0.0.2=30"+a1)),
		3: onTime(4, statsAt(29.9, "received=90 hmac=20 refused-hmac-at-10.0.0.1=20"+a2)),
		4: onTime(4, statsAt(29.9, "received=90"+a2)),
	})
	ps := crossOf(t, twoKeys)
	if len(ps) != 2 || ps[0].Kind != CrossRefusedAddr || len(ps[0].Nodes) != 2 || ps[0].Nodes[0] != 1 || ps[1].Nodes[0] != 3 ||
		!strings.HasPrefix(ps[1].Text, "frames from 10.0.0.2 (host h2), the address of 2 nodes (3, 4), proving no sender, were refused by 2 nodes (60 hmac: a bad signature: it signs with another key than theirs); the nodes there refused those from 10.0.0.1 (host h1) in turn: the two sides hold different keys (refused by 1, 2)") {
		t.Errorf("two keys: problems %+v", ps)
	}
	if c := mustCheck(t, twoKeys); len(c.Unauthenticated) != 0 {
		t.Errorf("two keys: notes %q", c.Unauthenticated)
	}

	keyless := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(4, statsAt(29.9, "received=90 body=12 refused-from-4=12 refused-body-from-4-at-10.0.0.9=7 refused-body-from-4-at-10.0.0.2=5"+a1)),
		2: onTime(4, statsAt(29.9, "received=90"+a1)),
		3: onTime(4, statsAt(29.9, "received=90"+a2)),
		4: onTime(4, statsAt(29.9, "received=90"+a2)),
	})
	ps = crossOf(t, keyless)
	if len(ps) != 1 || ps[0].Kind != CrossRefused || ps[0].Nodes[0] != 4 || !strings.HasPrefix(ps[0].Text, "node 4's frames were refused by 1 node (5 body: ") {
		t.Errorf("keyless: problems %+v, want node 4 named for the 5 frames from its own address", ps)
	}
	if c := mustCheck(t, keyless); len(c.Unauthenticated) != 1 || !strings.HasPrefix(c.Unauthenticated[0], "7 unauthenticated frames from 10.0.0.9, which no node of the run sends from (claiming node 4)") {
		t.Errorf("keyless: notes %q", c.Unauthenticated)
	}
}

// Each reason is named with what the refused node does differently.
func TestCrossHostRefusalReasons(t *testing.T) {
	dir := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(4, statsAt(29.9, "received=9 refused-from-2=5 refused-hmac-from-2=2 refused-clock-from-2=3 refused-run-from-3=8")),
		2: onTime(4), 3: onTime(4), 4: onTime(4),
	})
	got := CrossHostText(crossOf(t, dir))
	for _, w := range []string{
		"node 2's frames were refused by 1 node (3 clock: stamped too far ahead: its clock is ahead of theirs by more than --max-offset; 2 hmac: a bad signature: it signs with another key than theirs)",
		"node 3's frames were refused by 1 node (8 run: of another run: it was started with another --run name or --start time)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("problems:\n%s\nlack %q", got, w)
		}
	}
}

// A node whose first event comes more than LateStart after the run's
// start started late; a recovered node's later start is not late.
func TestCrossHostLateStart(t *testing.T) {
	dir := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(4),
		2: {ev(4.7, trace.EvStart), leaderAt(5, 4, "")},
		3: onTime(4, ev(10, trace.EvRecover), ev(10, trace.EvStart)),
		4: onTime(4),
	})
	ps := crossOf(t, dir)
	if len(ps) != 1 || ps[0].Kind != CrossLate || len(ps[0].Nodes) != 1 || ps[0].Nodes[0] != 2 ||
		!strings.Contains(ps[0].Text, "1 node started more than 2s after the run's start (their first event): node 2 at 4.700s (") {
		t.Errorf("problems %+v", ps)
	}
	if !strings.Contains(ps[0].Text, "their clocks are behind, or their processes stalled") {
		t.Errorf("without the start's lateness in its stats, node 2's clock or a stall is blamed: %s", ps[0].Text)
	}
}

// A late node whose process got the start late (its stats say how late,
// and the load then) is named late for an overloaded machine, with the
// figures, not for its clock.
func TestCrossHostLateStartOverloaded(t *testing.T) {
	dir := crossRun(t, map[protocol.NodeID][]trace.Event{
		1: onTime(4),
		2: {ev(2.4, trace.EvStart), leaderAt(5, 4, ""), statsAt(29.9, "received=10 late-start-ms=2310 load-at-start=14.20 runnable-at-start=9")},
		3: onTime(4),
		4: onTime(4),
	})
	ps := crossOf(t, dir)
	if len(ps) != 1 || ps[0].Kind != CrossLate ||
		!strings.Contains(ps[0].Text, "node 2 at 2.400s (") ||
		!strings.Contains(ps[0].Text, "; the start reached its process 2.31s late, load average 14.20, 9 runnable)") ||
		!strings.Contains(ps[0].Text, "their machines ran them late (overloaded") || strings.Contains(ps[0].Text, "clocks are behind") {
		t.Errorf("problems %+v", ps)
	}
}

// A node whose header's scenario hash is not the run file's ran another
// scenario; headers without a hash (older traces) are not judged.
func TestCrossHostScenarioHash(t *testing.T) {
	dir := t.TempDir()
	scen := lineScenario(t, 3, 30*time.Second)
	w, err := trace.Create(trace.RunFile(dir), true)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: "h", Driver: "node", Protocol: "test", Scenario: scen, ScenarioHash: "aaaa"})
	w.Write(&trace.Event{T: int64(30 * time.Second), Ev: trace.EvEnd})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for id, hash := range map[protocol.NodeID]string{1: "aaaa", 2: "bbbb", 3: ""} {
		w, err := trace.Create(trace.NodeFile(dir, id), true)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(&trace.Event{Ev: trace.EvHeader, Node: id, Schema: trace.Schema, Run: "h", Driver: "node", Protocol: "test", ScenarioHash: hash})
		for _, e := range onTime(3, ev(30, trace.EvEnd)) {
			e.Node = id
			w.Write(&e)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ps := crossOf(t, dir)
	if len(ps) != 1 || ps[0].Kind != CrossScenario || len(ps[0].Nodes) != 1 || ps[0].Nodes[0] != 2 ||
		!strings.Contains(ps[0].Text, "(scenario hash bbbb, not aaaa): 2") {
		t.Errorf("problems %+v", ps)
	}
}

// A simulated run has no cross-host problems, whatever its traces.
func TestCrossHostNotForSim(t *testing.T) {
	dir := t.TempDir()
	writeSimTrace := func(path string, id protocol.NodeID, scen string, evs ...trace.Event) {
		w, err := trace.Create(path, true)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(&trace.Event{Ev: trace.EvHeader, Node: id, Schema: trace.Schema, Run: "s", Driver: "sim", Protocol: "test", Scenario: scen})
		for i := range evs {
			evs[i].Node = id
			w.Write(&evs[i])
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	writeSimTrace(trace.RunFile(dir), 0, lineScenario(t, 3, 30*time.Second), trace.Event{T: int64(30 * time.Second), Ev: trace.EvEnd})
	writeSimTrace(trace.NodeFile(dir, 1), 1, "", ev(5, trace.EvStart), ev(30, trace.EvEnd))
	if ps := crossOf(t, dir); len(ps) != 0 {
		t.Errorf("a simulated run: problems %+v", ps)
	}
}
