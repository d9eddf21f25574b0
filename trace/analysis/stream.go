package analysis

import (
	"bufio"
	"cmp"
	"container/heap"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

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
// that holds only the events of one instant. ok is false for directories
// it does not stream (a combined directory merged with others), which
// Merge merges in memory.
func streamMerge(dirs []string, w io.Writer) (*MergeReport, bool, error) {
	r, lay, err := openRun(dirs, loadOptions{lines: true, multi: true})
	if err != nil {
		return nil, false, err
	}
	if len(dirs) > 1 && slices.Contains(lay.combined, true) {
		return nil, false, nil
	}
	m := &merger{r: r, opt: loadOptions{lines: true, multi: true}, waiting: map[sendAt][]sendAt{}, idx: map[protocol.NodeID]*idxState{}}
	if err := m.index(lay); err != nil {
		return nil, false, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	m.line = writeHeader(bw, r)
	m.prefixes = srcPrefixes(r)
	m.out = bw
	m.pairs = newClockPairs()
	m.run()
	if m.werr == nil {
		m.werr = bw.Flush()
	}
	if m.werr != nil {
		return nil, false, fmt.Errorf("writing the merged trace: %w", m.werr)
	}
	rep := &MergeReport{Run: r.header.Run, Files: len(r.files), Duplicates: r.duplicates,
		Matched: m.matched, Unmatched: m.unmatched, Events: m.events, Repaired: m.repaired, CyclesBroken: m.broken}
	m.finishProblems()
	rep.Offsets, rep.HostOffsets = m.pairs.estimate(r)
	rep.Problems = problemStrings(r.problems)
	return rep, true, nil
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
	files    []int32 // its usable node files (run.files), in order
	seg      int     // the file being read
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
	procs    []*sproc
	byID     map[protocol.NodeID]int32
	sends    []sendRec
	byKey    map[msgKey]int32 // first send of (node, seq)
	byOrig   map[msgKey]int32 // first originator's send of (origin, oseq)
	byClock  map[int32][]int32
	idx      map[protocol.NodeID]*idxState
	groups   [][]trace.Problem // each file's problems (run.files order)
	graph    []trace.Problem   // buildGraph's problems before the unmatched
	unlisted []unmatchedAt     // the first unmatched receives, by process order
	cycles   []trace.Problem
	missing  []trace.Problem // openRun's problems, then reportMissing's
	preCount int             // how many of missing are openRun's
	// The combined layout.
	comb     *trace.LineReader
	combFile int32
	hasComb  bool
	combEOF  bool
	readW    int64
	readL    uint32
	readAny  bool
	combOwn  []trace.Problem
	combAny  bool
	combF    *os.File
	combWhy  map[protocol.NodeID]string

	h, parked *sheap
	waiting   map[sendAt][]sendAt
	buf       []byte
	line      []byte
	prefixes  [][]byte
	out       *bufio.Writer
	werr      error
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
// above its line; the combined file's events have their line alone.
func filePos(fi int32, line int) uint64 { return uint64(fi)<<32 | uint64(uint32(line)) }

// index reads the run files whole, and the sends of every node file
// (first pass), numbering the processes as load does.
func (m *merger) index(lay *layout) error {
	r := m.r
	runProc := r.procs[0]
	m.preCount = len(r.problems)
	m.missing = slices.Clone(r.problems)
	r.problems = r.problems[:0]
	type nodeFile struct {
		id   protocol.NodeID
		file int32
	}
	var files []nodeFile
	usable := map[protocol.NodeID]bool{}
	var recs []sendRec // p holds the node ID until processes are numbered
	var runSends []sendRec
	combined := false
	total := int64(0)
	for i, d := range r.dirs {
		for _, id := range lay.perDir[i] {
			if size, err := os.Stat(trace.NodeFile(d, id)); err == nil {
				total += size.Size()
			}
		}
	}
	prog := newProgress("indexing", total, bytesUnit)
	for i, d := range r.dirs {
		if p := trace.RunFile(d); slices.Contains(lay.runFiles, p) {
			before := len(r.problems)
			if err := r.readFile(p, 0, runProc, m.opt); err != nil {
				return err
			}
			m.setGroup(int32(len(r.files)-1), r.problems[before:])
			r.problems = r.problems[:before]
		}
		if lay.combined[i] {
			combined, m.hasComb = true, true
			m.combFile = int32(len(r.files))
			r.files = append(r.files, trace.NodesFile(d))
			if !m.indexCombined(trace.NodesFile(d), usable, &recs) {
				// Skipped whole: the second pass reads it for its problems.
				clear(usable)
				recs = recs[:0]
			}
			continue
		}
		for _, id := range lay.perDir[i] {
			fi := int32(len(r.files))
			path := trace.NodeFile(d, id)
			n := len(recs)
			r.files = append(r.files, path)
			if m.indexFile(path, fi, id, &recs) {
				files = append(files, nodeFile{id, fi})
				usable[id] = true
			} else {
				// Skipped: its problems are readFile's, read now.
				recs, r.files = recs[:n], r.files[:fi]
				before := len(r.problems)
				if err := r.readFile(path, id, &proc{id: id}, m.opt); err != nil {
					return err
				}
				m.setGroup(fi, r.problems[before:])
				r.problems = r.problems[:before]
			}
			if size, err := os.Stat(path); err == nil {
				prog.add(size.Size())
			}
		}
	}
	// Processes as load numbers them: the run file's, then nodes by ID.
	ids := make([]protocol.NodeID, 0, len(usable))
	for id := range usable {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	m.byID = map[protocol.NodeID]int32{}
	m.procs = []*sproc{{ended: true}}
	for i := range runProc.evs {
		e := &runProc.evs[i]
		m.procs[0].q = append(m.procs[0].q, sev{e: *e, pos: uint64(i), pred: -1, line: r.arena[e.off : e.off+int64(e.n)]})
		if e.typ == tStart {
			m.procs[0].life++
		}
		if isSend(e) {
			runSends = append(runSends, m.sendOf(e, 0, uint64(i), m.procs[0].life))
		}
	}
	m.procs[0].life = 0
	for _, id := range ids {
		m.byID[id] = int32(len(m.procs))
		pr := &proc{id: id, evs: []event{}}
		r.byID[id] = pr
		r.procs = append(r.procs, pr)
		m.procs = append(m.procs, &sproc{id: id})
	}
	for _, f := range files {
		sp := m.procs[m.byID[f.id]]
		sp.files = append(sp.files, f.file)
	}
	for i := range recs {
		recs[i].p = m.byID[protocol.NodeID(recs[i].p)]
	}
	if combined {
		// Read in file order; the graph lists them by process.
		slices.SortStableFunc(recs, func(a, b sendRec) int {
			if c := cmp.Compare(a.p, b.p); c != 0 {
				return c
			}
			return cmp.Compare(a.pos, b.pos)
		})
	}
	m.sends = append(runSends, recs...)
	m.buildIndex()
	r.reportMissing(combined)
	m.missing = append(m.missing, r.problems...)
	r.problems = r.problems[:0]
	return nil
}

// setGroup records file fi's problems.
func (m *merger) setGroup(fi int32, ps []trace.Problem) {
	for int(fi) >= len(m.groups) {
		m.groups = append(m.groups, nil)
	}
	m.groups[fi] = append(m.groups[fi], ps...)
}

// sendOf is the index entry of send e of process p at pos.
func (m *merger) sendOf(e *event, p int32, pos uint64, life int32) sendRec {
	w, l := clock(e)
	return sendRec{w: w, l: l, p: p, pos: pos, typ: e.typ, node: e.node, seq: e.seq, orig: e.origin, oseq: e.oseq,
		wall: e.wall, file: e.file, line: e.line, life: life, next: -1, onext: -1}
}

// indexWanted are the event types the first pass decodes.
func indexWanted(ev string) bool {
	switch ev {
	case trace.EvSend, trace.EvRelay, trace.EvStart, trace.EvHeader:
		return true
	}
	return false
}

// indexFile reads the sends and starts of one node file, judging its
// header and its lines as readFile does, and says whether it is usable.
func (m *merger) indexFile(path string, fi int32, id protocol.NodeID, recs *[]sendRec) bool {
	r := m.r
	st := m.idx[id]
	if st == nil {
		st = &idxState{}
		m.idx[id] = st
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	lr := trace.NewLineReader(f, path, 64<<10)
	first := true
	for {
		// The first line decoded is the header, whatever its type.
		e, line, err := lr.Next(func(ev string, _ []byte) bool { return first || indexWanted(ev) })
		if err != nil {
			return false
		}
		if e == nil {
			m.lines += int64(lr.Lines())
			if !first {
				st.segs = append(st.segs, segment{fi, false})
			}
			return !first
		}
		if first {
			first = false
			if r.headerProblem(e, id) != "" || !r.screen.Member(id) {
				return false
			}
			if e.Host != "" {
				r.hosts[id] = e.Host
			}
			continue
		}
		if e.Ev == trace.EvHeader || e.Node != id || !indexWanted(e.Ev) || !r.screen.Accepts(e) {
			continue
		}
		if e.Bytes < 0 || e.Bytes > trace.MaxBytes {
			e.Bytes = 0 // as the screen counts it
		}
		m.buf = trace.AppendJSON(m.buf[:0], e)
		past := func(add func(h, at uint64)) { r.rescan(id, st.segs, segment{fi, false}, line, nil, add) }
		if _, d := st.dup.seen(e.T, lineHash(m.buf), uint64(fi)<<32|uint64(uint32(line)), past); d {
			continue
		}
		ce := r.compact(e)
		ce.file, ce.line = fi, int32(line)
		if ce.typ == tStart {
			st.life++
		}
		if isSend(&ce) {
			*recs = append(*recs, m.sendOf(&ce, int32(id), filePos(fi, line), st.life))
		}
	}
}

// indexCombined is indexFile for the combined node file: every node's
// sends and starts, and which nodes are usable. ok is false when the
// file is skipped whole.
func (m *merger) indexCombined(path string, usable map[protocol.NodeID]bool, recs *[]sendRec) bool {
	r := m.r
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	lr := trace.NewLineReader(f, path, 64<<10)
	why := map[protocol.NodeID]string{}
	dups := map[protocol.NodeID]*dedup{}
	lives := map[protocol.NodeID]int32{}
	fi := m.combFile
	any := false
	prog := newCount("indexing "+trace.NodesFileName, linesUnit)
	for {
		// Every node's first line is decoded, whatever its type.
		e, line, err := lr.Next(func(ev string, raw []byte) bool {
			if raw == nil || indexWanted(ev) {
				return true
			}
			id, ok := rawNode(raw)
			if !ok {
				return true
			}
			_, seen := why[id]
			return !seen
		})
		if err != nil {
			return false
		}
		if e == nil {
			m.lines += int64(lr.Lines())
			break
		}
		any = true
		prog.set(int64(line))
		id := e.Node
		if id == protocol.None {
			continue
		}
		w, seen := why[id]
		if !seen {
			w = r.headerProblem(e, id)
			if w == "" && !r.screen.Member(id) {
				w = "not a member"
			}
			why[id] = w
			if w == "" {
				usable[id] = true
				dups[id] = &dedup{}
				if e.Host != "" {
					r.hosts[id] = e.Host
				}
			}
			continue
		}
		if w != "" || e.Ev == trace.EvHeader || !indexWanted(e.Ev) || !r.screen.Accepts(e) {
			continue
		}
		if e.Bytes < 0 || e.Bytes > trace.MaxBytes {
			e.Bytes = 0
		}
		m.buf = trace.AppendJSON(m.buf[:0], e)
		past := func(add func(h, at uint64)) { r.rescan(id, nil, segment{fi, true}, line, nil, add) }
		if _, d := dups[id].seen(e.T, lineHash(m.buf), uint64(fi)<<32|uint64(uint32(line)), past); d {
			continue
		}
		ce := r.compact(e)
		ce.file, ce.line = fi, int32(line)
		if ce.typ == tStart {
			lives[id]++
		}
		if isSend(&ce) {
			*recs = append(*recs, m.sendOf(&ce, int32(id), uint64(uint32(line)), lives[id]))
		}
	}
	return any
}

// rawNode reads the node of a line the simulator wrote, without decoding
// it: only a line that begins as AppendJSON writes it and names one node.
func rawNode(line []byte) (protocol.NodeID, bool) {
	const pre = `{"t":`
	if len(line) < len(pre) || string(line[:len(pre)]) != pre {
		return 0, false
	}
	i := len(pre)
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	const key = `,"node":`
	if i == len(pre) || len(line)-i < len(key) || string(line[i:i+len(key)]) != key {
		return 0, false
	}
	i += len(key)
	j := i
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		j++
	}
	if j == i || j-i > 10 || j < len(line) && line[j] != ',' {
		return 0, false
	}
	for k := j; k+len(`"node"`) <= len(line); k++ {
		if string(line[k:k+len(`"node"`)]) == `"node"` {
			return 0, false // named twice: decode it
		}
	}
	id, err := strconv.ParseUint(string(line[i:j]), 10, 32)
	if err != nil || j-i > 1 && line[i] == '0' {
		return 0, false
	}
	return protocol.NodeID(id), true
}

// buildIndex lists the sends by key, reports sequence numbers used again
// (as buildGraph does, in process order) and sorts the candidates of
// each key used more than once by clock.
func (m *merger) buildIndex() {
	r := m.r
	m.byKey, m.byOrig = map[msgKey]int32{}, map[msgKey]int32{}
	lastKey, lastOrig := map[msgKey]int32{}, map[msgKey]int32{}
	type use struct {
		life int32
		at   int32
	}
	lastUse := map[msgKey]use{}
	reused := 0
	for i := range m.sends {
		s := &m.sends[i]
		k := msgKey{s.node, s.seq}
		if u, ok := lastUse[k]; ok && u.life == s.life && m.sends[u.at].p == s.p {
			if reused++; reused <= maxProblems {
				f := &m.sends[u.at]
				m.graph = append(m.graph, trace.Problem{File: r.files[s.file], Line: int(s.line),
					Msg: fmt.Sprintf("node %d uses seq %d again (first at %s:%d) without a restart; receives go to the latest send before them", s.node, s.seq, r.files[f.file], f.line)})
			}
		}
		lastUse[k] = use{s.life, int32(i)}
		if j, ok := lastKey[k]; ok {
			m.sends[j].next = int32(i)
		} else {
			m.byKey[k] = int32(i)
		}
		lastKey[k] = int32(i)
		if s.typ == tSend && s.orig == s.node && s.oseq != 0 {
			ko := msgKey{s.orig, s.oseq}
			if j, ok := lastOrig[ko]; ok {
				m.sends[j].onext = int32(i)
			} else {
				m.byOrig[ko] = int32(i)
			}
			lastOrig[ko] = int32(i)
		}
	}
	if reused > maxProblems {
		m.graph = append(m.graph, trace.Problem{File: r.dirs[0], Msg: fmt.Sprintf("%d more sequence numbers used again without a restart", reused-maxProblems)})
	}
	m.byClock = map[int32][]int32{}
	for _, first := range m.byKey {
		if m.sends[first].next >= 0 {
			m.byClock[first] = m.sortByClock(m.cands(first, false))
		}
	}
	for _, first := range m.byOrig {
		if m.sends[first].onext >= 0 {
			m.byClock[-first-1] = m.sortByClock(m.cands(first, true))
		}
	}
}

// cands lists a key's sends from its first.
func (m *merger) cands(first int32, orig bool) []int32 {
	var out []int32
	for i := first; i >= 0; {
		out = append(out, i)
		if orig {
			i = m.sends[i].onext
		} else {
			i = m.sends[i].next
		}
	}
	return out
}

func sendBefore(a, b *sendRec) bool { return a.w < b.w || a.w == b.w && a.l < b.l }

// sortByClock is graph.sortByClock over the index.
func (m *merger) sortByClock(c []int32) []int32 {
	slices.SortStableFunc(c, func(a, b int32) int {
		switch {
		case sendBefore(&m.sends[a], &m.sends[b]):
			return -1
		case sendBefore(&m.sends[b], &m.sends[a]):
			return 1
		}
		return 0
	})
	return slices.CompactFunc(c, func(a, b int32) bool {
		return !sendBefore(&m.sends[a], &m.sends[b]) && !sendBefore(&m.sends[b], &m.sends[a])
	})
}

// latest is graph.latest over the index: first is the key's first send.
func (m *merger) latest(first int32, orig bool, e *event) int32 {
	w, l := clock(e)
	f := &m.sends[first]
	many := f.next >= 0
	if orig {
		many = f.onext >= 0
	}
	if !many || w < f.w || w == f.w && l < f.l {
		return first
	}
	key := first
	if orig {
		key = -first - 1
	}
	sorted := m.byClock[key]
	k, _ := slices.BinarySearchFunc(sorted, e, func(x int32, _ *event) int {
		s := &m.sends[x]
		if w < s.w || w == s.w && l < s.l {
			return 1
		}
		return -1
	})
	return sorted[k-1]
}

// pred finds the send an event follows, as buildGraph does, counting
// matched and unmatched receives.
func (m *merger) pred(p int32, pos uint64, e *event) int32 {
	if e.typ == tRelay && e.origin != e.node && e.origin != protocol.None {
		if first, ok := m.byOrig[msgKey{e.origin, e.oseq}]; ok {
			return m.latest(first, true, e)
		}
		return -1
	}
	if !isReceive(e) || e.from == e.node || e.from == protocol.None && e.origin == protocol.None {
		return -1
	}
	first, orig, ok := int32(-1), false, false
	if e.origin != protocol.None && e.origin != e.from {
		first, ok = m.byOrig[msgKey{e.origin, e.oseq}]
		orig = ok
	}
	if !ok {
		first, ok = m.byKey[msgKey{e.from, e.seq}]
	}
	if !ok && e.origin != protocol.None {
		first, ok = m.byOrig[msgKey{e.origin, e.oseq}]
		orig = ok
	}
	if !ok {
		m.unmatched++
		at := sendAt{p, pos}
		k, _ := slices.BinarySearchFunc(m.unlisted, at, func(u unmatchedAt, at sendAt) int {
			if c := cmp.Compare(u.at.p, at.p); c != 0 {
				return c
			}
			return cmp.Compare(u.at.pos, at.pos)
		})
		if k < maxProblems {
			m.unlisted = slices.Insert(m.unlisted, k, unmatchedAt{at, trace.Problem{File: m.r.files[e.file], Line: int(e.line),
				Msg: fmt.Sprintf("%s from node %d seq %d has no matching send (sender's trace lost?)", evName(e), e.from, e.seq)}})
			if len(m.unlisted) > maxProblems {
				m.unlisted = m.unlisted[:maxProblems]
			}
		}
		return -1
	}
	m.matched++
	return m.latest(first, orig, e)
}

// sitem is a process whose head is ready (or parked on its send).
type sitem struct {
	w   int64
	l   uint32
	id  protocol.NodeID
	p   int32
	pos uint64 // the head's position (parked heads only)
}

// sheap orders heads as headHeap does.
type sheap []sitem

func (h sheap) Len() int { return len(h) }
func (h sheap) Less(a, b int) bool {
	x, y := h[a], h[b]
	if x.w != y.w {
		return x.w < y.w
	}
	if x.l != y.l {
		return x.l < y.l
	}
	if x.id != y.id {
		return x.id < y.id
	}
	return x.p < y.p
}
func (h sheap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *sheap) Push(x any)   { *h = append(*h, x.(sitem)) }
func (h *sheap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

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
		heap.Push(m.parked, sitem{w, l, sp.id, p, hd.pos})
		return
	}
	heap.Push(m.h, sitem{w, l, sp.id, p, 0})
}

// run merges: graph.order over the streams.
func (m *merger) run() {
	m.h, m.parked = &sheap{}, &sheap{}
	m.prog = newProgress("merging", m.lines, linesUnit)
	rp := m.procs[0]
	for i := range rp.q {
		rp.q[i].pred = m.pred(0, rp.q[i].pos, &rp.q[i].e)
	}
	if m.hasComb {
		m.openCombined()
	}
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
		it := heap.Pop(m.h).(sitem)
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
					heap.Push(m.h, sitem{ww, wl, m.procs[wt.p].id, wt.p, 0})
				}
			}
		}
	}
	m.closeCombined()
}

// emit writes one merged line.
func (m *merger) emit(x *sev) {
	m.events++
	if m.werr != nil {
		return
	}
	// Src is the encoder's last field, so appending it before the
	// closing brace is exactly what AppendJSON would write.
	line := append(m.line[:0], x.line[:len(x.line)-1]...)
	line = append(line, m.prefixes[x.e.file]...)
	line = strconv.AppendInt(line, int64(x.e.line), 10)
	line = append(line, '"', '}', '\n')
	m.line = line
	if _, err := m.out.Write(line); err != nil {
		m.werr = err
	}
}

// breakCycle is graph.breakCycle: every remaining head waits for a send
// that cannot come first; the parked head with the smallest clock is
// released without its edge. It reports false when no head is left.
func (m *merger) breakCycle() bool {
	var best sitem
	found := false
	for m.parked.Len() > 0 {
		it := heap.Pop(m.parked).(sitem)
		if hd := m.head(it.p); hd != nil && hd.pos == it.pos {
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
	heap.Push(m.h, sitem{w, l, m.procs[best.p].id, best.p, 0})
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

// pull reads process p's next accepted event from its node files, as
// readFile judges them, ending each file's problems as readFile does.
func (m *merger) pull(p int32) {
	sp := m.procs[p]
	r := m.r
	for !sp.ended {
		if sp.lr == nil {
			if sp.seg >= len(sp.files) {
				sp.ended = true
				return
			}
			path := r.files[sp.files[sp.seg]]
			sp.lr = trace.NewLineReader(trace.NewReopenReader(path), path, 4<<10)
			sp.own = nil
			// The header, judged by index.
			if e, _, err := sp.lr.Next(nil); err != nil || e == nil {
				m.endFile(sp, err)
				continue
			}
		}
		fi := sp.files[sp.seg]
		path := r.files[fi]
		e, line, err := sp.lr.Next(nil)
		if err != nil || e == nil {
			m.endFile(sp, err)
			continue
		}
		if e.Ev == trace.EvHeader {
			sp.own = append(sp.own, trace.Problem{File: path, Line: line, Msg: "a second header; skipped"})
			continue
		}
		if e.Node != sp.id {
			sp.own = append(sp.own, trace.Problem{File: path, Line: line, Msg: fmt.Sprintf("event of node %d in node %d's file; skipped", e.Node, sp.id)})
			continue
		}
		if !r.screen.Event(path, line, e, &sp.own) {
			continue
		}
		if m.accept(p, sp, e, fi, line, filePos(fi, line), &sp.own) {
			return
		}
	}
}

// accept queues an accepted event of process p, unless it is a
// duplicate (take's judgement).
func (m *merger) accept(p int32, sp *sproc, e *trace.Event, fi int32, line int, pos uint64, own *[]trace.Problem) bool {
	r := m.r
	var buf []byte
	if !sp.combined {
		// At most one event waits per node file: its buffer is reused.
		buf = trace.AppendJSON(sp.lineBuf[:0], e)
		sp.lineBuf = buf
	} else {
		buf = trace.AppendJSON(nil, e)
	}
	past := func(add func(h, at uint64)) {
		var segs []segment
		if !sp.combined {
			for _, f := range sp.files[:sp.seg] {
				segs = append(segs, segment{f, false})
			}
		}
		r.rescan(sp.id, segs, segment{fi, sp.combined}, line, nil, add)
	}
	if prev, dup := sp.dup.seen(e.T, lineHash(buf), uint64(fi)<<32|uint64(uint32(line)), past); dup {
		r.duplicates++
		*own = append(*own, trace.Problem{File: r.files[fi], Line: line,
			Msg: fmt.Sprintf("duplicate of %s:%d; dropped", r.files[prev>>32], uint32(prev))})
		return false
	}
	ce := r.compact(e)
	ce.file, ce.line = fi, int32(line)
	sp.q = append(sp.q, sev{e: ce, pos: pos, pred: m.pred(p, pos, &ce), line: buf})
	return true
}

// endFile closes the file a process was reading, with its problems.
func (m *merger) endFile(sp *sproc, err error) {
	r := m.r
	fi := sp.files[sp.seg]
	path := r.files[fi]
	g := append(sp.own, sp.lr.Problems...)
	if err != nil {
		g = append(g, trace.Problem{File: path, Msg: err.Error() + "; file skipped"})
	} else {
		slices.SortStableFunc(g, func(a, b trace.Problem) int { return a.Line - b.Line })
		r.screen.Finish(path, &g)
	}
	m.setGroup(fi, g)
	sp.lr, sp.own = nil, nil
	sp.seg++
}

// openCombined starts reading the combined node file.
func (m *merger) openCombined() {
	path := m.r.files[m.combFile]
	for _, sp := range m.procs[1:] {
		sp.combined = true
	}
	m.combWhy = map[protocol.NodeID]string{}
	f, err := os.Open(path)
	if err != nil {
		m.combEOF = true
		m.setGroup(m.combFile, []trace.Problem{{File: path, Msg: fmt.Sprintf("trace: %v; file skipped", err)}})
		return
	}
	m.combF = f
	m.comb = trace.NewLineReader(f, path, 64<<10)
}

// safe reports whether the heap's smallest head can be merged: every
// event of the combined file with a clock up to its own has been read
// (the file is in time order).
func (m *merger) safe(it sitem) bool {
	return m.readAny && (m.readW > it.w || m.readW == it.w && m.readL > it.l)
}

// readCombined reads the combined file's next line into its node's
// queue, judged as readCombined (combined.go) judges it.
func (m *merger) readCombined() {
	r := m.r
	path := r.files[m.combFile]
	e, line, err := m.comb.Next(nil)
	if err != nil || e == nil {
		m.combEOF = true
		g := append(m.combOwn, m.comb.Problems...)
		slices.SortStableFunc(g, func(a, b trace.Problem) int { return a.Line - b.Line })
		switch {
		case err != nil:
			g = append(g, trace.Problem{File: path, Msg: err.Error() + "; file skipped"})
		case !m.combAny:
			g = append(g, trace.Problem{File: path, Msg: "no events, not even a header; file skipped"})
		default:
			for _, sp := range m.procs[1:] {
				r.screen.FinishNode(path, sp.id, &g)
			}
		}
		m.setGroup(m.combFile, g)
		return
	}
	m.combAny = true
	id := e.Node
	if id == protocol.None {
		m.combOwn = append(m.combOwn, trace.Problem{File: path, Line: line, Msg: trace.MsgNoNode})
		return
	}
	w, seen := m.combWhy[id]
	if !seen {
		w = r.headerProblem(e, id)
		if w == "" && !r.screen.Member(id) {
			w = fmt.Sprintf("node %d is not in the run's scenario", id)
		}
		m.combWhy[id] = w
		if w != "" {
			m.combOwn = append(m.combOwn, trace.Problem{File: path, Line: line, Msg: trace.NodeSkipped(id, w)})
		}
		return
	}
	if w != "" {
		return
	}
	if e.Ev == trace.EvHeader {
		m.combOwn = append(m.combOwn, trace.Problem{File: path, Line: line, Msg: fmt.Sprintf("a second header of node %d; skipped", id)})
		return
	}
	if !r.screen.NodeEvent(path, id, line, e, &m.combOwn) {
		return
	}
	p, ok := m.byID[id]
	if !ok {
		return
	}
	sp := m.procs[p]
	wasEmpty := sp.qh >= len(sp.q)
	if !m.accept(p, sp, e, m.combFile, line, uint64(uint32(line)), &m.combOwn) {
		return
	}
	cw, cl := clock(&sp.q[len(sp.q)-1].e)
	if !m.readAny || cw > m.readW || cw == m.readW && cl > m.readL {
		m.readW, m.readL, m.readAny = cw, cl, true
	}
	if wasEmpty {
		m.offer(p)
	}
}

// closeCombined closes the combined file.
func (m *merger) closeCombined() {
	if m.combF != nil {
		m.combF.Close()
	}
}
