package analysis

import (
	"slices"

	"manetlab/protocol"
	"manetlab/trace"
)

// AnalyzeOptions tune Analyze.
type AnalyzeOptions struct {
	Metrics MetricsOptions
	Check   CheckOptions
	// Visit, when not nil, is handed every event the analysis uses, as it
	// is read: all of the run file's (id 0) and, of every usable node
	// file (id the node), every event but position and unknown events
	// (parent notes and neighbour events are handed over), after the
	// screening of hostile input and the dropping of duplicates, each
	// node's in its own order. e is valid only during the call.
	Visit func(id protocol.NodeID, e *trace.Event)
	// Src holds the files (nil: trace.Disk). A trace.Recording must keep
	// every event type the checks read, receives included.
	Src trace.Source
}

// Analyze reads the run in dir once and returns what ComputeMetrics and
// Check return on it, handing every event it reads to opt.Visit: a page
// or a report that needs the metrics, the verdicts and events of its own
// reads the files once instead of once per analysis. The figures and
// verdicts are those of ComputeMetrics and Check; so are the problems
// when the input is sound. On damaged input both reports list the
// problems of the one read, which decodes the event types of both
// analyses: a damaged line of a type that one of them skips (a receive,
// for the metrics) is named in both reports.
func Analyze(dir string, opt AnalyzeOptions) (*MetricsReport, *CheckReport, error) {
	// Receives, most of a trace, are handed to the visitor but not kept:
	// the causal graph of mutual exclusion reads them again (readCausal).
	one, err := load([]string{dir}, loadOptions{keep: analyzeEvents, src: opt.Src, visit: opt.Visit, lean: true})
	if err != nil {
		return nil, nil, err
	}
	l := &loader{dir: dir, src: opt.Src, one: one, loss: &lossRead{msg: lostMessage(one)}}
	c, err := check(l, opt.Check)
	if err != nil {
		return nil, nil, err
	}
	// The checks are done with the one load: the metrics may take their
	// events out of it, freeing the rest (receives, most of a trace).
	l.last = true
	m, err := computeMetrics(l, opt.Metrics)
	if err != nil {
		return nil, nil, err
	}
	return m, c, nil
}

// analyzeEvents are the event types Analyze reads from node files: those
// of every analysis ComputeMetrics and Check run (readSets). Parent notes
// are the only events of no type of their own among them (evType tOther).
func analyzeEvents(ev string) bool {
	return checkEvents(ev) || ev == string(protocol.NoteParent)
}

// readSet names the event types one analysis reads from node files.
type readSet int

const (
	readMetrics readSet = iota // metricEvents
	readCheck                  // checkEvents
	readTree                   // treeEvents
	readRounds                 // roundsEvents
	readCausal                 // checkEvents with the receives: the causal graph
	readLoss                   // lossEvents: the drops (judged.go)
)

var readSets = [...]func(ev string) bool{
	readMetrics: metricEvents, readCheck: checkEvents, readTree: treeEvents, readRounds: roundsEvents, readCausal: checkEvents,
	readLoss: lossEvents,
}

// loader gives each analysis of one directory its run: loaded for it
// alone (ComputeMetrics, Check: each read of its own, as before), or a
// view of the one load of Analyze holding only the event types the
// analysis would have read, so that it computes exactly what it computes
// on its own load.
type loader struct {
	dir string
	// src holds the files of the metrics' own read and of every read of
	// Analyze (nil: trace.Disk); the other reads of ComputeMetrics and
	// Check are from disk, as they always were.
	src trace.Source
	one *run // Analyze's load; nil: every analysis loads its own
	// last: the metrics are the last analysis of one; their view is made
	// in place, dropping the other events (their mutual exclusion part
	// reads the receives again, readCausal).
	last bool
	// visit is handed the events of the metrics' own read.
	visit func(id protocol.NodeID, e *trace.Event)
	// loss is lostMessage of the run's drops, noted by a lean load or
	// read once (lost) for every analysis that weighs a bound or the
	// final state.
	loss *lossRead
}

// lossRead is a loader's one read of the drops.
type lossRead struct {
	msg string
	err error
}

// run returns the run for the analysis reading s.
func (l *loader) run(s readSet) (*run, error) {
	if l.one != nil && s != readCausal && s != readLoss { // Analyze's load is lean: no receives, no drops
		if s == readMetrics && l.last {
			l.one.shrink(readSets[s])
		}
		return l.one.view(readSets[s]), nil
	}
	var src trace.Source
	var visit func(protocol.NodeID, *trace.Event)
	if s == readMetrics || l.one != nil {
		src = l.src
	}
	if s == readMetrics {
		visit = l.visit
	}
	// The check's own read judges receives but keeps none (lean); only
	// the causal graph keeps them, and it is read again for them, only
	// for runs where two or more nodes enter the critical section.
	r, err := load([]string{l.dir}, loadOptions{keep: readSets[s], src: src, lean: s == readCheck, visit: visit})
	if err == nil && s == readCheck && l.loss == nil {
		l.loss = &lossRead{msg: lostMessage(r)} // the lean load notes the drops it does not keep
	}
	return r, err
}

// typesOf is keep as a table by event type, for r as view requires it.
func typesOf(keep func(ev string) bool) *[256]bool {
	var allowed [256]bool
	for name, t := range evTypes {
		allowed[t] = keep(name)
	}
	allowed[tOther] = keep(string(protocol.NoteParent))
	return &allowed
}

// shrink drops from r the node events that keep does not select, node by
// node, so that the memory of each node's dropped events can be freed as
// it goes: the views made before see the change.
func (r *run) shrink(keep func(ev string) bool) {
	allowed := typesOf(keep)
	if !allowed[tRecv] && !allowed[tDrop] {
		r.leanEnd = 0
	}
	for _, p := range r.procs[1:] {
		if n := kept(p.evs, allowed); n < len(p.evs) {
			p.evs = filtered(p.evs, n, allowed)
		}
	}
}

// kept counts the events of evs that allowed selects.
func kept(evs []event, allowed *[256]bool) int {
	n := 0
	for k := range evs {
		if allowed[evs[k].typ] {
			n++
		}
	}
	return n
}

// filtered is a new slice of the n events of evs that allowed selects.
func filtered(evs []event, n int, allowed *[256]bool) []event {
	out := make([]event, 0, n)
	for k := range evs {
		if allowed[evs[k].typ] {
			out = append(out, evs[k])
		}
	}
	return out
}

// view is r restricted to the node events that keep selects, as a load
// with keep would have kept them (the run file's are all kept, as load
// keeps them). r must hold no node events of no type of their own other
// than parent notes (analyzeEvents). The view shares r's event slices
// where nothing is left out, and has its own strings and problems, which
// analyses add to.
func (r *run) view(keep func(ev string) bool) *run {
	allowed := typesOf(keep)
	v := *r
	v.strs = r.strs.Clone()
	v.problems = slices.Clone(r.problems)
	if !allowed[tRecv] && !allowed[tDrop] {
		v.leanEnd = 0 // a load of its own would not have read them
	}
	v.byID = make(map[protocol.NodeID]*proc, len(r.byID))
	v.procs = make([]*proc, 0, len(r.procs))
	for i, p := range r.procs {
		if i == 0 {
			v.procs = append(v.procs, p)
			continue
		}
		fp := p
		if n := kept(p.evs, allowed); n < len(p.evs) {
			fp = &proc{id: p.id, evs: filtered(p.evs, n, allowed)}
		}
		v.procs = append(v.procs, fp)
		v.byID[p.id] = fp
	}
	return &v
}
