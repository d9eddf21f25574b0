package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncBadInputNamesTheField: the bad inputs of issue 12, each a small
// scenario given to `manetlab sim`, are refused before anything runs with
// an error naming the field: wake naming a node that is not a member or
// round 0, a synchronizer that does not exist, abd without d, and IDs that
// are not positive (TimeSlice starts ID k in phase k: the scenario loader
// refuses a negative ID, and an ID 0 in nodes.list means "the position +
// 1", so a clash is refused too; synchronous's unit tests cover
// TimeSlice's own check).
func TestSyncBadInputNamesTheField(t *testing.T) {
	const nodes = "nodes: {count: 3, values: id, placement: ring}\n"
	for _, c := range []struct{ what, nodes, proto, want string }{
		{"wake names a non-member", nodes, "{name: sync/timeslice, params: {wake: {9: 1}}}", "protocol.params.wake: 9 is not a member"},
		{"wake at round 0", nodes, "{name: sync/slow-fast, params: {wake: {1: 1, 2: 0}}}", "protocol.params.wake: node 2 wakes at round 0, not a round (rounds begin at 1)"},
		{"wake not a map", nodes, "{name: sync/bfs, params: {wake: [1, 2]}}", "protocol.params.wake: [1 2] is not a map"},
		{"unknown synchronizer", nodes, "{name: sync/bfs, params: {synchronizer: gamma}}", "protocol.params.synchronizer: gamma is not a synchronizer (known: simple, alpha, beta, abd, none)"},
		{"abd without d", nodes, "{name: sync/timeslice, params: {synchronizer: abd}}", "protocol.params.d: the abd synchronizer needs d"},
		{"abd with a bad d", nodes, "{name: sync/timeslice, params: {synchronizer: abd, d: soon}}", "protocol.params.d"},
		{"negative ID", "nodes: {list: [{id: -1}, {id: 2}]}\n", "{name: sync/timeslice}", "nodes.list[0].id"},
		{"ID 0 clashes", "nodes: {list: [{id: 0}, {id: 1}]}\n", "{name: sync/timeslice}", "nodes.list[1].id: 1 is given twice"},
		{"bad first_phase", nodes, "{name: sync/timeslice, params: {first_phase: 2}}", "protocol.params.first_phase"},
		{"bad root", nodes, "{name: sync/bfs, params: {root: 7}}", "protocol.params.root: 7 is not a member of the run"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "bad.yaml")
		y := "name: bad\nseed: 1\nduration: 5s\n" + c.nodes + "mobility: {model: static}\nprotocol: " + c.proto + "\n"
		if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := runCLI(t, "sim", path, "--quiet", "--out", filepath.Join(dir, "runs"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.what, err, c.want)
		}
		if _, statErr := os.Stat(filepath.Join(dir, "runs")); statErr == nil {
			t.Errorf("%s: a run directory was made", c.what)
		}
	}
}
