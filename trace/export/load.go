// Package export writes a run's traces in the formats of existing
// viewers: ShiViz logs (vector clocks computed offline), ns-3 NetAnim
// XML and Parquet. All read the run through analysis.MergeEach, one
// event at a time without holding them, so events come in one
// causal order with every receive after its send, and damaged input is
// reported (file:line) and skipped. docs/collect.md documents the output.
//
// It imports trace, trace/analysis, scenario, mobility, protocol and
// internal/geo.
package export

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// Options select what is exported.
type Options struct {
	// Nodes, when not empty, keeps only these nodes.
	Nodes []protocol.NodeID
	// From and To keep events with From <= t < To (driver time since the
	// run's start); To zero means the end of the run.
	From, To time.Duration
	// Problems receives trace problems as file:line: message lines; nil
	// discards them.
	Problems io.Writer
	// Step is NetAnim's position sampling period (default 1s).
	Step time.Duration
}

// Report says what an export wrote.
type Report struct {
	Events  int `json:"events"`            // ShiViz: events written
	Hosts   int `json:"hosts"`             // hosts (ShiViz) or nodes (NetAnim) written
	Packets int `json:"packets,omitempty"` // NetAnim: transmissions written (<pr>)
	// Receptions counts NetAnim's <wpr> elements, one per matched
	// send->recv pair written.
	Receptions int `json:"receptions,omitempty"`
	// Edges counts the send->receive pairs inside the selection.
	Edges int `json:"edges"`
	// ClockRepaired counts NetAnim packets whose receive time was not
	// after the send's (skewed clocks) and was moved just after it.
	ClockRepaired int `json:"clock_repaired,omitempty"`
	Problems      int `json:"problems"`
}

// each merges dirs and hands fn every merged event but the run's header
// (header, when not nil, gets that first), in the merge's order, with
// whether it comes from run.jsonl rather than a node file; the event is
// valid only during the call. Nothing of the run is held. It then
// reports the merge's problems.
func each(dirs []string, opt Options, rep *Report, header func(h *trace.Event), fn func(e *trace.Event, runFile bool)) error {
	first := true
	mr, err := analysis.MergeEach(dirs, func(e *trace.Event) {
		if first {
			if first = false; header != nil {
				header(e)
			}
			return
		}
		file := e.Src
		if i := strings.LastIndexByte(file, ':'); i >= 0 {
			file = file[:i]
		}
		fn(e, filepath.Base(file) == trace.RunFileName)
	})
	if err != nil {
		return err
	}
	reportProblems(mr, opt, rep)
	return nil
}

// reportProblems counts the merge's problems and writes them to
// opt.Problems.
func reportProblems(mr *analysis.MergeReport, opt Options, rep *Report) {
	for _, p := range mr.Problems {
		rep.Problems++
		if opt.Problems != nil {
			fmt.Fprintln(opt.Problems, p)
		}
	}
}

// filter is the node and time selection.
type filter struct {
	nodes    map[protocol.NodeID]bool
	from, to int64
}

func newFilter(opt Options) filter {
	f := filter{from: int64(opt.From), to: int64(opt.To)}
	if len(opt.Nodes) > 0 {
		f.nodes = map[protocol.NodeID]bool{}
		for _, id := range opt.Nodes {
			f.nodes[id] = true
		}
	}
	return f
}

func (f filter) node(id protocol.NodeID) bool { return f.nodes == nil || f.nodes[id] }

func (f filter) time(t int64) bool { return t >= f.from && (f.to <= 0 || t < f.to) }

func (f filter) keep(e *trace.Event) bool { return f.node(e.Node) && f.time(e.T) }

// msgKey names a frame (sender, seq) or a multi-hop message (origin, oseq).
type msgKey struct {
	node protocol.NodeID
	seq  uint64
}

// matcher pairs receives with sends as analysis.Merge does: by (from,
// seq), else the originator's send by (origin, oseq); in merge order the
// latest such send seen so far is the one.
type matcher[T any] struct {
	sends, origins map[msgKey]T
}

func newMatcher[T any]() *matcher[T] {
	return &matcher[T]{sends: map[msgKey]T{}, origins: map[msgKey]T{}}
}

func (m *matcher[T]) send(e *trace.Event, v T) {
	m.sends[msgKey{e.Node, e.Seq}] = v
	if e.Ev == trace.EvSend && e.Origin == e.Node && e.OSeq != 0 {
		m.origins[msgKey{e.Origin, e.OSeq}] = v
	}
}

func (m *matcher[T]) recv(e *trace.Event) (T, bool) {
	if v, ok := m.sends[msgKey{e.From, e.Seq}]; ok && e.From != protocol.None {
		return v, true
	}
	if e.Origin != protocol.None {
		v, ok := m.origins[msgKey{e.Origin, e.OSeq}]
		return v, ok
	}
	var zero T
	return zero, false
}

func isSend(e *trace.Event) bool { return e.Ev == trace.EvSend || e.Ev == trace.EvRelay }

// sortedIDs returns the keys of m in ascending order.
func sortedIDs[V any](m map[protocol.NodeID]V) []protocol.NodeID {
	ids := make([]protocol.NodeID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
