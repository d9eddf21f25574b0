package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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

// Run is a run directory as read by ReadDir.
type Run struct {
	Dir string
	// Header is the run file's header; Header.Scenario holds the scenario.
	Header Event
	// RunEvents are the run file's events after the header.
	RunEvents []Event
	// Nodes holds each node file's events after its header.
	Nodes map[protocol.NodeID][]Event
	// Problems are everything that could not be read or was not accepted,
	// in a deterministic order: the run file's first, then the node files'
	// by ID, then nodes without a file.
	Problems []Problem
}

// NodeIDs are the nodes with a trace file, in increasing order.
func (r *Run) NodeIDs() []protocol.NodeID {
	ids := make([]protocol.NodeID, 0, len(r.Nodes))
	for id := range r.Nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ReadDir reads the run directory dir: the run file, then every
// node-<id>.jsonl. It is an error only when the run file is missing,
// unreadable or has no usable header, because nothing else can be checked
// without it. A node file without a usable header, of a schema this reader
// does not know, of another run, or whose header names another node than
// its file name is reported as a Problem and skipped. A node that appears
// in the run file but has no node file is reported too.
func ReadDir(dir string) (*Run, error) {
	run := &Run{Dir: dir, Nodes: map[protocol.NodeID][]Event{}}
	runPath := RunFile(dir)
	evs, probs, err := ReadFile(runPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run directory %s: %w: %w", dir, ErrNoRunFile, err)
	}
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	run.Problems = append(run.Problems, probs...)
	if len(evs) == 0 || evs[0].Ev != EvHeader {
		return nil, fmt.Errorf("%s: the first event is not a %q", runPath, EvHeader)
	}
	if msg := checkSchema(&evs[0]); msg != "" {
		return nil, fmt.Errorf("%s: %s", runPath, msg)
	}
	run.Header, run.RunEvents = evs[0], evs[1:]

	ids, err := nodeFiles(dir, run)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		run.readNode(id)
	}
	run.reportMissing()
	return run, nil
}

// nodeFiles lists the node IDs that have a file, sorted, reporting files
// named node-*.jsonl whose ID does not parse.
func nodeFiles(dir string, run *Run) ([]protocol.NodeID, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	var ids []protocol.NodeID
	for _, de := range entries {
		name := de.Name()
		num, ok := strings.CutPrefix(name, "node-")
		if !ok {
			continue
		}
		if num, ok = strings.CutSuffix(num, ".jsonl"); !ok {
			continue
		}
		id, err := strconv.ParseUint(num, 10, 32)
		if err != nil || id == 0 || NodeFile(dir, protocol.NodeID(id)) != filepath.Join(dir, name) {
			run.Problems = append(run.Problems, Problem{filepath.Join(dir, name), 0, "not a node ID in the file name; skipped"})
			continue
		}
		ids = append(ids, protocol.NodeID(id))
	}
	slices.Sort(ids)
	return ids, nil
}

// readNode reads node id's file into r.Nodes, or records why not.
func (r *Run) readNode(id protocol.NodeID) {
	path := NodeFile(r.Dir, id)
	evs, probs, err := ReadFile(path)
	r.Problems = append(r.Problems, probs...)
	skip := func(msg string) {
		r.Problems = append(r.Problems, Problem{path, 0, msg + "; file skipped"})
	}
	switch {
	case err != nil:
		skip(err.Error())
	case len(evs) == 0:
		skip("no events, not even a header")
	case evs[0].Ev != EvHeader:
		skip(fmt.Sprintf("the first event is %q, not a %q", evs[0].Ev, EvHeader))
	case checkSchema(&evs[0]) != "":
		skip(checkSchema(&evs[0]))
	case evs[0].Run != r.Header.Run:
		skip(fmt.Sprintf("run %q, not %q of %s (a file left from another run?)", evs[0].Run, r.Header.Run, RunFileName))
	case evs[0].Node != id:
		skip(fmt.Sprintf("the header is node %d's, not node %d's", evs[0].Node, id))
	default:
		r.Nodes[id] = evs[1:]
	}
}

// reportMissing names nodes the run file speaks of that have no node
// events at all: a lost or uncollected trace.
func (r *Run) reportMissing() {
	seen := map[protocol.NodeID]bool{}
	var missing []protocol.NodeID
	for i := range r.RunEvents {
		id := r.RunEvents[i].Node
		if id == protocol.None || seen[id] {
			continue
		}
		seen[id] = true
		if _, ok := r.Nodes[id]; !ok {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	for _, id := range missing {
		r.Problems = append(r.Problems, Problem{NodeFile(r.Dir, id), 0,
			fmt.Sprintf("node %d appears in %s but has no usable trace file", id, RunFileName)})
	}
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
