package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// writeRun writes a hand-made run of 30 s: four nodes on a line, 1-2 and
// 3-4 in range of each other (range 250, 200 m apart within a pair, 1 km
// between pairs), with the given final leader of each node. The
// protocol declares no settle delay: components are settled 15 s after
// their last change.
func writeRun(t *testing.T, leaders map[protocol.NodeID]protocol.NodeID, crashed ...protocol.NodeID) string {
	t.Helper()
	return writeRunUntil(t, 30e9, leaders, crashed...)
}

// writeRunUntil is writeRun ending at end (ns).
func writeRunUntil(t *testing.T, end int64, leaders map[protocol.NodeID]protocol.NodeID, crashed ...protocol.NodeID) string {
	t.Helper()
	return writeRunCut(t, end, leaders, nil, crashed...)
}

// writeRunCut is writeRunUntil where the traces of the nodes in cut stop
// at their leader note (or their send at 1 s), without the end event
// every node file otherwise ends with, as a full disk leaves them.
func writeRunCut(t *testing.T, end int64, leaders map[protocol.NodeID]protocol.NodeID, cut map[protocol.NodeID]bool, crashed ...protocol.NodeID) string {
	t.Helper()
	dir := t.TempDir()
	y := "nodes:\n  list:\n    - {id: 1, value: 5, pos: [0, 0]}\n    - {id: 2, value: 9, pos: [200, 0]}\n" +
		"    - {id: 3, value: 7, pos: [1200, 0]}\n    - {id: 4, value: 7, pos: [1400, 0]}\nradio: {range: 250}\n"
	sc, err := scenario.Parse([]byte(y), "hand.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	yb, _ := sc.YAML()
	rw, err := trace.Create(trace.RunFile(dir), false)
	if err != nil {
		t.Fatal(err)
	}
	rw.Write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: "r", Driver: "test", Protocol: "p", Scenario: string(yb)})
	for _, id := range []protocol.NodeID{1, 2, 3, 4} {
		p := sc.Nodes.List[id-1].Pos
		rw.Write(&trace.Event{T: 5e9, Node: id, Ev: trace.EvPosition, Pos: &[3]float64{p[0], p[1], 0}})
		w, err := trace.Create(trace.NodeFile(dir, id), false)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(&trace.Event{Node: id, Ev: trace.EvHeader, Schema: trace.Schema, Run: "r"})
		w.Write(&trace.Event{Node: id, Ev: trace.EvStart})
		w.Write(&trace.Event{T: 1e9, Node: id, Ev: trace.EvSend, Kind: "x", Bytes: 10})
		if l, ok := leaders[id]; ok {
			w.Write(&trace.Event{T: int64(id) * 1e9, Node: id, Ev: "leader", Leader: l})
		}
		if !cut[id] && !slices.Contains(crashed, id) {
			w.Write(&trace.Event{T: end, Node: id, Ev: trace.EvEnd})
		}
		w.Close()
	}
	for _, id := range crashed {
		rw.Write(&trace.Event{T: 4e9, Node: id, Ev: trace.EvCrash})
	}
	rw.Write(&trace.Event{T: end, Ev: trace.EvEnd})
	rw.Close()
	return dir
}

func TestSummaryJudgesEachComponent(t *testing.T) {
	cases := []struct {
		name    string
		leaders map[protocol.NodeID]protocol.NodeID
		crashed []protocol.NodeID
		verdict string
		comps   string
	}{
		// 3 and 4 tie on value 7: the higher ID wins.
		{"right", map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 4, 4: 4}, nil, "valid", "[2:map[2:2] 4:map[4:2]]"},
		{"wrong-best", map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 3, 4: 3}, nil, "invalid", "[2:map[2:2] 4:map[3:2]]"},
		{"disagree", map[protocol.NodeID]protocol.NodeID{1: 1, 2: 2, 3: 4, 4: 4}, nil, "invalid", "[2:map[1:1 2:1] 4:map[4:2]]"},
		{"no-leader", map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 4: 4}, nil, "invalid", "[2:map[2:2] 4:map[4:1 none:1]]"},
		// With 4 crashed, 3 is alone and must lead itself.
		{"crashed", map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 3}, []protocol.NodeID{4}, "valid", "[2:map[2:2] 3:map[3:1]]"},
	}
	for _, c := range cases {
		sum, err := Summarize(writeRun(t, c.leaders, c.crashed...))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, comp := range sum.Components {
			got = append(got, fmt.Sprintf("%d:%v", comp.ExpectedLeader, comp.Leaders))
		}
		if sum.Verdict != c.verdict || fmt.Sprint(got) != c.comps {
			t.Errorf("%s: verdict %s components %v, want %s %s", c.name, sum.Verdict, got, c.verdict, c.comps)
		}
		if sum.Messages.Total != 4 || sum.Messages.ByKind["x"] != 4 || sum.Messages.Bytes != 40 {
			t.Errorf("%s: messages %+v", c.name, sum.Messages)
		}
	}
}

// TestSummaryUnsettled: wrong leaders in components that changed within
// the delay make the run unsettled, naming them and when they changed;
// right ones leave it unsettled when nothing settled ("nothing judged",
// never valid: #39); a settled wrong
// component makes it invalid, naming it.
func TestSummaryUnsettled(t *testing.T) {
	wrong := map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 3, 4: 3}
	sum, err := Summarize(writeRunUntil(t, 5e9, wrong))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != Unsettled || !strings.Contains(sum.Reason, "{3,4} changed 5.0s before the end") || strings.Contains(sum.Reason, "{1,2}") ||
		sum.Components[1].State != Unsettled || sum.Stabilisation != 15 {
		t.Errorf("5 s run, wrong leader in {3,4}: %s (%s), components %+v", sum.Verdict, sum.Reason, sum.Components)
	}
	sum, err = Summarize(writeRunUntil(t, 5e9, map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 4, 4: 4}))
	if err != nil {
		t.Fatal(err)
	}
	// Right leaders, but nothing settled: nothing judged, not valid.
	if sum.Verdict != Unsettled || !strings.HasPrefix(sum.Reason, "nothing judged: no component stayed unchanged for the 15.0s delay (0 of 2 settled)") {
		t.Errorf("5 s run, right leaders: %s (%s)", sum.Verdict, sum.Reason)
	}
	sum, err = Summarize(writeRun(t, wrong))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != Invalid || !strings.Contains(sum.Reason, "component {3,4} (unchanged for 30.0s) follows 3 (x2), expected 4") {
		t.Errorf("30 s run: %s (%s)", sum.Verdict, sum.Reason)
	}
	var b strings.Builder
	sum.WriteText(&b)
	if !strings.Contains(b.String(), "verdict: invalid (settled with a wrong leader: component {3,4}") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestSummaryReportsDamageAndGoesOn(t *testing.T) {
	dir := writeRun(t, map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 4, 4: 4})
	if err := appendLine(trace.NodeFile(dir, 3), `{"t":9,"node":3,"ev":"le`); err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != "valid" || len(sum.Problems) != 1 || filepath.Base(sum.Problems[0]) != "node-3.jsonl:6: "+trace.MsgTruncated {
		t.Fatalf("verdict %s, problems %q", sum.Verdict, sum.Problems)
	}
}
func appendLine(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(s)
	return err
}

// TestSummaryLeaderChangesAsReport: the summary's leader changes are the
// per-node leader changes of the metrics (trace report) added up: a
// repeated note is no change, a note naming none after a leader is one.
func TestSummaryLeaderChangesAsReport(t *testing.T) {
	dir := writeRun(t, map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 4, 4: 4})
	if err := appendLine(trace.NodeFile(dir, 1), `{"t":2000000000,"node":1,"ev":"leader","leader":2}`+"\n"+`{"t":2500000000,"node":1,"ev":"leader","leader":2}`+"\n"+`{"t":3000000000,"node":1,"ev":"leader"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	per := 0
	for _, n := range sum.Measurements().PerNode {
		per += n.LeaderChanges
	}
	if sum.LeaderChanges != 5 || per != 5 {
		t.Errorf("leader changes: summary %d, per node %d; want 5 (4 first leaders, 1 drop to none; 2 repeats do not count)", sum.LeaderChanges, per)
	}
}

// TestSummaryCutShortTraces: the right leaders, but the traces of nodes 3
// and 4 stop at 3 s and 4 s without an end event while the run goes on to
// 30 s (a full disk): what {3,4} follows at the end is unknown, so the
// verdict is unknown, not valid, and says whose traces stop and where;
// {1,2} is still judged. A wrong settled component elsewhere still makes
// the run invalid.
func TestSummaryCutShortTraces(t *testing.T) {
	right := map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 4, 4: 4}
	sum, err := Summarize(writeRunCut(t, 30e9, right, map[protocol.NodeID]bool{3: true, 4: true}))
	if err != nil {
		t.Fatal(err)
	}
	want := "traces that stop without an end event: node 3 at 3.000s; node 4 at 4.000s; the component with them not judged at the end: {3,4}"
	if sum.Verdict != Unknown || sum.Reason != want {
		t.Errorf("verdict %s (%s), want unknown (%s)", sum.Verdict, sum.Reason, want)
	}
	if c := sum.Components; len(c) != 2 || c[0].State != Settled || !c[0].Valid || c[1].State != CutShort || c[1].Valid || len(c[1].Cut) != 2 {
		t.Errorf("components %+v", c)
	}
	var b strings.Builder
	sum.WriteText(&b)
	if !strings.Contains(b.String(), "not judged: traces stop without an end event (node 3 at 3.000s; node 4 at 4.000s)") {
		t.Errorf("text:\n%s", b.String())
	}
	if m := sum.Metrics.WrongOrUnknown; m == nil || *m < 0.4 {
		t.Errorf("wrong_or_unknown %v: past 4 s the leaders of 3 and 4 are unknown", m)
	}
	wrong := map[protocol.NodeID]protocol.NodeID{1: 1, 2: 2, 3: 4, 4: 4}
	sum, err = Summarize(writeRunCut(t, 30e9, wrong, map[protocol.NodeID]bool{3: true}))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != Invalid {
		t.Errorf("a wrong settled component beside a cut one: %s (%s)", sum.Verdict, sum.Reason)
	}
	// Whole traces: valid, as before.
	if sum, err = Summarize(writeRun(t, right)); err != nil || sum.Verdict != Valid {
		t.Errorf("whole traces: %v %+v", err, sum)
	}
}

// TestSummaryOfARunFileInMemory: when the run file could not be written at
// the end (a full disk left the provisional one, without the faults), the
// summary of its events in memory (trace.WithRunFile) has the crash that
// the file on disk lacks.
func TestSummaryOfARunFileInMemory(t *testing.T) {
	dir := writeRun(t, map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 4, 4: 4})
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	evs := append([]trace.Event{run.Header}, run.RunEvents[:len(run.RunEvents)-1]...)
	evs = append(evs, trace.Event{T: 4e9, Node: 4, Ev: trace.EvCrash}, run.RunEvents[len(run.RunEvents)-1])
	onDisk, err := Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	inMemory, err := SummarizeFrom(trace.WithRunFile(trace.Disk, dir, evs), dir)
	if err != nil {
		t.Fatal(err)
	}
	if onDisk.Alive != 4 || inMemory.Alive != 3 || !strings.Contains(fmt.Sprint(inMemory.Timeline), "node 4 crashed") {
		t.Errorf("on disk %d alive, in memory %d alive, timeline %+v", onDisk.Alive, inMemory.Alive, inMemory.Timeline)
	}
	// The file on disk is left alone.
	if again, err := Summarize(dir); err != nil || again.Alive != 4 {
		t.Errorf("on disk after: %v %+v", err, again)
	}
}

// TestSummaryMissingTraces: the right leaders, but node 4's trace is
// missing (a host's traces not gathered): whom it follows is unknown, so
// its component is not judged and the verdict is unknown, naming it,
// never "invalid" for a node that merely left no trace.
func TestSummaryMissingTraces(t *testing.T) {
	right := map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 4, 4: 4}
	dir := writeRun(t, right)
	if err := os.Remove(trace.NodeFile(dir, 4)); err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != Unknown || !strings.Contains(sum.Reason, "members without a trace: 4") {
		t.Errorf("verdict %s (%s), want unknown naming node 4", sum.Verdict, sum.Reason)
	}
	if c := sum.Components; len(c) != 2 || c[0].State != Settled || !c[0].Valid || c[1].State != NoTraces || c[1].Valid || !slices.Equal(c[1].NoTrace, []protocol.NodeID{4}) {
		t.Errorf("components %+v", c)
	}
	var b strings.Builder
	sum.WriteText(&b)
	if !strings.Contains(b.String(), "not judged: members without a trace (4)") || strings.Contains(b.String(), "WRONG") {
		t.Errorf("text:\n%s", b.String())
	}
}
