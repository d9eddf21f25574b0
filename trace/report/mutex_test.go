package report

import (
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// Protocols registered only for this test: a mutual exclusion protocol
// that composes an election, and a highest-ID election.
func init() {
	none := func(protocol.Config) (protocol.Process, error) { return nil, nil }
	protocol.Register(protocol.Spec{Name: "test/mutex-elect", Goal: protocol.GoalMutex, New: none})
	protocol.Register(protocol.Spec{Name: "test/highest", Goal: protocol.GoalHighestID, New: none})
}

// TestSummaryJudgesAMutexRunsElection: two nodes in range, node 1 with
// the better value, both following node 2 (the higher ID). A mutex
// protocol composing the highest-ID election is valid; composing none
// (the default goal, the best value) it is not; without leader notes
// nothing is judged. With the requests still waiting at the end, a run
// that would be valid is unknown instead, as trace check's
// requests-granted says.
func TestSummaryJudgesAMutexRunsElection(t *testing.T) {
	for _, c := range []struct {
		election string
		leaders  bool
		granted  bool
		verdict  string
	}{{"test/highest", true, true, "valid"}, {"", true, true, "invalid"}, {"", false, true, "valid"},
		// Requests still waiting at the end: not valid, unknown as trace
		// check's requests-granted (a crash storm starving them).
		{"test/highest", true, false, "unknown"}, {"", false, false, "unknown"}, {"", true, false, "invalid"}} {
		dir := t.TempDir()
		y := "nodes:\n  list:\n    - {id: 1, value: 9, pos: [0, 0]}\n    - {id: 2, value: 5, pos: [100, 0]}\nradio: {range: 250}\n" +
			"protocol:\n  name: test/mutex-elect\n"
		if c.election != "" {
			y += "  params: {election: " + c.election + "}\n"
		}
		sc, err := scenario.Parse([]byte(y), "mx.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		yb, _ := sc.YAML()
		rw, err := trace.Create(trace.RunFile(dir), false)
		if err != nil {
			t.Fatal(err)
		}
		rw.Write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: "r", Driver: "test", Protocol: "test/mutex-elect", Scenario: string(yb)})
		for _, id := range []protocol.NodeID{1, 2} {
			p := sc.Nodes.List[id-1].Pos
			rw.Write(&trace.Event{T: 5e9, Node: id, Ev: trace.EvPosition, Pos: &[3]float64{p[0], p[1], 0}})
			w, err := trace.Create(trace.NodeFile(dir, id), false)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(&trace.Event{Node: id, Ev: trace.EvHeader, Schema: trace.Schema, Run: "r"})
			w.Write(&trace.Event{Node: id, Ev: trace.EvStart})
			if c.leaders {
				w.Write(&trace.Event{T: 1e9, Node: id, Ev: string(protocol.NoteLeader), Leader: 2})
			}
			switch {
			case !c.granted: // both wait
				w.Write(&trace.Event{T: 2e9, Node: id, Ev: string(protocol.NoteCSRequest)})
			case id == 1: // node 1 asks and enters
				w.Write(&trace.Event{T: 2e9, Node: id, Ev: string(protocol.NoteCSRequest)})
				w.Write(&trace.Event{T: 3e9, Node: id, Ev: string(protocol.NoteCSEnter)})
				w.Write(&trace.Event{T: 4e9, Node: id, Ev: string(protocol.NoteCSExit)})
			}
			w.Write(&trace.Event{T: 20e9, Node: id, Ev: trace.EvEnd})
			w.Close()
		}
		rw.Write(&trace.Event{T: 20e9, Ev: trace.EvEnd}) // settled: static for 20 s
		rw.Close()
		sum, err := Summarize(dir)
		if err != nil {
			t.Fatal(err)
		}
		waiting := 2
		if c.granted {
			waiting = 0
		}
		if sum.Verdict != c.verdict || sum.Mutex == nil || sum.Mutex.WaitingAtEnd != waiting {
			t.Errorf("election %q, leader notes %v, granted %v: verdict %s (%s), want %s; mutex %+v", c.election, c.leaders, c.granted, sum.Verdict, sum.Reason, c.verdict, sum.Mutex)
		}
		if want := "2 of 2 requests still waiting at the end (20.000s), 2 of them longer than any granted request waited (0.000s); the oldest is node 1's of 2.000s, waiting 18.000s; a finite trace cannot prove starvation (0 critical sections, no two concurrent)"; c.verdict == "unknown" && sum.Reason != want {
			t.Errorf("reason %q\nwant %q", sum.Reason, want)
		}
	}
}

// TestSummaryStarvedRequestsAreNotValid: node 1's request is granted after
// 1 s; node 2's, still waiting at the end of 20 s, is unknown when made at
// 5 s (15 s, far longer than any granted request waited: starving, as
// under a crash storm) and valid when made at 19.5 s (it could still be
// granted in the normal course, as a saturated workload's last requests).
func TestSummaryStarvedRequestsAreNotValid(t *testing.T) {
	for _, c := range []struct {
		at      int64
		verdict string
	}{{5e9, "unknown"}, {19.5e9, "valid"}} {
		dir := t.TempDir()
		sc, err := scenario.Parse([]byte("nodes:\n  list:\n    - {id: 1, pos: [0, 0]}\n    - {id: 2, pos: [100, 0]}\nradio: {range: 250}\nprotocol: {name: test/mutex-elect}\n"), "mx.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		yb, _ := sc.YAML()
		rw, err := trace.Create(trace.RunFile(dir), false)
		if err != nil {
			t.Fatal(err)
		}
		rw.Write(&trace.Event{Ev: trace.EvHeader, Schema: trace.Schema, Run: "r", Driver: "test", Protocol: "test/mutex-elect", Scenario: string(yb)})
		evs := map[protocol.NodeID][]trace.Event{
			1: {{T: 2e9, Ev: string(protocol.NoteCSRequest)}, {T: 3e9, Ev: string(protocol.NoteCSEnter)}, {T: 4e9, Ev: string(protocol.NoteCSExit)}},
			2: {{T: c.at, Ev: string(protocol.NoteCSRequest)}},
		}
		for _, id := range []protocol.NodeID{1, 2} {
			p := sc.Nodes.List[id-1].Pos
			rw.Write(&trace.Event{Node: id, Ev: trace.EvPosition, Pos: &[3]float64{p[0], p[1], 0}})
			w, err := trace.Create(trace.NodeFile(dir, id), false)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(&trace.Event{Node: id, Ev: trace.EvHeader, Schema: trace.Schema, Run: "r"})
			w.Write(&trace.Event{Node: id, Ev: trace.EvStart})
			for _, e := range evs[id] {
				e.Node = id
				w.Write(&e)
			}
			w.Write(&trace.Event{T: 20e9, Node: id, Ev: trace.EvEnd})
			w.Close()
		}
		rw.Write(&trace.Event{T: 20e9, Ev: trace.EvEnd})
		rw.Close()
		sum, err := Summarize(dir)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Verdict != c.verdict {
			t.Errorf("request at %.1fs: verdict %s (%s), want %s", float64(c.at)/1e9, sum.Verdict, sum.Reason, c.verdict)
		}
		if want := "1 of 2 requests still waiting at the end (20.000s), 1 of them longer than any granted request waited (1.000s); the oldest is node 2's of 5.000s, waiting 15.000s"; c.verdict == "unknown" && !strings.HasPrefix(sum.Reason, want) {
			t.Errorf("reason %q\nwant %q...", sum.Reason, want)
		}
	}
}
