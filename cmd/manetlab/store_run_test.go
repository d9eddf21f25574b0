package main

import (
	"slices"
	"testing"

	"manetlab/protocol"
	_ "manetlab/protocol/protocoltest/bootcount" // registers test/boots
	"manetlab/trace"
)

// TestRunStoreSurvivesKill runs real node processes whose node 2 the
// launcher kills and restarts twice: the restarted processes read the
// store the killed ones wrote, as the simulator's nodes do.
func TestRunStoreSurvivesKill(t *testing.T) {
	if !realProcesses(t) {
		return
	}
	dir := t.TempDir()
	path := writeRunScenario(t, 3, "6s", "protocol: {name: test/boots}\n"+
		"faults: [{at: 1500ms, crash: [2]}, {at: 2500ms, recover: [2]}, {at: 3500ms, crash: [2]}, {at: 4500ms, recover: [2]}]\n")
	if _, err := runCLI(t, "run", path, "--out", dir, "--quiet"); err != nil {
		t.Fatal(err)
	}
	want := map[protocol.NodeID][]string{1: {"boots=1"}, 2: {"boots=1", "boots=2", "boots=3"}, 3: {"boots=1"}}
	for id, w := range want {
		var got []string
		if _, err := trace.ScanEvents(trace.NodeFile(dir, id), func(ev string) bool { return ev == string(protocol.NoteInfo) },
			func(e *trace.Event, _ int) error { got = append(got, e.Text); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, w) {
			t.Errorf("node %d noted %q, want %q", id, got, w)
		}
	}
}
