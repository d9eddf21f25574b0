package analysis

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"manetlab/protocol"
	"manetlab/trace"
)

// readCombined reads the combined node file (trace.NodesFileName) in one
// scan, handing each node's lines to its process as readFile does for a
// node file: node N's lines, in file order, are judged exactly as if they
// were node-N.jsonl (docs/trace.md, "The combined layout"), except that
// problems name nodes.jsonl:LINE, and are in line order.
func (r *run) readCombined(path string, opt loadOptions) {
	fi := int32(len(r.files))
	r.files = append(r.files, path)
	keep := opt.keep
	if keep != nil {
		keep = func(ev string) bool { return ev == trace.EvHeader || opt.keep(ev) }
	}
	type node struct {
		pr   *proc
		kept []event
	}
	var nodes trace.IDMap[*node]
	var why trace.IDMap[string] // every node read; "" while usable
	before := len(r.problems)
	any := false
	prog := newCount("reading "+trace.NodesFileName, linesUnit)
	probs, err := r.fsrc.ScanEvents(path, keep, func(e *trace.Event, line int) error {
		any = true
		prog.set(int64(line))
		if !r.combinedLine(path, &why, line, e, &r.problems) {
			return nil
		}
		n, _ := nodes.Get(e.Node)
		if n == nil {
			n = &node{pr: r.byID[e.Node]}
			if n.pr == nil {
				n.pr = &proc{id: e.Node}
			}
			nodes.Set(e.Node, n)
		}
		if ce, ok := r.take(n.pr, e, segment{fi, true}, keep, line, opt); ok {
			n.kept = append(n.kept, ce)
		}
		return nil
	})
	r.problems = append(r.problems, probs...)
	slices.SortStableFunc(r.problems[before:], func(a, b trace.Problem) int { return a.Line - b.Line })
	switch {
	case err != nil:
		r.problems = append(r.problems, trace.Problem{File: path, Msg: err.Error() + "; file skipped"})
		return
	case !any:
		r.problems = append(r.problems, trace.Problem{File: path, Msg: "no events, not even a header; file skipped"})
		return
	}
	var ids []protocol.NodeID
	why.Each(func(id protocol.NodeID, w string) {
		if w == "" {
			ids = append(ids, id)
		}
	})
	slices.Sort(ids)
	for _, id := range ids {
		n, _ := nodes.Get(id)
		if n == nil { // a header and nothing else
			n = &node{pr: r.byID[id]}
			if n.pr == nil {
				n.pr = &proc{id: id}
			}
		}
		r.screen.FinishNode(path, id, &r.problems)
		switch {
		case len(n.pr.evs) > 0:
			n.pr.evs = append(n.pr.evs, n.kept...)
		case n.kept != nil:
			n.pr.evs = n.kept // not copied: a large run's events are most of the memory
		default:
			n.pr.evs = []event{}
		}
		n.pr.segs = append(n.pr.segs, segment{fi, true})
		r.byID[id] = n.pr
	}
}

// msgNoNode is the problem of a line of the combined node file that
// names no node.
const msgNoNode = "a line of no node (node 0) in " + trace.NodesFileName + "; skipped"

// nodeSkipped is the problem of a node of the combined node file whose
// first line is not an acceptable header (why): its lines are skipped,
// as a node file with such a header is.
func nodeSkipped(id protocol.NodeID, why string) string {
	return fmt.Sprintf("node %d: %s; its lines skipped", id, why)
}

// missingInCombined is the problem of a node the run file speaks of that
// has no usable line in the combined node file.
func missingInCombined(id protocol.NodeID) string {
	return fmt.Sprintf("node %d appears in %s but has no usable lines in %s", id, trace.RunFileName, trace.NodesFileName)
}

// nodeFileIDs lists the node IDs of the node-<id>.jsonl files among the
// names of dir's entries, sorted, with a problem for each file so named
// whose ID does not parse.
func nodeFileIDs(dir string, names []string) ([]protocol.NodeID, []trace.Problem) {
	var ids []protocol.NodeID
	var probs []trace.Problem
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
			probs = append(probs, trace.Problem{File: filepath.Join(dir, name), Msg: "not a node ID in the file name; skipped"})
			continue
		}
		ids = append(ids, protocol.NodeID(id))
	}
	slices.Sort(ids)
	return ids, probs
}

// besideCombined is the problem of node files found beside the combined
// node file (ids, not empty): the reader uses nodes.jsonl and skips them
// (docs/trace.md, "The combined layout").
func besideCombined(dir string, ids []protocol.NodeID) (trace.Problem, bool) {
	if len(ids) == 0 {
		return trace.Problem{}, false
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
		names += filepath.Base(trace.NodeFile(dir, id))
	}
	return trace.Problem{File: trace.NodesFile(dir), Msg: fmt.Sprintf("node files beside it (%s) skipped: a run directory holds %s or node files, not both", names, trace.NodesFileName)}, true
}
