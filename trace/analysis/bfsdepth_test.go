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

// kiteScenario places 1 (0,0), 2 (100,0), 3 (200,0) and 4 (100,100) with a
// range of 150 m: links 1-2, 2-3, 1-4, 2-4, 3-4. From root 1, nodes 2 and
// 4 are one hop away, node 3 two.
func kiteScenario(t *testing.T) string {
	t.Helper()
	y := "name: t\nseed: 1\nduration: 60s\nnodes:\n  list:\n" +
		"    - {id: 1, pos: [0, 0]}\n    - {id: 2, pos: [100, 0]}\n    - {id: 3, pos: [200, 0]}\n    - {id: 4, pos: [100, 100]}\n" +
		"radio:\n  range: 150\nmobility:\n  model: static\n  area: [1000, 1000]\n"
	sc, err := scenario.Parse([]byte(y), "kite.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sc.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// depthNodes gives every node a start, a parent note with a depth at 3 s
// (text overrides the "depth D" text when set) and the root as leader.
func depthNodes(parents map[protocol.NodeID]protocol.NodeID, depths map[protocol.NodeID]int, text string) map[protocol.NodeID][]trace.Event {
	nodes := map[protocol.NodeID][]trace.Event{}
	for id, par := range parents {
		e := parentAt(3, par)
		e.Text = fmt.Sprintf("depth %d", depths[id])
		if text != "" {
			e.Text = text
		}
		nodes[id] = []trace.Event{ev(0, trace.EvStart), e, leaderAt(4, 1, "1")}
	}
	return nodes
}

// TestCheckBFSDepth judges hand-made trees on the kite: the BFS tree is
// valid; a tree in which 4 hangs below 2 (as an asynchronous run may
// build it) is invalid at node 4; a tree without depths (tree identify)
// has no bfs-depth property; two roots leave it unknown.
func TestCheckBFSDepth(t *testing.T) {
	scen := kiteScenario(t)
	bfsParents := map[protocol.NodeID]protocol.NodeID{1: 0, 2: 1, 3: 2, 4: 1}
	cases := []struct {
		name    string
		nodes   map[protocol.NodeID][]trace.Event
		verdict string // "" : no property
		want    string
	}{
		{"bfs", depthNodes(bfsParents, map[protocol.NodeID]int{1: 0, 2: 1, 3: 2, 4: 1}, ""), Valid, ""},
		{"4 below 2", depthNodes(map[protocol.NodeID]protocol.NodeID{1: 0, 2: 1, 3: 2, 4: 2}, map[protocol.NodeID]int{1: 0, 2: 1, 3: 2, 4: 2}, ""),
			Invalid, "node 4 is at depth 2 (parent 2); its hop distance from the root 1 at the start is 1"},
		{"no depths", depthNodes(bfsParents, nil, "tree identify"), "", ""},
		{"two roots", depthNodes(map[protocol.NodeID]protocol.NodeID{1: 0, 2: 1, 3: 0, 4: 1}, map[protocol.NodeID]int{1: 0, 2: 1, 3: 0, 4: 1}, ""),
			Unknown, "2 members end as root"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			synthTreeRun(t, dir, scen, 60*time.Second, c.nodes)
			rep, err := Check(dir, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var p *Property
			for i := range rep.Properties {
				if rep.Properties[i].Name == PropBFSDepth {
					p = &rep.Properties[i]
				}
			}
			if c.verdict == "" {
				if p != nil {
					t.Fatalf("bfs-depth judged without depths: %+v", *p)
				}
				return
			}
			if p == nil {
				t.Fatalf("no bfs-depth property in %+v", rep.Properties)
			}
			if p.Verdict != c.verdict {
				t.Fatalf("verdict %s (%s), want %s; %+v", p.Verdict, p.Reason, c.verdict, p.Witnesses)
			}
			switch c.verdict {
			case Valid:
				if p.Checked != 4 || p.Violations != 0 {
					t.Errorf("%+v", *p)
				}
			case Invalid:
				if p.Violations != 1 || len(p.Witnesses) != 1 || p.Witnesses[0].Text != c.want || len(p.Witnesses[0].Events) != 1 ||
					p.Witnesses[0].Events[0].Node != 4 {
					t.Errorf("%+v", *p)
				}
			case Unknown:
				if !strings.Contains(p.Reason, c.want) {
					t.Errorf("reason %q", p.Reason)
				}
			}
		})
	}
}
