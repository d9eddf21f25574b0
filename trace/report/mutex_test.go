package report

import (
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
// nothing is judged.
func TestSummaryJudgesAMutexRunsElection(t *testing.T) {
	for _, c := range []struct {
		election string
		leaders  bool
		verdict  string
	}{{"test/highest", true, "valid"}, {"", true, "invalid"}, {"", false, "valid"}} {
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
			w.Write(&trace.Event{T: 2e9, Node: id, Ev: string(protocol.NoteCSRequest)})
			w.Write(&trace.Event{T: 20e9, Node: id, Ev: trace.EvEnd})
			w.Close()
		}
		rw.Write(&trace.Event{T: 20e9, Ev: trace.EvEnd}) // settled: static for 20 s
		rw.Close()
		sum, err := Summarize(dir)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Verdict != c.verdict || sum.Mutex == nil || sum.Mutex.WaitingAtEnd != 2 {
			t.Errorf("election %q, leader notes %v: verdict %s (%s), want %s; mutex %+v", c.election, c.leaders, sum.Verdict, sum.Reason, c.verdict, sum.Mutex)
		}
	}
}
