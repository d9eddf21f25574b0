package analysis

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// treeProto is a protocol registered only for these tests, whose goal is
// a tree.
const treeProto = "test/tree"

func init() {
	protocol.Register(protocol.Spec{Name: treeProto, Goal: protocol.GoalTree,
		New: func(protocol.Config) (protocol.Process, error) { return nil, nil }})
}

func parentAt(s float64, p protocol.NodeID) trace.Event {
	return trace.Event{T: sec(s), Ev: string(protocol.NoteParent), Leader: p}
}

// synthTreeRun writes a run of treeProto as synthRun does: the run file
// with the scenario and an end, a file per node.
func synthTreeRun(t *testing.T, dir, scen string, end time.Duration, nodes map[protocol.NodeID][]trace.Event) {
	t.Helper()
	synthProtoRun(t, dir, treeProto, scen, end, nodes)
}

// synthProtoRun writes a run of the named protocol as synthRun does.
func synthProtoRun(t *testing.T, dir, proto, scen string, end time.Duration, nodes map[protocol.NodeID][]trace.Event) {
	t.Helper()
	synthRunAs(t, dir, proto, scen, end, nil, nodes)
}

// synthRunAs is synthRun with proto in the headers.
func synthRunAs(t *testing.T, dir, proto, scen string, end time.Duration, runEvs []trace.Event, nodes map[protocol.NodeID][]trace.Event) {
	t.Helper()
	write := func(path string, id protocol.NodeID, scen string, evs []trace.Event) {
		w, err := trace.Create(path, true)
		if err != nil {
			t.Fatal(err)
		}
		h := trace.Event{Ev: trace.EvHeader, Node: id, Schema: trace.Schema, Run: "s1", Driver: "sim", Protocol: proto, Scenario: scen}
		if err := w.Write(&h); err != nil {
			t.Fatal(err)
		}
		for i := range evs {
			evs[i].Node = id
			if err := w.Write(&evs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(trace.RunFile(dir), 0, scen, append(runEvs, trace.Event{T: int64(end), Ev: trace.EvEnd}))
	for id, evs := range nodes {
		write(trace.NodeFile(dir, id), id, "", append(evs, trace.Event{T: int64(end), Ev: trace.EvEnd}))
	}
}

// treeNodes gives every node of a 4-node line (links 1-2, 2-3, 3-4) a
// start, a parent note at 3 s and a leader note at 4 s.
func treeNodes(parents map[protocol.NodeID]protocol.NodeID, leaders map[protocol.NodeID]protocol.NodeID) map[protocol.NodeID][]trace.Event {
	nodes := map[protocol.NodeID][]trace.Event{}
	for id := protocol.NodeID(1); id <= 4; id++ {
		nodes[id] = []trace.Event{ev(0, trace.EvStart), parentAt(3, parents[id]), leaderAt(4, leaders[id], "tree")}
	}
	return nodes
}

// TestCheckTree judges hand-made runs of a tree protocol on the line
// 1-2-3-4: a spanning tree, two roots, a cycle, a parent out of range and
// a member following another leader than the root.
func TestCheckTree(t *testing.T) {
	scen := lineScenario(t, 4, 60*time.Second)
	all := func(l protocol.NodeID) map[protocol.NodeID]protocol.NodeID {
		return map[protocol.NodeID]protocol.NodeID{1: l, 2: l, 3: l, 4: l}
	}
	cases := []struct {
		name    string
		parents map[protocol.NodeID]protocol.NodeID
		leaders map[protocol.NodeID]protocol.NodeID
		want    []string // in the first witness; nil: valid
		src     string   // a witness event's file:line, as node file ID:line
	}{
		{"spanning tree", map[protocol.NodeID]protocol.NodeID{1: 2, 2: 0, 3: 2, 4: 3}, all(2), nil, ""},
		{"two roots", map[protocol.NodeID]protocol.NodeID{1: 0, 2: 1, 3: 0, 4: 3},
			map[protocol.NodeID]protocol.NodeID{1: 1, 2: 1, 3: 3, 4: 3}, []string{"2 roots: nodes 1, 3"}, "3:3"},
		{"cycle", map[protocol.NodeID]protocol.NodeID{1: 2, 2: 3, 3: 2, 4: 3}, all(3),
			[]string{"no root", "the parent edges form a cycle 2→3→2"}, "2:3"},
		{"parent not a neighbour", map[protocol.NodeID]protocol.NodeID{1: 3, 2: 0, 3: 2, 4: 3}, all(2),
			[]string{"node 1's parent 3 is not a radio neighbour"}, "1:3"},
		{"a member follows another", map[protocol.NodeID]protocol.NodeID{1: 2, 2: 0, 3: 2, 4: 3},
			map[protocol.NodeID]protocol.NodeID{1: 2, 2: 2, 3: 2, 4: 3}, []string{"not every member follows the root 2: node 4 follows 3"}, "4:4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			synthTreeRun(t, dir, scen, 60*time.Second, treeNodes(c.parents, c.leaders))
			rep, err := Check(dir, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p := property(t, rep, PropTree)
			if st := property(t, rep, PropStableLeader); st.Verdict != Valid || !strings.Contains(st.Reason, "not applicable: the goal is a tree") || len(st.Witnesses) != 0 {
				t.Errorf("stable-leader on a tree protocol: %+v", st)
			}
			if c.want == nil {
				if p.Verdict != Valid || p.Checked != 451 || rep.Invalid() {
					t.Fatalf("tree: %s (%s), %d checked, %+v; report %+v", p.Verdict, p.Reason, p.Checked, p.Witnesses, rep.Properties)
				}
				return
			}
			if p.Verdict != Invalid || len(p.Witnesses) != 1 || p.Violations != 451 {
				t.Fatalf("tree: %s, %d violations, witnesses %+v", p.Verdict, p.Violations, p.Witnesses)
			}
			w := p.Witnesses[0]
			if !strings.HasPrefix(w.Text, "at 15.0s (15.0s after its last change) component {1,2,3,4}: ") {
				t.Errorf("witness text %q", w.Text)
			}
			for _, s := range c.want {
				if !strings.Contains(w.Text, s) {
					t.Errorf("witness text %q lacks %q", w.Text, s)
				}
			}
			id, line, _ := strings.Cut(c.src, ":")
			want := strings.Replace(trace.NodeFile(dir, 1), "node-1.", "node-"+id+".", 1) + ":" + line
			found := false
			for _, e := range w.Events {
				found = found || e.Src == want
			}
			if !found {
				t.Errorf("witness events %+v do not name %s", w.Events, want)
			}
		})
	}
}

// TestCheckTreeUnfinished: a member without a parent note breaks the
// tree; a run without a stable window is unknown; a crash outside the
// assumptions is judged as the leader properties are.
func TestCheckTreeUnfinished(t *testing.T) {
	scen := lineScenario(t, 3, 60*time.Second)
	dir := t.TempDir()
	synthTreeRun(t, dir, scen, 60*time.Second, map[protocol.NodeID][]trace.Event{
		1: {ev(0, trace.EvStart), parentAt(3, 2), leaderAt(4, 2, "tree")},
		2: {ev(0, trace.EvStart), parentAt(3, 0), leaderAt(4, 2, "tree")},
		3: {ev(0, trace.EvStart)},
	})
	rep, err := Check(dir, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := property(t, rep, PropTree); p.Verdict != Invalid || !strings.Contains(p.Witnesses[0].Text, "node 3 noted no parent") ||
		!strings.Contains(p.Witnesses[0].Text, "node 3 has no leader") {
		t.Fatalf("unfinished: %+v", p)
	}
	rep, err = Check(dir, CheckOptions{Stabilisation: 61 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if p := property(t, rep, PropTree); p.Verdict != Unknown || !strings.Contains(p.Reason, "no settled component") {
		t.Fatalf("no stable window: %+v", p)
	}
}

// TestCheckNoTreeForOtherGoals: the tree property belongs to tree
// protocols; other runs keep their three properties.
func TestCheckNoTreeForOtherGoals(t *testing.T) {
	dir := t.TempDir()
	synthRun(t, dir, lineScenario(t, 2, 30*time.Second), 30*time.Second, nil, map[protocol.NodeID][]trace.Event{
		1: {ev(0, trace.EvStart), parentAt(1, 2), leaderAt(2, 2, "1")},
		2: {ev(0, trace.EvStart), parentAt(1, 0), leaderAt(2, 2, "1")},
	})
	rep, err := Check(dir, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range rep.Properties {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != PropEpochLeader+","+PropStableLeader+","+PropMutex {
		t.Fatalf("properties %v", names)
	}
}
