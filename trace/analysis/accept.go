package analysis

// The rules for accepting a node's lines, written once for every reader
// of a run: load's (readFile, readCombined), the merge's index of the
// sends and its pull cursor (streamindex.go, streamread.go), and the
// rescan of a process's lines for duplicates (dedup.go).

import (
	"fmt"

	"manetlab/protocol"
	"manetlab/trace"
)

// nodeHeader judges e, the first line of node id's trace (its node file,
// or its first line in the combined node file): why it does not start a
// trace this run can use (not a header of this run and node, or a node
// not in the scenario; member says which), or "", recording the node's
// host and scenario hash. id 0 is the run file: only the header counts.
func (r *run) nodeHeader(e *trace.Event, id protocol.NodeID) (why string, member bool) {
	if why = r.headerProblem(e, id); why != "" || id == protocol.None {
		return why, false
	}
	if !r.screen.Member(id) {
		return fmt.Sprintf("node %d is not in the run's scenario", id), true
	}
	if e.Host != "" {
		r.hosts[id] = e.Host
	}
	if e.ScenarioHash != "" {
		r.hashes[id] = e.ScenarioHash
	}
	return "", false
}

// nodeLine judges a line of process id after its header, at path:line
// (combined: a line of the combined node file): a second header, an
// event of another node in a node file, and what the screen refuses are
// skipped, with a problem in *probs. With probs nil nothing is recorded
// (a second reading of the same lines), for the same judgement. It may
// correct e as the screen does.
func (r *run) nodeLine(path string, id protocol.NodeID, combined bool, line int, e *trace.Event, probs *[]trace.Problem) bool {
	problem := func(format string, args ...any) bool {
		if probs != nil {
			*probs = append(*probs, trace.Problem{File: path, Line: line, Msg: fmt.Sprintf(format, args...)})
		}
		return false
	}
	switch {
	case e.Ev == trace.EvHeader && combined:
		return problem("a second header of node %d; skipped", id)
	case e.Ev == trace.EvHeader:
		return problem("a second header; skipped")
	case !combined && id != protocol.None && e.Node != id:
		return problem("event of node %d in node %d's file; skipped", e.Node, id)
	case probs == nil:
		if e.Bytes < 0 || e.Bytes > trace.MaxBytes {
			e.Bytes = 0 // as the screen counts it
		}
		return r.screen.Accepts(e)
	case combined:
		return r.screen.NodeEvent(path, id, line, e, probs)
	}
	return r.screen.Event(path, line, e, probs)
}

// combinedLine judges a line of the combined node file at path:line:
// a line of no node is skipped; a node's first line is its header
// (nodeHeader, its verdict kept in why); the lines of a usable node after
// it are judged by nodeLine. ok: an event of a usable node, to be taken.
// With probs nil nothing is recorded, as for nodeLine.
func (r *run) combinedLine(path string, why *trace.IDMap[string], line int, e *trace.Event, probs *[]trace.Problem) bool {
	id := e.Node
	add := func(msg string) {
		if probs != nil {
			*probs = append(*probs, trace.Problem{File: path, Line: line, Msg: msg})
		}
	}
	if id == protocol.None {
		add(msgNoNode)
		return false
	}
	w, seen := why.Get(id)
	if !seen {
		w, _ = r.nodeHeader(e, id)
		why.Set(id, w)
		if w != "" {
			add(nodeSkipped(id, w))
		}
		return false
	}
	return w == "" && r.nodeLine(path, id, true, line, e, probs)
}
