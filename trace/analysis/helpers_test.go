package analysis

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"manetlab/protocol"
	"manetlab/trace"
)

// writeTrace writes a header for node id of run, then evs, to path.
func writeTrace(t *testing.T, path, run string, id protocol.NodeID, scenario string, evs ...trace.Event) {
	t.Helper()
	h := trace.Event{Ev: trace.EvHeader, Node: id, Schema: trace.Schema, Run: run, Driver: "node", Protocol: "test", Scenario: scenario}
	writeEvents(t, path, append([]trace.Event{h}, evs...)...)
}

// writeEvents writes evs to path.
func writeEvents(t *testing.T, path string, evs ...trace.Event) {
	t.Helper()
	w, err := trace.Create(path, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// appendRaw appends raw text to the file at path.
func appendRaw(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// readLines decodes a JSON-lines file written by Merge.
func readLines(t *testing.T, path string) []trace.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []trace.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e trace.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("merged output line %d: %v", len(out)+1, err)
		}
		out = append(out, e)
	}
	return out
}
