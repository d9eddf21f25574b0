package trace

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"manetlab/protocol"
)

// RunFileName is the run file inside a run directory: the header with the
// scenario, then run-wide events (position, crash, recover, end).
const RunFileName = "run.jsonl"

// RunFile is the path of the run file of the run directory dir.
func RunFile(dir string) string { return filepath.Join(dir, RunFileName) }

// NodeFile is the path of node id's trace file in the run directory dir:
// its header, then that node's events.
func NodeFile(dir string, id protocol.NodeID) string {
	return filepath.Join(dir, "node-"+strconv.FormatUint(uint64(id), 10)+".jsonl")
}

// NodesFileName is the combined node file of the simulator's combined
// layout (docs/trace.md): every node's header, in ascending node order,
// then every node's events in the order the simulator produced them. A
// run directory holds either it or node-<id>.jsonl files, never both.
const NodesFileName = "nodes.jsonl"

// NodesFile is the path of the combined node file in the run directory dir.
func NodesFile(dir string) string { return filepath.Join(dir, NodesFileName) }

// Run is a run directory as read by analysis.ReadDir and WalkDir.
type Run struct {
	Dir string
	// Header is the run file's header; Header.Scenario holds the scenario.
	Header Event
	// RunEvents are the run file's events after the header.
	RunEvents []Event
	// Nodes holds each usable node's events after its header.
	Nodes map[protocol.NodeID][]Event
	// Problems are everything that could not be read or was not accepted,
	// in a deterministic order: the run file's first, then the node files'
	// by ID, then nodes without a file.
	Problems []Problem
}

// NodeIDs are the nodes with a usable trace, in increasing order.
func (r *Run) NodeIDs() []protocol.NodeID {
	ids := make([]protocol.NodeID, 0, len(r.Nodes))
	for id := range r.Nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// checkSchema says what is wrong with a header's schema, or "".
func checkSchema(h *Event) string {
	switch {
	case h.Schema <= 0:
		return "the header has no schema"
	case h.Schema > Schema:
		return fmt.Sprintf("schema %d is newer than this reader's %d", h.Schema, Schema)
	}
	return ""
}

// ErrNoRunFile is wrapped by ReadDir's error when dir has no run file.
var ErrNoRunFile = errors.New("no " + RunFileName)

// ReadHeader reads only the header, the first line, of a trace file.
func ReadHeader(path string) (Event, error) {
	var h Event
	found := false
	_, err := Scan(path, func(e *Event, _ int) error {
		h, found = *e, true
		return errHeaderRead
	})
	return checkHeader(path, h, found, err)
}

// checkHeader checks what a header scan found.
func checkHeader(path string, h Event, found bool, err error) (Event, error) {
	if err != nil && !errors.Is(err, errHeaderRead) {
		return h, err
	}
	if !found || h.Ev != EvHeader {
		return h, fmt.Errorf("%s: the first event is not a %q", path, EvHeader)
	}
	if msg := checkSchema(&h); msg != "" {
		return h, fmt.Errorf("%s: %s", path, msg)
	}
	return h, nil
}

var errHeaderRead = errors.New("header read")
