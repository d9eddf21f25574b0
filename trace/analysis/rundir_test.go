package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/trace"
)

// The rules of the one reader (load), as ReadDir gives them: every kind
// of damaged or misplaced node file, in both layouts.

// writeRaw writes text to path.
func writeRaw(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func header(run string, node protocol.NodeID) trace.Event {
	return trace.Event{Ev: trace.EvHeader, Node: node, Schema: trace.Schema, Run: run, Driver: "sim", Protocol: "floodmax", Seed: 3}
}

// problemsFor returns the messages of the problems naming file.
func problemsFor(r *trace.Run, file string) []string {
	var msgs []string
	for _, p := range r.Problems {
		if p.File == file {
			msgs = append(msgs, p.Msg)
		}
	}
	return msgs
}

func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	runHdr := header("r1", 0)
	runHdr.Scenario = "name: t\nnodes:\n  count: 8\n"
	var runEvs []trace.Event
	for id := protocol.NodeID(1); id <= 4; id++ {
		runEvs = append(runEvs, trace.Event{Node: id, Ev: trace.EvPosition, Pos: &[3]float64{float64(id), 0, 0}})
	}
	runEvs = append(runEvs, trace.Event{T: 10, Node: 2, Ev: trace.EvCrash}, trace.Event{T: 99, Ev: trace.EvEnd})
	writeEvents(t, trace.RunFile(dir), append([]trace.Event{runHdr}, runEvs...)...)

	n1 := []trace.Event{{T: 1, Node: 1, Ev: trace.EvSend, Kind: "election", Seq: 1}, {T: 5, Node: 1, Ev: "leader", Leader: 1}}
	writeEvents(t, trace.NodeFile(dir, 1), append([]trace.Event{header("r1", 1)}, n1...)...)
	// node 2: left over from another run.
	writeEvents(t, trace.NodeFile(dir, 2), header("r0", 2), trace.Event{T: 1, Node: 2, Ev: trace.EvStart})
	// node 3: its header is node 5's.
	writeEvents(t, trace.NodeFile(dir, 3), header("r1", 5), trace.Event{T: 1, Node: 5, Ev: trace.EvStart})
	// node 4: no file at all.
	// node 6: a file without a header, then a truncated last line.
	writeEvents(t, trace.NodeFile(dir, 6), trace.Event{T: 1, Node: 6, Ev: trace.EvStart})
	f, err := os.OpenFile(trace.NodeFile(dir, 6), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"t":2,"node":6,"ev":"se`)
	f.Close()
	// node 7: a schema from the future.
	future := header("r1", 7)
	future.Schema = trace.Schema + 1
	writeEvents(t, trace.NodeFile(dir, 7), future)
	// node 8: fine, with a truncated last line kept out.
	writeEvents(t, trace.NodeFile(dir, 8), header("r1", 8), trace.Event{T: 3, Node: 8, Ev: trace.EvRecv, From: 1, Seq: 1})
	f, _ = os.OpenFile(trace.NodeFile(dir, 8), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"t":4,`)
	f.Close()
	// Files that are not node files, or not well named.
	writeRaw(t, filepath.Join(dir, "node-x.jsonl"), "")
	writeRaw(t, filepath.Join(dir, "node-09.jsonl"), "")
	writeRaw(t, filepath.Join(dir, "mobility.jsonl"), "junk\n")

	r, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Header, runHdr) || !reflect.DeepEqual(r.RunEvents, runEvs) {
		t.Fatalf("run file read as %+v / %+v", r.Header, r.RunEvents)
	}
	if got := r.NodeIDs(); !reflect.DeepEqual(got, []protocol.NodeID{1, 8}) {
		t.Fatalf("nodes %v, want [1 8]; problems %v", got, r.Problems)
	}
	if !reflect.DeepEqual(r.Nodes[1], n1) || len(r.Nodes[8]) != 1 || r.Nodes[8][0].From != 1 {
		t.Fatalf("node events: %+v", r.Nodes)
	}
	expect := map[string][]string{
		trace.NodeFile(dir, 2):              {`run "r0", not "r1"`, "node 2 appears in run.jsonl"},
		trace.NodeFile(dir, 3):              {"node 5's, not node 3's", "node 3 appears in run.jsonl"},
		trace.NodeFile(dir, 4):              {"node 4 appears in run.jsonl"},
		trace.NodeFile(dir, 6):              {trace.MsgTruncated, `"start", not a "header"`},
		trace.NodeFile(dir, 7):              {"newer than this reader"},
		trace.NodeFile(dir, 8):              {trace.MsgTruncated},
		filepath.Join(dir, "node-x.jsonl"):  {"not a node ID"},
		filepath.Join(dir, "node-09.jsonl"): {"not a node ID"},
	}
	total := 0
	for file, wants := range expect {
		got := problemsFor(r, file)
		total += len(wants)
		if len(got) != len(wants) {
			t.Errorf("%s: problems %q, want %d", file, got, len(wants))
			continue
		}
		for i, w := range wants {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: problem %q does not say %q", file, got[i], w)
			}
		}
	}
	if len(r.Problems) != total {
		t.Errorf("%d problems, want %d: %v", len(r.Problems), total, r.Problems)
	}
	if p := r.Problems[len(r.Problems)-1]; !strings.HasPrefix(p.String(), trace.NodeFile(dir, 4)+": ") {
		t.Errorf("last problem %q: missing nodes should come last and name the file", p)
	}

	again, err := ReadDir(dir)
	if err != nil || !reflect.DeepEqual(again, r) {
		t.Fatal("a second ReadDir of the same directory differs")
	}
}

func TestReadDirRunFileErrors(t *testing.T) {
	dir := t.TempDir()
	writeEvents(t, trace.NodeFile(dir, 1), header("r1", 1))
	_, err := ReadDir(dir)
	if !errors.Is(err, trace.ErrNoRunFile) {
		t.Fatalf("missing run file: %v", err)
	}

	writeEvents(t, trace.RunFile(dir), trace.Event{Ev: trace.EvEnd})
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), trace.RunFile(dir)) {
		t.Fatalf("run file without header: %v", err)
	}

	h := header("r1", 0)
	h.Schema = trace.Schema + 1
	writeEvents(t, trace.RunFile(dir), h)
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("run file from a newer schema: %v", err)
	}

	h.Schema = 0
	writeEvents(t, trace.RunFile(dir), h)
	if _, err := ReadDir(dir); err == nil {
		t.Fatal("run header without schema accepted")
	}

	if _, err := ReadDir(filepath.Join(dir, "absent")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("absent directory: %v", err)
	}
}

// The combined node file reads as the node files it stands for: each
// node's events in its order, and each node's damage judged as its file's.
func TestReadDirCombined(t *testing.T) {
	per, comb := t.TempDir(), t.TempDir()
	runHdr := header("r1", 0)
	runHdr.Scenario = "name: t\nnodes:\n  count: 4\n"
	runEvs := []trace.Event{{T: 10, Node: 2, Ev: trace.EvCrash}, {T: 99, Ev: trace.EvEnd}}
	for _, d := range []string{per, comb} {
		writeEvents(t, trace.RunFile(d), append([]trace.Event{runHdr}, runEvs...)...)
	}
	n1 := []trace.Event{{T: 1, Node: 1, Ev: trace.EvSend, Kind: "election", Seq: 1}, {T: 5, Node: 1, Ev: "leader", Leader: 1}}
	n3 := []trace.Event{{T: 2, Node: 3, Ev: trace.EvRecv, From: 1, Seq: 1}, {T: 4, Node: 3, Ev: trace.EvStart}}
	writeEvents(t, trace.NodeFile(per, 1), append([]trace.Event{header("r1", 1)}, n1...)...)
	writeEvents(t, trace.NodeFile(per, 3), append([]trace.Event{header("r1", 3)}, n3...)...)
	// Interleaved by time, with damage: node 2 of another run, node 9 not
	// in the scenario, node 4 without a header, a line of no node, a
	// second header of node 1, garbage.
	writeEvents(t, trace.NodesFile(comb), header("r1", 1), header("r0", 2), header("r1", 3), header("r1", 9),
		n1[0], n3[0], trace.Event{T: 2, Node: 2, Ev: trace.EvStart}, trace.Event{T: 3, Node: 4, Ev: trace.EvStart}, trace.Event{T: 3, Ev: trace.EvStart},
		header("r1", 1), n3[1], n1[1], trace.Event{T: 6, Node: 9, Ev: trace.EvStart})
	f, err := os.OpenFile(trace.NodesFile(comb), os.O_APPEND|os.O_WRONLY, 0)
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
	// Node 9 is not in the scenario: skipped, as its own file would be.
	if !reflect.DeepEqual(got.Nodes[1], want.Nodes[1]) || !reflect.DeepEqual(got.Nodes[3], want.Nodes[3]) || !reflect.DeepEqual(got.NodeIDs(), []protocol.NodeID{1, 3}) {
		t.Fatalf("combined read as %+v, per-node as %+v", got.Nodes, want.Nodes)
	}
	var msgs []string
	for _, p := range got.Problems {
		msgs = append(msgs, p.String())
	}
	for _, w := range []string{
		trace.NodesFile(comb) + `:2: node 2: run "r0", not "r1" of ` + trace.RunFile(comb) + ` (a file left from another run?); its lines skipped`,
		trace.NodesFile(comb) + ":4: node 9: node 9 is not in the run's scenario; its lines skipped",
		trace.NodesFile(comb) + ":8: node 4: the first event is \"start\", not a \"header\"; its lines skipped",
		trace.NodesFile(comb) + ":9: " + msgNoNode,
		trace.NodesFile(comb) + ":10: a second header of node 1; skipped",
		trace.NodesFile(comb) + ":14: not a JSON event",
		trace.NodesFile(comb) + ": " + missingInCombined(2),
	} {
		if !strings.Contains(strings.Join(msgs, "\n"), w) {
			t.Errorf("problems do not say %q:\n%s", w, strings.Join(msgs, "\n"))
		}
	}

	// Node files beside nodes.jsonl are named and skipped.
	writeEvents(t, trace.NodeFile(comb, 7), header("r1", 7))
	again, err := ReadDir(comb)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Nodes, got.Nodes) || !strings.Contains(again.Problems[0].String(), "node-7.jsonl) skipped") {
		t.Errorf("node file beside nodes.jsonl: %v", again.Problems)
	}
}
