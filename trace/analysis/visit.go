package analysis

import (
	"maps"
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
	// file (id the node), every event but neighbour, position and
	// unknown events (parent notes are handed over), after the
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
	one, err := load([]string{dir}, loadOptions{keep: analyzeEvents, src: opt.Src, visit: opt.Visit})
	if err != nil {
		return nil, nil, err
	}
	l := &loader{dir: dir, one: one}
	m, err := computeMetrics(l, opt.Metrics)
	if err != nil {
		return nil, nil, err
	}
	c, err := check(l, opt.Check)
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
)

var readSets = [...]func(ev string) bool{
	readMetrics: metricEvents, readCheck: checkEvents, readTree: treeEvents, readRounds: roundsEvents,
}

// loader gives each analysis of one directory its run: loaded for it
// alone (ComputeMetrics, Check: each read of its own, as before), or a
// view of the one load of Analyze holding only the event types the
// analysis would have read, so that it computes exactly what it computes
// on its own load.
type loader struct {
	dir string
	// src holds the files of the metrics' own read (nil: trace.Disk); the
	// other reads are from disk, as they always were.
	src trace.Source
	one *run // Analyze's load; nil: every analysis loads its own
}

// run returns the run for the analysis reading s.
func (l *loader) run(s readSet) (*run, error) {
	if l.one != nil {
		return l.one.view(readSets[s]), nil
	}
	var src trace.Source
	if s == readMetrics {
		src = l.src
	}
	return load([]string{l.dir}, loadOptions{keep: readSets[s], src: src})
}

// view is r restricted to the node events that keep selects, as a load
// with keep would have kept them (the run file's are all kept, as load
// keeps them). r must hold no node events of no type of their own other
// than parent notes (analyzeEvents). The view shares r's event slices
// where nothing is left out, and has its own strings and problems, which
// analyses add to.
func (r *run) view(keep func(ev string) bool) *run {
	var allowed [256]bool
	for name, t := range evTypes {
		allowed[t] = keep(name)
	}
	allowed[tOther] = keep(string(protocol.NoteParent))
	v := *r
	v.strs = slices.Clone(r.strs)
	v.strIdx = maps.Clone(r.strIdx)
	v.problems = slices.Clone(r.problems)
	v.byID = make(map[protocol.NodeID]*proc, len(r.byID))
	v.procs = make([]*proc, 0, len(r.procs))
	for i, p := range r.procs {
		if i == 0 {
			v.procs = append(v.procs, p)
			continue
		}
		n := 0
		for k := range p.evs {
			if allowed[p.evs[k].typ] {
				n++
			}
		}
		fp := p
		if n < len(p.evs) {
			fp = &proc{id: p.id, evs: make([]event, 0, n)}
			for k := range p.evs {
				if allowed[p.evs[k].typ] {
					fp.evs = append(fp.evs, p.evs[k])
				}
			}
		}
		v.procs = append(v.procs, fp)
		v.byID[p.id] = fp
	}
	return &v
}
