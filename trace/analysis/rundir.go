package analysis

import (
	"manetlab/protocol"
	"manetlab/trace"
)

// ReadDir reads the run directory dir with the analyses' reader (load:
// the run file, then every node-<id>.jsonl or the combined node file,
// each line judged by the one set of rules for headers, hostile input,
// duplicates and missing nodes) and keeps every accepted event. It is an
// error only when the run file is missing, unreadable or has no usable
// header, because nothing else can be checked without it; everything
// else not accepted is a Problem.
func ReadDir(dir string) (*trace.Run, error) {
	nodes := map[protocol.NodeID][]trace.Event{}
	run, r, err := walkDir(dir, nil, func(id protocol.NodeID, e *trace.Event) {
		nodes[id] = append(nodes[id], *e)
	})
	if err != nil {
		return nil, err
	}
	for id := range r.byID {
		if nodes[id] == nil {
			nodes[id] = []trace.Event{}
		}
	}
	run.Nodes = nodes
	return run, nil
}

// WalkDir reads the run directory dir as ReadDir does, but hands the
// accepted events of every usable node to fn (node by node, in ID order,
// each in its order; in the combined layout in nodes.jsonl's order)
// instead of keeping them, so that runs larger than memory can be read.
// keep, when not nil, selects the event types fn sees. The returned Run
// has no Nodes.
func WalkDir(dir string, keep func(ev string) bool, fn func(id protocol.NodeID, e *trace.Event)) (*trace.Run, error) {
	run, _, err := walkDir(dir, keep, fn)
	return run, err
}

func walkDir(dir string, keep func(ev string) bool, fn func(id protocol.NodeID, e *trace.Event)) (*trace.Run, *run, error) {
	var runEvents []trace.Event
	r, err := load([]string{dir}, loadOptions{keep: keep, discard: true, visit: func(id protocol.NodeID, e *trace.Event) {
		if id == protocol.None {
			runEvents = append(runEvents, *e)
			return
		}
		fn(id, e)
	}})
	if err != nil {
		return nil, nil, err
	}
	return &trace.Run{Dir: dir, Header: r.header, RunEvents: runEvents, Problems: r.problems}, r, nil
}
