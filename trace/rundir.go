package trace

import (
	"errors"
	"fmt"
	"io/fs"
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

// NodesFileName is the combined node file of the simulator's combined
// layout (docs/trace.md): every node's header, in ascending node order,
// then every node's events in the order the simulator produced them. A
// run directory holds either it or node-<id>.jsonl files, never both.
const NodesFileName = "nodes.jsonl"

// NodesFile is the path of the combined node file in the run directory dir.
func NodesFile(dir string) string { return filepath.Join(dir, NodesFileName) }

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

	usable map[protocol.NodeID]bool // nodes whose file was accepted
	src    Source                   // where the files are read (nil: Disk)
	screen *Screen                  // nil: nothing screened
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
// node-<id>.jsonl, or the combined node file nodes.jsonl (walkCombined). It is an error only when the run file is missing,
// unreadable or has no usable header, because nothing else can be checked
// without it. A node file without a usable header, of a schema this reader
// does not know, of another run, or whose header names another node than
// its file name is reported as a Problem and skipped. A node that appears
// in the run file but has no node file is reported too.
func ReadDir(dir string) (*Run, error) {
	nodes := map[protocol.NodeID][]Event{}
	run, err := WalkDir(dir, nil, func(id protocol.NodeID, e *Event) {
		nodes[id] = append(nodes[id], *e)
	})
	if err != nil {
		return nil, err
	}
	for id := range run.usable {
		if nodes[id] == nil {
			nodes[id] = []Event{}
		}
	}
	run.Nodes = nodes
	return run, nil
}

// WalkDir reads the run directory dir as ReadDir does, but hands the events
// of every usable node file to fn (node by node, in ID order, in file
// order; in the combined layout, nodes.jsonl's lines in file order, each
// node's in its own order) instead of keeping them, so that runs larger than memory can be
// analysed. keep, when not nil, selects the event types fn sees (headers
// are always checked). The returned Run has no Nodes.
func WalkDir(dir string, keep func(ev string) bool, fn func(id protocol.NodeID, e *Event)) (*Run, error) {
	return WalkDirScreen(dir, keep, nil, fn)
}

// WalkDirScreen is WalkDir with hostile input screened (Screen): screen,
// given the run header, returns the screen to apply (nil: none). Events it
// refuses are not handed to fn nor kept in RunEvents, and its problems are
// in Problems.
func WalkDirScreen(dir string, keep func(ev string) bool, screen func(h *Event) *Screen, fn func(id protocol.NodeID, e *Event)) (*Run, error) {
	return WalkSource(Disk, dir, keep, screen, fn)
}

// WalkSource is WalkDirScreen over the files of src.
func WalkSource(src Source, dir string, keep func(ev string) bool, screen func(h *Event) *Screen, fn func(id protocol.NodeID, e *Event)) (*Run, error) {
	if err := StatDir(dir); err != nil {
		return nil, err
	}
	run := &Run{Dir: dir, usable: map[protocol.NodeID]bool{}, src: src}
	runPath := RunFile(dir)
	var evs []Event
	var lines []int
	probs, err := src.ScanEvents(runPath, nil, func(e *Event, line int) error {
		evs, lines = append(evs, *e), append(lines, line)
		return nil
	})
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
	run.Header = evs[0]
	if screen != nil {
		run.screen = screen(&run.Header)
	}
	for i := 1; i < len(evs); i++ {
		if run.screen.Event(runPath, lines[i], &evs[i], &run.Problems) {
			run.RunEvents = append(run.RunEvents, evs[i])
		}
	}
	run.screen.Finish(runPath, &run.Problems)

	ids, combined, err := nodeFiles(dir, run)
	if err != nil {
		return nil, err
	}
	if combined {
		run.walkCombined(keep, fn)
	}
	for _, id := range ids {
		run.walkNode(id, keep, fn)
	}
	run.reportMissing(combined)
	return run, nil
}

// nodeFiles lists the node IDs that have a file, sorted, reporting files
// named node-*.jsonl whose ID does not parse. When the directory holds the
// combined node file it says so and lists no node file: those beside it
// are reported (BesideCombined) and skipped.
func nodeFiles(dir string, run *Run) ([]protocol.NodeID, bool, error) {
	src := run.src
	if src == nil {
		src = Disk
	}
	names, err := src.Names(dir)
	if err != nil {
		return nil, false, fmt.Errorf("run directory %s: %w", dir, err)
	}
	ids, probs := NodeFileIDs(dir, names)
	run.Problems = append(run.Problems, probs...)
	if slices.Contains(names, NodesFileName) {
		if p, ok := BesideCombined(dir, ids); ok {
			run.Problems = append(run.Problems, p)
		}
		return nil, true, nil
	}
	return ids, false, nil
}

// NodeFileIDs lists the node IDs of the node-<id>.jsonl files among the
// names of dir's entries, sorted, with a problem for each file so named
// whose ID does not parse.
func NodeFileIDs(dir string, names []string) ([]protocol.NodeID, []Problem) {
	var ids []protocol.NodeID
	var probs []Problem
	for _, name := range names {
		num, ok := strings.CutPrefix(name, "node-")
		if !ok {
			continue
		}
		if num, ok = strings.CutSuffix(num, ".jsonl"); !ok {
			continue
		}
		id, err := strconv.ParseUint(num, 10, 32)
		if err != nil || id == 0 || strconv.FormatUint(id, 10) != num {
			probs = append(probs, Problem{filepath.Join(dir, name), 0, "not a node ID in the file name; skipped"})
			continue
		}
		ids = append(ids, protocol.NodeID(id))
	}
	slices.Sort(ids)
	return ids, probs
}

// BesideCombined is the problem of node files found beside the combined
// node file (ids, not empty): the reader uses nodes.jsonl and skips them
// (docs/trace.md, "The combined layout").
func BesideCombined(dir string, ids []protocol.NodeID) (Problem, bool) {
	if len(ids) == 0 {
		return Problem{}, false
	}
	names := ""
	for k, id := range ids {
		if k == 3 {
			names += fmt.Sprintf(" and %d more", len(ids)-3)
			break
		}
		if k > 0 {
			names += ", "
		}
		names += filepath.Base(NodeFile(dir, id))
	}
	return Problem{NodesFile(dir), 0, fmt.Sprintf("node files beside it (%s) skipped: a run directory holds %s or node files, not both", names, NodesFileName)}, true
}

// walkNode checks node id's header and hands its events to fn, or records
// why the file is skipped.
func (r *Run) walkNode(id protocol.NodeID, keep func(string) bool, fn func(protocol.NodeID, *Event)) {
	path := NodeFile(r.Dir, id)
	first, why := true, ""
	withHeader := keep
	if keep != nil {
		withHeader = func(ev string) bool { return ev == EvHeader || keep(ev) }
	}
	var screened []Problem
	src := r.src
	if src == nil {
		src = Disk
	}
	probs, err := src.ScanEvents(path, withHeader, func(e *Event, line int) error {
		if first {
			first = false
			why = r.headerProblem(e, id)
			if why == "" && r.screen != nil && !r.screen.Member(id) {
				why = fmt.Sprintf("node %d is not in the run's scenario", id)
			}
			return nil
		}
		// A skipped file is still read to the end, so that its damage
		// is reported too.
		if e.Ev == EvHeader {
			screened = append(screened, Problem{path, line, "a second header; skipped"})
			return nil
		}
		if why == "" && r.screen.Event(path, line, e, &screened) {
			fn(id, e)
		}
		return nil
	})
	r.Problems = append(r.Problems, probs...)
	if why == "" {
		r.Problems = append(r.Problems, screened...)
		slices.SortStableFunc(r.Problems[len(r.Problems)-len(probs)-len(screened):], func(a, b Problem) int { return a.Line - b.Line })
		r.screen.Finish(path, &r.Problems)
	}
	switch {
	case err != nil:
		why = err.Error()
	case err == nil && first:
		why = "no events, not even a header"
	}
	if why != "" {
		r.Problems = append(r.Problems, Problem{path, 0, why + "; file skipped"})
		return
	}
	r.usable[id] = true
}

// headerProblem says why a node file's first event is not an acceptable
// header for node id of this run, or "".
func (r *Run) headerProblem(h *Event, id protocol.NodeID) string {
	switch {
	case h.Ev != EvHeader:
		return fmt.Sprintf("the first event is %q, not a %q", h.Ev, EvHeader)
	case checkSchema(h) != "":
		return checkSchema(h)
	case h.Run != r.Header.Run:
		return fmt.Sprintf("run %q, not %q of %s (a file left from another run?)", h.Run, r.Header.Run, RunFileName)
	case h.Node != id:
		return fmt.Sprintf("the header is node %d's, not node %d's", h.Node, id)
	}
	return ""
}

// reportMissing names nodes the run file speaks of that have no node
// events at all: a lost or uncollected trace.
func (r *Run) reportMissing(combined bool) {
	seen := map[protocol.NodeID]bool{}
	var missing []protocol.NodeID
	for i := range r.RunEvents {
		id := r.RunEvents[i].Node
		if id == protocol.None || seen[id] {
			continue
		}
		seen[id] = true
		if !r.usable[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	for _, id := range missing {
		if combined {
			r.Problems = append(r.Problems, Problem{NodesFile(r.Dir), 0, MissingInCombined(id)})
			continue
		}
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
