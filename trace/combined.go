package trace

import (
	"fmt"
	"slices"

	"manetlab/protocol"
)

// walkCombined reads the combined node file (NodesFileName) in one scan,
// handing each node's events to fn as walkNode does for a node file: the
// lines of node N, taken in file order, are judged exactly as if they
// were node-N.jsonl (docs/trace.md, "The combined layout"). A node's
// first line must be its header; a node whose first line is not an
// acceptable header, or that is not in the scenario, is reported at that
// line and its lines skipped; a second header of a node is reported and
// skipped; a line of no node (node 0) is reported and skipped. Problems
// name nodes.jsonl:LINE and are in line order. Nodes' events are handed
// to fn interleaved, in file order: each node's in its own order.
func (r *Run) walkCombined(keep func(string) bool, fn func(protocol.NodeID, *Event)) {
	path := NodesFile(r.Dir)
	withHeader := keep
	if keep != nil {
		withHeader = func(ev string) bool { return ev == EvHeader || keep(ev) }
	}
	src := r.src
	if src == nil {
		src = Disk
	}
	why := map[protocol.NodeID]string{} // every node read; "" while usable
	var own []Problem
	any := false
	probs, err := src.ScanEvents(path, withHeader, func(e *Event, line int) error {
		any = true
		id := e.Node
		if id == protocol.None {
			own = append(own, Problem{path, line, MsgNoNode})
			return nil
		}
		w, seen := why[id]
		if !seen {
			w = r.headerProblem(e, id)
			if w == "" && r.screen != nil && !r.screen.Member(id) {
				w = fmt.Sprintf("node %d is not in the run's scenario", id)
			}
			why[id] = w
			if w != "" {
				own = append(own, Problem{path, line, NodeSkipped(id, w)})
			}
			return nil
		}
		if w != "" {
			return nil
		}
		if e.Ev == EvHeader {
			own = append(own, Problem{path, line, fmt.Sprintf("a second header of node %d; skipped", id)})
			return nil
		}
		if r.screen.NodeEvent(path, id, line, e, &own) {
			fn(id, e)
		}
		return nil
	})
	start := len(r.Problems)
	r.Problems = append(r.Problems, probs...)
	r.Problems = append(r.Problems, own...)
	slices.SortStableFunc(r.Problems[start:], func(a, b Problem) int { return a.Line - b.Line })
	switch {
	case err != nil:
		r.Problems = append(r.Problems, Problem{path, 0, err.Error() + "; file skipped"})
		return
	case !any:
		r.Problems = append(r.Problems, Problem{path, 0, "no events, not even a header; file skipped"})
		return
	}
	ids := make([]protocol.NodeID, 0, len(why))
	for id, w := range why {
		if w == "" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		r.screen.FinishNode(path, id, &r.Problems)
		r.usable[id] = true
	}
}

// MsgNoNode is the problem of a line of the combined node file that
// names no node.
const MsgNoNode = "a line of no node (node 0) in " + NodesFileName + "; skipped"

// NodeSkipped is the problem of a node of the combined node file whose
// first line is not an acceptable header (why): its lines are skipped,
// as a node file with such a header is.
func NodeSkipped(id protocol.NodeID, why string) string {
	return fmt.Sprintf("node %d: %s; its lines skipped", id, why)
}

// MissingInCombined is the problem of a node the run file speaks of that
// has no usable line in the combined node file.
func MissingInCombined(id protocol.NodeID) string {
	return fmt.Sprintf("node %d appears in %s but has no usable lines in %s", id, RunFileName, NodesFileName)
}
