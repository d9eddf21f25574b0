package trace

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"manetlab/protocol"
)

// The combined node file reads as the node files it stands for: each
// node's events in its order, and each node's damage judged as its file's.
func TestReadDirCombined(t *testing.T) {
	per, comb := t.TempDir(), t.TempDir()
	runHdr := header("r1", 0)
	runHdr.Scenario = "name: t\nnodes:\n  count: 4\n"
	runEvs := []Event{{T: 10, Node: 2, Ev: EvCrash}, {T: 99, Ev: EvEnd}}
	for _, d := range []string{per, comb} {
		writeEvents(t, RunFile(d), append([]Event{runHdr}, runEvs...)...)
	}
	n1 := []Event{{T: 1, Node: 1, Ev: EvSend, Kind: "election", Seq: 1}, {T: 5, Node: 1, Ev: "leader", Leader: 1}}
	n3 := []Event{{T: 2, Node: 3, Ev: EvRecv, From: 1, Seq: 1}, {T: 4, Node: 3, Ev: EvStart}}
	writeEvents(t, NodeFile(per, 1), append([]Event{header("r1", 1)}, n1...)...)
	writeEvents(t, NodeFile(per, 3), append([]Event{header("r1", 3)}, n3...)...)
	// Interleaved by time, with damage: node 2 of another run, node 9 not
	// in the scenario, node 4 without a header, a line of no node, a
	// second header of node 1, garbage.
	writeEvents(t, NodesFile(comb), header("r1", 1), header("r0", 2), header("r1", 3), header("r1", 9),
		n1[0], n3[0], Event{T: 2, Node: 2, Ev: EvStart}, Event{T: 3, Node: 4, Ev: EvStart}, Event{T: 3, Ev: EvStart},
		header("r1", 1), n3[1], n1[1], Event{T: 6, Node: 9, Ev: EvStart})
	f, err := os.OpenFile(NodesFile(comb), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n")
	f.Close()

	want, err := ReadDir(per)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(comb)
	if err != nil {
		t.Fatal(err)
	}
	// Without a screen node 9 is read, as its own file would be.
	if !reflect.DeepEqual(got.Nodes[1], want.Nodes[1]) || !reflect.DeepEqual(got.Nodes[3], want.Nodes[3]) || !reflect.DeepEqual(got.NodeIDs(), []protocol.NodeID{1, 3, 9}) {
		t.Fatalf("combined read as %+v, per-node as %+v", got.Nodes, want.Nodes)
	}
	var msgs []string
	for _, p := range got.Problems {
		msgs = append(msgs, p.String())
	}
	for _, w := range []string{
		NodesFile(comb) + `:2: node 2: run "r0", not "r1" of run.jsonl (a file left from another run?); its lines skipped`,
		NodesFile(comb) + ":8: node 4: the first event is \"start\", not a \"header\"; its lines skipped",
		NodesFile(comb) + ":9: " + MsgNoNode,
		NodesFile(comb) + ":10: a second header of node 1; skipped",
		NodesFile(comb) + ":14: not a JSON event",
		NodesFile(comb) + ": " + MissingInCombined(2),
	} {
		if !strings.Contains(strings.Join(msgs, "\n"), w) {
			t.Errorf("problems do not say %q:\n%s", w, strings.Join(msgs, "\n"))
		}
	}
	// Node 9 is not in the scenario when the screen knows it.
	screen := func(*Event) *Screen { return NewScreen(0, []protocol.NodeID{1, 2, 3, 4}) }
	run, err := WalkDirScreen(comb, nil, screen, func(protocol.NodeID, *Event) {})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range run.Problems {
		found = found || p.Line == 4 && strings.Contains(p.Msg, "node 9 is not in the run's scenario; its lines skipped")
	}
	if !found {
		t.Errorf("node 9 outside the scenario not reported at its header: %v", run.Problems)
	}

	// Node files beside nodes.jsonl are named and skipped.
	writeEvents(t, NodeFile(comb, 7), header("r1", 7))
	again, err := ReadDir(comb)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Nodes, got.Nodes) || !strings.Contains(again.Problems[0].String(), "node-7.jsonl) skipped") {
		t.Errorf("node file beside nodes.jsonl: %v", again.Problems)
	}
}
