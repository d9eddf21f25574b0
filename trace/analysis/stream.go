package analysis

import (
	"fmt"
	"io"

	"manetlab/protocol"
	"manetlab/trace"
)

// streamMerge is Merge without holding the events: a k-way merge of the
// nodes' streams (docs/analysis.md, "Merge"). A first pass indexes the
// sends (the only events a receive needs to be placed); the second reads
// every node's trace side by side, a few KB each, and runs the same
// algorithm as mergeInMemory, Kahn's over process order and
// send-to-receive edges choosing the smallest clock, with a process whose
// head waits for its send simply not read further. It writes the same
// lines and reports the same figures and problems, in the same order, as
// mergeInMemory, except for a file that cannot be read on the second pass
// though it could on the first (its events up to the error are merged).
// The combined layout is one stream demultiplexed by node, read as far as
// the smallest head's clock: in time order, as the simulator writes it,
// that holds only the events of one instant. A combined file merged with
// other directories is read whole first, its lines kept by node until
// their process reaches them (preread.go).
func streamMerge(dirs []string, out *sink) (*MergeReport, error) {
	r, lay, err := openRun(dirs, loadOptions{multi: true})
	if err != nil {
		return nil, err
	}
	m := &merger{r: r, waiting: map[sendAt][]sendAt{}}
	m.opt = loadOptions{multi: true, visit: func(id protocol.NodeID, e *trace.Event) {
		if id == protocol.None { // the run file's lines, for the output
			m.runLines = append(m.runLines, trace.AppendJSON(nil, e))
		}
	}}
	if err := m.index(lay); err != nil {
		return nil, err
	}
	out.header(r)
	m.out = out
	m.pairs = newClockPairs()
	m.run()
	if err := out.close(); err != nil {
		return nil, err
	}
	rep := &MergeReport{Run: r.header.Run, Files: len(r.files), Duplicates: r.duplicates,
		Matched: m.matched, Unmatched: m.unmatched, Events: m.events, Repaired: m.repaired, CyclesBroken: m.broken}
	m.finishProblems()
	rep.Offsets, rep.HostOffsets = m.pairs.estimate(r)
	rep.Problems = problemStrings(r.problems)
	return rep, nil
}

// sendRec is a send (or relay) found by the first pass.
type sendRec struct {
	w     int64
	l     uint32
	p     int32  // process index in run.procs
	pos   uint64 // position in its process (sproc.pos)
	typ   evType
	node  protocol.NodeID
	seq   uint64
	orig  protocol.NodeID
	oseq  uint64
	wall  int64
	file  int32
	line  int32
	life  int32 // starts before it in its process
	next  int32 // the next send of the same (node, seq), -1: none
	onext int32 // the next originator's send of the same (origin, oseq)
}

// idxState is the first pass's state of one process.
type idxState struct {
	dup  dedup
	life int32
	segs []segment // its usable files so far
}

// sendAt names an event of a process by its position.
type sendAt struct {
	p   int32
	pos uint64
}

// sev is an event read and accepted, waiting to be merged.
type sev struct {
	e    event
	pos  uint64
	pred int32 // the send it follows (index in merger.sends), -1: none
	line []byte
}

// sproc is one process's stream: its node files, one after the other, or
// its lines of the combined file.
type sproc struct {
	id       protocol.NodeID
	files    []segment // its usable files (node files, and combined files read whole), in order
	seg      int       // the file being read
	lr       *trace.LineReader
	own      []trace.Problem // the file's problems found by the merge
	q        []sev           // events read, not yet merged
	qh       int
	ended    bool   // nothing more to read
	done     uint64 // every event before this position is merged
	life     int32
	dup      dedup
	combined bool   // fed from the combined file
	lineBuf  []byte // the line of its waiting event (node files)
}

// merger is the state of a streaming merge.
type merger struct {
	r        *run
	opt      loadOptions
	runLines [][]byte // the run file's accepted lines, canonical
	procs    []*sproc
	byID     trace.IDMap[int32]
	sends    []sendRec
	byKey    msgMap[int32] // first send of (node, seq)
	byOrig   msgMap[int32] // first originator's send of (origin, oseq)
	byClock  map[int32][]int32
	idx      trace.IDMap[*idxState]
	groups   [][]trace.Problem // each file's problems (run.files order)
	graph    []trace.Problem   // buildGraph's problems before the unmatched
	unlisted []unmatchedAt     // the first unmatched receives, by process order
	cycles   []trace.Problem
	missing  []trace.Problem // openRun's problems, then reportMissing's
	preCount int             // how many of missing are openRun's
	// The combined layout.
	comb     *trace.Ahead
	combFile int32
	hasComb  bool
	combEOF  bool
	readW    int64
	readL    uint32
	readAny  bool
	combOwn  []trace.Problem
	combAny  bool
	combF    io.Closer
	combWhy  *trace.IDMap[string]
	// The combined files merged with other directories (preread.go).
	pre []*preFile

	h, parked *headHeap
	waiting   map[sendAt][]sendAt
	slab      []byte // the combined file's waiting lines (accept)
	out       *sink
	pairs     *clockPairs
	prog      *progress

	matched, unmatched, events, repaired, broken int
	lines                                        int64 // the node files' lines, for progress
}

// unmatchedAt is an unmatched receive, listed if among the first.
type unmatchedAt struct {
	at   sendAt
	prob trace.Problem
}

// filePos is an event's position in its process: its file (run.files)
// above its line.
func filePos(fi int32, line int) uint64 { return uint64(fi)<<32 | uint64(uint32(line)) }

// head is process p's next event, or nil.
func (m *merger) head(p int32) *sev {
	sp := m.procs[p]
	if sp.qh < len(sp.q) {
		return &sp.q[sp.qh]
	}
	return nil
}

// emitted reports whether send s is merged.
func (m *merger) emitted(s int32) bool {
	x := &m.sends[s]
	return m.procs[x.p].done > x.pos
}

// offer puts process p's head on the heap when it is ready, else parks
// it until its send is merged (graph.order's offer); a node file's next
// event is read first.
func (m *merger) offer(p int32) {
	sp := m.procs[p]
	if sp.qh >= len(sp.q) && !sp.combined {
		m.pull(p)
	}
	hd := m.head(p)
	if hd == nil {
		return
	}
	w, l := clock(&hd.e)
	if hd.pred >= 0 && !m.emitted(hd.pred) {
		s := &m.sends[hd.pred]
		k := sendAt{s.p, s.pos}
		m.waiting[k] = append(m.waiting[k], sendAt{p, hd.pos})
		m.parked.push(headItem{w, l, sp.id, p, hd.pos})
		return
	}
	m.h.push(headItem{w, l, sp.id, p, 0})
}

// run merges: graph.order over the streams.
func (m *merger) run() {
	m.h, m.parked = &headHeap{}, &headHeap{}
	m.prog = newProgress("merging", m.lines, linesUnit)
	m.prog.stride = lineStride
	rp := m.procs[0]
	for i := range rp.q {
		rp.q[i].pred = m.pred(0, rp.q[i].pos, &rp.q[i].e)
	}
	if m.hasComb {
		m.openCombined()
	}
	m.preread()
	for p := range m.procs {
		m.offer(int32(p))
	}
	for {
		if m.comb != nil && !m.combEOF && (m.h.Len() == 0 || !m.safe((*m.h)[0])) {
			m.readCombined()
			continue
		}
		if m.h.Len() == 0 && !m.breakCycle() {
			break
		}
		it := m.h.pop()
		sp := m.procs[it.p]
		x := &sp.q[sp.qh]
		if x.pred >= 0 && before(&x.e, &event{hasHLC: true, hlcW: m.sends[x.pred].w, hlcL: m.sends[x.pred].l}) {
			m.repaired++
		}
		if x.pred >= 0 {
			s := &m.sends[x.pred]
			m.pairs.add(m.r, &event{typ: s.typ, node: s.node, wall: s.wall}, &x.e)
		}
		m.emit(x)
		m.prog.set(int64(m.events))
		sp.done = x.pos + 1
		at := sendAt{it.p, x.pos}
		send := isSend(&x.e)
		sp.q[sp.qh] = sev{}
		sp.qh++
		if sp.qh == len(sp.q) {
			sp.q, sp.qh = sp.q[:0], 0
		}
		m.offer(it.p)
		if !send {
			continue
		}
		if ws, ok := m.waiting[at]; ok {
			delete(m.waiting, at)
			for _, wt := range ws {
				if hd := m.head(wt.p); hd != nil && hd.pos == wt.pos { // still parked on this send
					ww, wl := clock(&hd.e)
					m.h.push(headItem{ww, wl, m.procs[wt.p].id, wt.p, 0})
				}
			}
		}
	}
	m.closeCombined()
	m.finishPre()
}

// emit outputs one merged event.
func (m *merger) emit(x *sev) {
	m.events++
	m.out.event(x.line, x.e.file, x.e.line)
}

// breakCycle is graph.breakCycle: every remaining head waits for a send
// that cannot come first; the parked head with the smallest clock is
// released without its edge. It reports false when no head is left.
func (m *merger) breakCycle() bool {
	var best headItem
	found := false
	for m.parked.Len() > 0 {
		it := m.parked.pop()
		if hd := m.head(it.p); hd != nil && hd.pos == it.at {
			best, found = it, true
			break
		}
	}
	if !found {
		return false
	}
	m.broken++
	hd := m.head(best.p)
	s := &m.sends[hd.pred]
	if m.broken <= maxProblems {
		m.cycles = append(m.cycles, trace.Problem{File: m.r.files[hd.e.file], Line: int(hd.e.line),
			Msg: fmt.Sprintf("causal cycle: this receive cannot follow its send %s:%d; placed by its clock", m.r.files[s.file], s.line)})
	}
	hd.pred = -1
	w, l := clock(&hd.e)
	m.h.push(headItem{w, l, m.procs[best.p].id, best.p, 0})
	return true
}

// finishProblems puts the problems in load's order, then buildGraph's,
// then the cycles'.
func (m *merger) finishProblems() {
	r := m.r
	var out []trace.Problem
	out = append(out, m.missing[:m.preCount]...)
	for _, g := range m.groups {
		out = append(out, g...)
	}
	out = append(out, m.missing[m.preCount:]...)
	out = append(out, m.graph...)
	for _, u := range m.unlisted {
		out = append(out, u.prob)
	}
	if m.unmatched > len(m.unlisted) {
		out = append(out, trace.Problem{File: r.dirs[0], Msg: fmt.Sprintf("%d more receives without a matching send", m.unmatched-len(m.unlisted))})
	}
	out = append(out, m.cycles...)
	r.problems = out
}
