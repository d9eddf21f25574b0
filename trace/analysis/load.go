package analysis

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"manetlab/internal/intern"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// evType is an event type in compact form.
type evType uint8

const (
	tOther evType = iota
	tSend
	tRelay
	tRecv
	tDrop
	tStart
	tCrash
	tRecover
	tCommand
	tLeader
	tElStart
	tElEnd
	tCSRequest
	tCSEnter
	tCSExit
	tEnd
	tPosition
	tSync // protocol/rounds notes (rounds.go): their text is kept
	tRound
	tSafe
	tLate
	tAck  // a link acknowledgement sent (network stack)
	tRetx // a unicast frame retransmitted (network stack)
	tRREQ // an AODV route request sent or relayed
	tRREP // an AODV route reply sent or passed on
	tRERR // an AODV route error sent
	// Neighbour discovery heard, or lost, the peer (kept in from): in a
	// run of real processes a link lost while the radio model has it up
	// is uncertain in the ground truth (truth.go, observedDown).
	tNbrUp
	tNbrDown
	// A real node's counters (text kept): frames it refused by sender
	// make those links uncertain (truth.go, noteObservedDown).
	tStats
	// The simulator's quiescence record in the run file (judged.go).
	tQuiet
	// Half of a link cut by hand, or healed (the run file; the peer
	// kept in from): the ground truth's cut links (truth.go, noteCuts).
	tCut
	tHeal
)

var evTypes = map[string]evType{
	trace.EvSend: tSend, trace.EvRelay: tRelay, trace.EvRecv: tRecv, trace.EvDrop: tDrop,
	trace.EvStart: tStart, trace.EvCrash: tCrash, trace.EvRecover: tRecover, trace.EvCommand: tCommand,
	string(protocol.NoteLeader): tLeader, string(protocol.NoteElectionStart): tElStart,
	string(protocol.NoteElectionEnd): tElEnd, string(protocol.NoteCSRequest): tCSRequest,
	string(protocol.NoteCSEnter): tCSEnter, string(protocol.NoteCSExit): tCSExit,
	trace.EvEnd: tEnd, trace.EvPosition: tPosition,
	string(protocol.NoteSync): tSync, string(protocol.NoteRound): tRound,
	string(protocol.NoteSafe): tSafe, string(protocol.NoteLate): tLate,
	trace.EvAck: tAck, trace.EvRetx: tRetx, trace.EvRREQ: tRREQ, trace.EvRREP: tRREP, trace.EvRERR: tRERR,
	trace.EvNbrUp: tNbrUp, trace.EvNbrDown: tNbrDown, trace.EvStats: tStats,
	trace.EvQuiet: tQuiet, trace.EvCut: tCut, trace.EvHeal: tHeal,
}

// typeOf is evTypes[ev], the commonest types first without hashing:
// it is asked for every line of a run.
func typeOf(ev string) evType {
	switch ev {
	case trace.EvRecv:
		return tRecv
	case trace.EvSend:
		return tSend
	case trace.EvDrop:
		return tDrop
	case trace.EvRelay:
		return tRelay
	}
	return evTypes[ev]
}

// event is one trace event in compact form: the fields the analysis uses,
// strings interned, and where it came from.
type event struct {
	t        int64
	wall     int64
	hlcW     int64
	hlcL     uint32
	hasHLC   bool
	hasValue bool
	typ      evType
	hops     uint8 // multi-hop: hops travelled (at most 255)
	node     protocol.NodeID
	from     protocol.NodeID
	to       protocol.NodeID
	origin   protocol.NodeID
	leader   protocol.NodeID
	bytes    int32
	file     int32 // index into run.files
	line     int32
	kind     int32 // interned
	epoch    int32 // interned
	text     int32 // interned
	n        int32 // the canonical line's length (merge only); here, not last: 112 bytes an event, not 120
	seq      uint64
	oseq     uint64
	value    float64
}

// proc is one process: a node's events in its own order, or (id 0) the
// run file's.
type proc struct {
	id   protocol.NodeID
	evs  []event
	dup  dedup     // the lines it logged, to find duplicates (dedup.go)
	segs []segment // the files its lines came from so far
	// lost is, in a lean load (which keeps no drops), its first drop
	// that lostMessage weighs; nil: none, or a load that kept them.
	lost *event
}

// run is a loaded run: one or more directories of one run id.
type run struct {
	// unauth are the notes of refused frames from addresses no node
	// of the run sends from (crosshost.go), set by crossHost.
	unauth     []string
	dirs       []string
	header     trace.Event
	headerFile string
	hasRunFile bool
	// parsed is the scenario of header, parsed once (scenario): a
	// fault-dense header costs about 30 times its size to parse, and
	// half a dozen checks read it.
	parsed struct {
		text string
		sc   *scenario.Scenario
		err  error
	}
	hosts map[protocol.NodeID]string
	// hashes are the node headers' scenario hashes (crosshost.go).
	hashes     map[protocol.NodeID]string
	procs      []*proc // the run file's first (id 0), then nodes by ID
	byID       map[protocol.NodeID]*proc
	files      []string
	strs       *intern.Table
	problems   []trace.Problem
	duplicates int
	screen     *trace.Screen // what of hostile input is used (screen.go)
	fsrc       trace.Source  // where the files are read
	progress   *progress     // progress.go
	duration   int64         // the scenario's, when known (screen.go)
	leanEnd    int64         // the latest receive a lean load did not keep
}

// loadOptions choose what a load keeps.
type loadOptions struct {
	// keep selects event types by name (nil: all); headers are always read.
	keep func(ev string) bool
	// multi allows several directories and node files without a run file.
	multi bool
	// src holds the files (nil: trace.Disk).
	src trace.Source
	// lean reads receives (recv, drop) as any other event, for their
	// problems and duplicates, but does not keep them: the analyses that
	// need them (the causal graph) load again without it.
	lean bool
	// visit, when not nil, is handed every event kept (Analyze, visit.go).
	visit func(id protocol.NodeID, e *trace.Event)
	// discard keeps none of the nodes' events: they are only handed to
	// visit (the run file's are kept).
	discard bool
}

// str interns s.
func (r *run) str(s string) int32 { return int32(r.strs.Index(s)) }

// src formats an event's origin as file:line.
func (r *run) src(e *event) string {
	return r.files[e.file] + ":" + strconv.Itoa(int(e.line))
}

// nodeFiles lists node-<id>.jsonl in dir by ID, reporting misnamed ones;
// with the combined node file (trace.NodesFileName) it says so and lists
// none, reporting the node files beside it (besideCombined).
func (r *run) nodeFiles(dir string) ([]protocol.NodeID, bool, error) {
	names, err := r.fsrc.Names(dir)
	if err != nil {
		return nil, false, fmt.Errorf("run directory %s: %w", dir, err)
	}
	ids, probs := nodeFileIDs(dir, names)
	r.problems = append(r.problems, probs...)
	if slices.Contains(names, trace.NodesFileName) {
		if p, ok := besideCombined(dir, ids); ok {
			r.problems = append(r.problems, p)
		}
		return nil, true, nil
	}
	return ids, false, nil
}

// load reads the run in dirs. With one directory it behaves like
// ReadDir (a run file is required); with opt.multi, traces gathered
// from several machines are combined, and run ids that disagree between
// directories are an error naming the files.
func load(dirs []string, opt loadOptions) (*run, error) {
	r, lay, err := openRun(dirs, opt)
	if err != nil {
		return nil, err
	}
	runProc := r.procs[0]
	var total int64
	for i, d := range dirs {
		for _, id := range lay.perDir[i] {
			if size, err := r.fsrc.Size(trace.NodeFile(d, id)); err == nil {
				total += size
			}
		}
	}
	r.progress = newProgress("reading", total, bytesUnit)
	for i, d := range dirs {
		if p := trace.RunFile(d); slices.Contains(lay.runFiles, p) {
			if err := r.readFile(p, 0, runProc, opt); err != nil {
				return nil, err
			}
		}
		if lay.combined[i] {
			r.readCombined(trace.NodesFile(d), opt)
			continue
		}
		for _, id := range lay.perDir[i] {
			pr := r.byID[id]
			if pr == nil {
				pr = &proc{id: id}
			}
			if err := r.readFile(trace.NodeFile(d, id), id, pr, opt); err != nil {
				return nil, err
			}
			if size, err := r.fsrc.Size(trace.NodeFile(d, id)); err == nil {
				r.progress.add(size)
			}
			if r.byID[id] == nil && pr.evs != nil {
				r.byID[id] = pr
			}
		}
	}
	for _, id := range r.nodeIDs() {
		r.procs = append(r.procs, r.byID[id])
	}
	r.reportMissing(slices.Contains(lay.combined, true))
	return r, nil
}

// layout is what openRun found in the directories of a run.
type layout struct {
	runFiles []string            // the run files present
	perDir   [][]protocol.NodeID // each directory's node files
	combined []bool              // each directory's layout: nodes.jsonl
}

// openRun checks the directories of a run and reads their headers: the
// run's header, the node files of each directory, the screen; no events
// yet (load reads them).
func openRun(dirs []string, opt loadOptions) (*run, *layout, error) {
	if len(dirs) == 0 {
		return nil, nil, errors.New("no trace directory given")
	}
	r := &run{dirs: dirs, byID: map[protocol.NodeID]*proc{}, strs: intern.New(""),
		hosts: map[protocol.NodeID]string{}, hashes: map[protocol.NodeID]string{}, fsrc: opt.src}
	if r.fsrc == nil {
		r.fsrc = trace.Disk
	}
	runProc := &proc{}
	r.procs = append(r.procs, runProc)

	// The reference run id: the first run file's; without any, the first
	// node file's (only when merging traces of real machines).
	var runFiles []string
	for _, d := range dirs {
		if err := trace.StatDir(d); err != nil {
			return nil, nil, err
		}
		p := trace.RunFile(d)
		if _, err := r.fsrc.Size(p); err == nil {
			runFiles = append(runFiles, p)
		} else if !opt.multi {
			return nil, nil, fmt.Errorf("run directory %s: %w", d, trace.ErrNoRunFile)
		}
	}
	type fileRun struct{ file, run string }
	var ids []fileRun
	for _, p := range runFiles {
		h, err := trace.ReadHeaderFrom(r.fsrc, p)
		if err != nil {
			return nil, nil, err
		}
		if !r.hasRunFile {
			r.header, r.headerFile, r.hasRunFile = h, p, true
		}
		ids = append(ids, fileRun{p, h.Run})
	}
	perDir := make([][]protocol.NodeID, len(dirs))
	combined := make([]bool, len(dirs))
	for i, d := range dirs {
		ns, comb, err := r.nodeFiles(d)
		if err != nil {
			return nil, nil, err
		}
		perDir[i], combined[i] = ns, comb
		if r.hasRunFile && len(dirs) == 1 {
			continue
		}
		// Without a run file in this directory nothing says which run its
		// node files belong to, so they must all agree.
		if _, err := r.fsrc.Size(trace.RunFile(d)); err == nil {
			continue
		}
		if comb {
			// Its first line is a node's header, which names the run.
			p := trace.NodesFile(d)
			if h, err := trace.ReadHeaderFrom(r.fsrc, p); err == nil {
				if !r.hasRunFile && r.headerFile == "" {
					r.header, r.headerFile = h, p
				}
				ids = append(ids, fileRun{p, h.Run})
			}
			continue
		}
		for _, id := range ns {
			p := trace.NodeFile(d, id)
			h, err := trace.ReadHeaderFrom(r.fsrc, p)
			if err != nil {
				continue // reported when the file is read
			}
			if !r.hasRunFile && r.headerFile == "" {
				r.header, r.headerFile = h, p
			}
			ids = append(ids, fileRun{p, h.Run})
		}
	}
	if r.headerFile == "" {
		return nil, nil, fmt.Errorf("%s: no run file and no readable node file", strings.Join(dirs, ", "))
	}
	var clash []string
	for _, fr := range ids {
		if fr.run != r.header.Run {
			clash = append(clash, fmt.Sprintf("%s: run %q", fr.file, fr.run))
		}
	}
	if len(clash) > 0 {
		return nil, nil, fmt.Errorf("traces of different runs in one merge: %s: run %q; %s", r.headerFile, r.header.Run, strings.Join(clash, "; "))
	}
	r.screen = newScreen(r)
	return r, &layout{runFiles, perDir, combined}, nil
}

// nodeIDs lists the nodes with a usable file, ascending.
func (r *run) nodeIDs() []protocol.NodeID {
	ids := make([]protocol.NodeID, 0, len(r.byID))
	for id := range r.byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// readFile appends the events of one file to pr, checking its header:
// a node file without a usable header, of another run or naming another
// node is reported and skipped, as the rules of accept.go say.
func (r *run) readFile(path string, id protocol.NodeID, pr *proc, opt loadOptions) error {
	fi := int32(len(r.files))
	r.files = append(r.files, path)
	first, why := true, ""
	headerLine := 0 // the line a header problem names, when one line is at fault
	keep := opt.keep
	if keep != nil && id == 0 {
		keep = nil // the run file is small, and its positions name the nodes
	} else if keep != nil {
		keep = func(ev string) bool { return ev == trace.EvHeader || opt.keep(ev) }
	}
	var kept []event
	before := len(r.problems)
	probs, err := r.fsrc.ScanEvents(path, keep, func(e *trace.Event, line int) error {
		if first {
			first = false
			var member bool
			if why, member = r.nodeHeader(e, id); member {
				headerLine = line
			}
			return nil
		}
		if why != "" || !r.nodeLine(path, id, false, line, e, &r.problems) {
			return nil
		}
		if ce, ok := r.take(pr, e, segment{fi, false}, keep, line, opt); ok {
			kept = append(kept, ce)
		}
		return nil
	})
	r.problems = append(r.problems, probs...)
	if err != nil {
		r.problems = append(r.problems, trace.Problem{File: path, Msg: err.Error() + "; file skipped"})
		return nil
	}
	if first {
		why = "no events, not even a header"
	}
	if why != "" {
		if id == 0 {
			return fmt.Errorf("%s: %s", path, why)
		}
		r.problems = append(r.problems, trace.Problem{File: path, Line: headerLine, Msg: why + "; file skipped"})
		return nil
	}
	// The reader's problems and ours, in line order.
	slices.SortStableFunc(r.problems[before:], func(a, b trace.Problem) int { return a.Line - b.Line })
	r.screen.Finish(path, &r.problems)
	if pr.evs == nil {
		pr.evs = []event{}
	}
	pr.evs = append(pr.evs, kept...)
	pr.segs = append(pr.segs, segment{fi, false})
	return nil
}

// take turns an accepted event of pr, at line of file fi, into its compact
// form, unless it is a duplicate of a line pr logged before (the process
// is part of the key: the run file legitimately repeats a node's crash
// and recover lines), which it reports. ok is false for a duplicate, and
// for a receive of a lean load, which is judged but not kept.
func (r *run) take(pr *proc, e *trace.Event, cur segment, keep func(string) bool, line int, opt loadOptions) (event, bool) {
	fi := cur.file
	past := func(add func(h, at uint64)) { r.rescan(pr.id, pr.segs, cur, line, keep, add) }
	if prev, dup := pr.dup.seen(e.T, eventHash(e), uint64(fi)<<32|uint64(uint32(line)), past); dup {
		r.duplicates++
		r.problems = append(r.problems, trace.Problem{File: r.files[fi], Line: line,
			Msg: fmt.Sprintf("duplicate of %s:%d; dropped", r.files[prev>>32], uint32(prev))})
		return event{}, false
	}
	if opt.visit != nil {
		opt.visit(pr.id, e)
	}
	if opt.discard && pr.id != protocol.None {
		return event{}, false
	}
	if opt.lean && (e.Ev == trace.EvRecv || e.Ev == trace.EvDrop) {
		r.leanEnd = max(r.leanEnd, e.T)
		if e.Ev == trace.EvDrop && pr.lost == nil && lostDrop(e.Kind) {
			ce := r.compact(e)
			ce.file, ce.line = fi, int32(line)
			pr.lost = &ce
		}
		return event{}, false
	}
	ce := r.compact(e)
	ce.file, ce.line = fi, int32(line)
	return ce, true
}

// headerProblem says why h is not an acceptable header for node id (0:
// the run file) of this run, or "".
func (r *run) headerProblem(h *trace.Event, id protocol.NodeID) string {
	switch {
	case h.Ev != trace.EvHeader:
		return fmt.Sprintf("the first event is %q, not a %q", h.Ev, trace.EvHeader)
	case h.Schema <= 0:
		return "the header has no schema"
	case h.Schema > trace.Schema:
		return fmt.Sprintf("schema %d is newer than this reader's %d", h.Schema, trace.Schema)
	case h.Run != r.header.Run:
		return fmt.Sprintf("run %q, not %q of %s (a file left from another run?)", h.Run, r.header.Run, r.headerFile)
	case h.Node != id:
		return fmt.Sprintf("the header is node %d's, not node %d's", h.Node, id)
	}
	return ""
}

// compact converts a decoded event.
func (r *run) compact(e *trace.Event) event {
	c := event{t: e.T, wall: e.Wall, typ: typeOf(e.Ev), node: e.Node, from: e.From, to: e.To,
		origin: e.Origin, leader: e.Leader, bytes: int32(e.Bytes), seq: e.Seq, oseq: e.OSeq}
	if e.HLC != nil {
		c.hasHLC, c.hlcW, c.hlcL = true, e.HLC.Wall, e.HLC.Logical
	}
	if e.Value != nil {
		c.hasValue, c.value = true, *e.Value
	}
	if e.Kind != "" {
		c.kind = r.str(e.Kind)
	}
	if e.Epoch != "" {
		c.epoch = r.str(e.Epoch)
	}
	if e.Hops > 0 {
		c.hops = uint8(min(e.Hops, 255))
	}
	if c.typ == tNbrUp || c.typ == tNbrDown || c.typ == tCut || c.typ == tHeal {
		c.from = e.Peer
	}
	if c.typ == tDrop && e.Reason != "" && e.Origin != 0 {
		c.text = r.str(e.Reason) // a multi-hop message's drop (routing.go)
	}
	if e.Text != "" && (c.typ == tCommand || c.typ >= tSync && c.typ < tNbrUp || c.typ == tStats || e.Ev == string(protocol.NoteParent)) { // parent: a depth (bfsdepth.go); sync notes: rounds.go
		c.text = r.str(e.Text)
	}
	return c
}

// reportMissing names nodes the run file speaks of that have no usable
// node file (no usable lines in the combined node file, when combined).
func (r *run) reportMissing(combined bool) {
	seen := map[protocol.NodeID]bool{}
	var missing []protocol.NodeID
	for i := range r.procs[0].evs {
		id := r.procs[0].evs[i].node
		if id == protocol.None || seen[id] {
			continue
		}
		seen[id] = true
		if r.byID[id] == nil {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	for _, id := range missing {
		if combined {
			r.problems = append(r.problems, trace.Problem{File: trace.NodesFile(r.dirs[0]), Msg: missingInCombined(id)})
			continue
		}
		r.problems = append(r.problems, trace.Problem{File: trace.NodeFile(r.dirs[0], id),
			Msg: fmt.Sprintf("node %d appears in %s but has no usable trace file", id, trace.RunFileName)})
	}
}

// end is the end of the run: the run file's end event, else the latest
// event time.
func (r *run) end() int64 {
	end := r.leanEnd
	for _, p := range r.procs {
		for i := range p.evs {
			end = max(end, p.evs[i].t)
		}
	}
	return end
}

// problemStrings formats problems as file:line: msg.
func problemStrings(ps []trace.Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// scenario parses the scenario recorded in the run header, once for the
// same header text. Callers must not change it.
func (r *run) scenario() (*scenario.Scenario, error) {
	if r.parsed.sc == nil && r.parsed.err == nil || r.parsed.text != r.header.Scenario {
		r.parsed.text = r.header.Scenario
		r.parsed.sc, r.parsed.err = scenario.Parse([]byte(r.header.Scenario), r.headerFile, nil)
	}
	return r.parsed.sc, r.parsed.err
}
