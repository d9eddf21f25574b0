package sim

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	_ "manetlab/invitation"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// listYAML names its nodes out of order and with gaps, crashes one and
// brings it back, and traces hellos too.
const listYAML = `
duration: 20s
nodes:
  list:
    - {id: 40, pos: [0, 0]}
    - {id: 3, pos: [200, 0]}
    - {id: 17, pos: [400, 0]}
    - {id: 5, pos: [0, 200]}
    - {id: 1000, pos: [200, 200]}
    - {id: 22, pos: [400, 200]}
radio: {range: 250, loss: {p: 0.1}}
mobility: {model: static, area: [500, 500]}
trace: {hello: true}
faults:
  - {at: 6s, crash: [17]}
  - {at: 9s, recover: [17]}
`

func keepAll(string) bool { return true }

// TestCombinedLayoutIsPerNodeInterleaved runs scenarios in both layouts:
// nodes.jsonl holds every node's header in ascending node order, then
// lines in non-decreasing time, and the lines of node N are exactly
// node-N.jsonl of the per-node run; the run files are equal; the
// recording holds exactly what was written; and re-using a directory for
// the other layout removes the first layout's files.
func TestCombinedLayoutIsPerNodeInterleaved(t *testing.T) {
	invitation, err := scenario.Load("../configs/invitation.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(layout string) *scenario.Scenario{
		"list": func(layout string) *scenario.Scenario { return parse(t, listYAML, "trace.layout="+layout) },
		"mobile": func(layout string) *scenario.Scenario {
			return parse(t, mobileYAML, "seed=3", "radio.loss.p=0.1", "trace.layout="+layout)
		},
		"invitation": func(layout string) *scenario.Scenario {
			s := *invitation
			s.Trace.Layout = layout
			return &s
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			per, comb := t.TempDir(), t.TempDir()
			perRes, err := Run(mk(scenario.LayoutPerNode), Options{Out: per, Record: keepAll})
			if err != nil {
				t.Fatal(err)
			}
			combRes, err := Run(mk(scenario.LayoutCombined), Options{Out: comb, Record: keepAll})
			if err != nil {
				t.Fatal(err)
			}
			if perRes.Events != combRes.Events {
				t.Errorf("events: per-node %d, combined %d", perRes.Events, combRes.Events)
			}
			ids := mk(scenario.LayoutCombined).MemberIDs()
			compareLayouts(t, per, comb, ids)
			checkRecording(t, combRes.Recording, comb, []string{trace.NodesFileName, trace.RunFileName})

			// Each directory re-used for the other layout holds that layout
			// only, with the same bytes.
			if _, err := Run(mk(scenario.LayoutCombined), Options{Out: per}); err != nil {
				t.Fatal(err)
			}
			if _, err := Run(mk(scenario.LayoutPerNode), Options{Out: comb}); err != nil {
				t.Fatal(err)
			}
			compareLayouts(t, comb, per, ids)
		})
	}
}

// compareLayouts checks that the per-node directory per and the combined
// directory comb hold the same traces of the nodes ids, and nothing of the
// other layout.
func compareLayouts(t *testing.T, per, comb string, ids []protocol.NodeID) {
	t.Helper()
	if _, err := os.Stat(trace.NodesFile(per)); !os.IsNotExist(err) {
		t.Errorf("per-node directory holds %s: %v", trace.NodesFileName, err)
	}
	if stale, _ := filepath.Glob(filepath.Join(comb, "node-*.jsonl")); len(stale) > 0 {
		t.Errorf("combined directory holds node files: %v", stale)
	}
	// The run files differ only by the scenario's trace.layout, in the
	// header.
	a, _ := os.ReadFile(trace.RunFile(per))
	b, err := os.ReadFile(trace.RunFile(comb))
	_, a, _ = bytes.Cut(a, []byte("\n"))
	_, b, _ = bytes.Cut(b, []byte("\n"))
	if err != nil || len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("run files differ (%v)", err)
	}
	all, err := os.ReadFile(trace.NodesFile(comb))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(all, []byte("\n"))
	if len(lines[len(lines)-1]) != 0 {
		t.Fatalf("nodes.jsonl does not end with a newline")
	}
	lines = lines[:len(lines)-1]
	byNode := map[protocol.NodeID][]byte{}
	var last int64
	for i, l := range lines {
		var e struct {
			T    int64           `json:"t"`
			Node protocol.NodeID `json:"node"`
			Ev   string          `json:"ev"`
		}
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("nodes.jsonl:%d: %v", i+1, err)
		}
		switch {
		case i < len(ids):
			if e.Ev != trace.EvHeader || e.Node != ids[i] {
				t.Fatalf("nodes.jsonl:%d: %s of node %d, want the header of node %d", i+1, e.Ev, e.Node, ids[i])
			}
		case e.Ev == trace.EvHeader:
			t.Fatalf("nodes.jsonl:%d: a header after the events began", i+1)
		case e.T < last:
			t.Fatalf("nodes.jsonl:%d: time %d after %d", i+1, e.T, last)
		}
		last = e.T
		byNode[e.Node] = append(byNode[e.Node], l...)
	}
	if len(byNode) != len(ids) {
		t.Errorf("nodes.jsonl holds %d nodes, want %d", len(byNode), len(ids))
	}
	for _, id := range ids {
		want, err := os.ReadFile(trace.NodeFile(per, id))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(byNode[id], want) {
			t.Errorf("node %d: its lines of nodes.jsonl differ from node-%d.jsonl (%d and %d bytes)", id, id, len(byNode[id]), len(want))
		}
	}
}

// checkRecording checks that rec holds exactly the files names of dir, as
// they are on disk.
func checkRecording(t *testing.T, rec *trace.Recording, dir string, names []string) {
	t.Helper()
	got, err := rec.Names(dir)
	if err != nil || !slices.Equal(got, names) {
		t.Fatalf("recorded files %v (%v), want %v", got, err, names)
	}
	type line struct {
		n int
		e trace.Event
	}
	scan := func(src trace.Source, path string) []line {
		var out []line
		if _, err := src.ScanEvents(path, nil, func(e *trace.Event, n int) error {
			out = append(out, line{n, *e})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if size, err := rec.Size(path); err != nil || size != fi.Size() {
			t.Errorf("%s: recorded size %d (%v), on disk %d", name, size, err, fi.Size())
		}
		if a, b := scan(rec, path), scan(trace.Disk, path); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: the recording replays %d lines, the file holds %d, or they differ", name, len(a), len(b))
		}
	}
}
