package trace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manetlab/protocol"
)

func header(run string, node protocol.NodeID) Event {
	return Event{Ev: EvHeader, Node: node, Schema: Schema, Run: run, Driver: "sim", Protocol: "floodmax", Seed: 3}
}

func writeEvents(t *testing.T, path string, evs ...Event) {
	t.Helper()
	w, err := Create(path, true)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, evs)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// problemsFor returns the messages of the problems naming file.
func problemsFor(r *Run, file string) []string {
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
	runHdr.Scenario = "name: t\nnodes:\n  count: 4\n"
	var runEvs []Event
	for id := protocol.NodeID(1); id <= 4; id++ {
		runEvs = append(runEvs, Event{Node: id, Ev: EvPosition, Pos: &[3]float64{float64(id), 0, 0}})
	}
	runEvs = append(runEvs, Event{T: 10, Node: 2, Ev: EvCrash}, Event{T: 99, Ev: EvEnd})
	writeEvents(t, RunFile(dir), append([]Event{runHdr}, runEvs...)...)

	n1 := []Event{{T: 1, Node: 1, Ev: EvSend, Kind: "election", Seq: 1}, {T: 5, Node: 1, Ev: "leader", Leader: 1}}
	writeEvents(t, NodeFile(dir, 1), append([]Event{header("r1", 1)}, n1...)...)
	// node 2: left over from another run.
	writeEvents(t, NodeFile(dir, 2), header("r0", 2), Event{T: 1, Node: 2, Ev: EvStart})
	// node 3: its header is node 5's.
	writeEvents(t, NodeFile(dir, 3), header("r1", 5), Event{T: 1, Node: 5, Ev: EvStart})
	// node 4: no file at all.
	// node 6: a file without a header, then a truncated last line.
	writeEvents(t, NodeFile(dir, 6), Event{T: 1, Node: 6, Ev: EvStart})
	f, err := os.OpenFile(NodeFile(dir, 6), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"t":2,"node":6,"ev":"se`)
	f.Close()
	// node 7: a schema from the future.
	future := header("r1", 7)
	future.Schema = Schema + 1
	writeEvents(t, NodeFile(dir, 7), future)
	// node 8: fine, with a truncated last line kept out.
	writeEvents(t, NodeFile(dir, 8), header("r1", 8), Event{T: 3, Node: 8, Ev: EvRecv, From: 1, Seq: 1})
	f, _ = os.OpenFile(NodeFile(dir, 8), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"t":4,`)
	f.Close()
	// Files that are not node files, or not well named.
	writeFile(t, filepath.Join(dir, "node-x.jsonl"), "")
	writeFile(t, filepath.Join(dir, "node-09.jsonl"), "")
	writeFile(t, filepath.Join(dir, "mobility.jsonl"), "junk\n")

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
		NodeFile(dir, 2):                    {`run "r0", not "r1"`, "node 2 appears in run.jsonl"},
		NodeFile(dir, 3):                    {"node 5's, not node 3's", "node 3 appears in run.jsonl"},
		NodeFile(dir, 4):                    {"node 4 appears in run.jsonl"},
		NodeFile(dir, 6):                    {MsgTruncated, `"start", not a "header"`},
		NodeFile(dir, 7):                    {"newer than this reader"},
		NodeFile(dir, 8):                    {MsgTruncated},
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
	if p := r.Problems[len(r.Problems)-1]; !strings.HasPrefix(p.String(), NodeFile(dir, 4)+": ") {
		t.Errorf("last problem %q: missing nodes should come last and name the file", p)
	}

	again, err := ReadDir(dir)
	if err != nil || !reflect.DeepEqual(again, r) {
		t.Fatal("a second ReadDir of the same directory differs")
	}
}

func TestReadDirRunFileErrors(t *testing.T) {
	dir := t.TempDir()
	writeEvents(t, NodeFile(dir, 1), header("r1", 1))
	_, err := ReadDir(dir)
	if !errors.Is(err, ErrNoRunFile) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing run file: %v", err)
	}

	writeEvents(t, RunFile(dir), Event{Ev: EvEnd})
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), RunFile(dir)) {
		t.Fatalf("run file without header: %v", err)
	}

	h := header("r1", 0)
	h.Schema = Schema + 1
	writeEvents(t, RunFile(dir), h)
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("run file from a newer schema: %v", err)
	}

	h.Schema = 0
	writeEvents(t, RunFile(dir), h)
	if _, err := ReadDir(dir); err == nil {
		t.Fatal("run header without schema accepted")
	}

	if _, err := ReadDir(filepath.Join(dir, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("absent directory: %v", err)
	}
}

func TestFileNames(t *testing.T) {
	if got := NodeFile("out/r", 42); got != filepath.Join("out/r", "node-42.jsonl") {
		t.Errorf("NodeFile: %s", got)
	}
	if got := RunFile("out/r"); got != filepath.Join("out/r", "run.jsonl") {
		t.Errorf("RunFile: %s", got)
	}
}
