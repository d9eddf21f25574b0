package analysis

// The streaming merge's second pass (stream.go): reading the node
// files side by side, or the combined file demultiplexed, each line
// judged as load judges it.

import (
	"fmt"
	"slices"

	"manetlab/trace"
)

// pull reads process p's next accepted event from its files: node files
// as readFile judges them, ending each file's problems as readFile does,
// and its lines of a combined file read whole (preread.go).
func (m *merger) pull(p int32) {
	sp := m.procs[p]
	r := m.r
	for !sp.ended {
		if sp.seg >= len(sp.files) {
			sp.ended = true
			return
		}
		sg := sp.files[sp.seg]
		if sg.combined {
			if m.pullPre(p, sp, sg.file) {
				return
			}
			sp.seg++
			continue
		}
		path := r.files[sg.file]
		if sp.lr == nil {
			sp.lr = trace.NewLineReader(trace.NewReopenReader(path), path, 4<<10)
			sp.own = nil
			// The header, judged by index.
			if e, _, err := sp.lr.Next(nil); err != nil || e == nil {
				m.endFile(sp, err)
				continue
			}
		}
		e, line, err := sp.lr.Next(nil)
		if err != nil || e == nil {
			m.endFile(sp, err)
			continue
		}
		if !r.nodeLine(path, sp.id, false, line, e, &sp.own) {
			continue
		}
		if m.accept(p, sp, e, sg, line, &sp.own) {
			return
		}
	}
}

// accept queues an accepted event of process p, at line of file cur,
// unless it is a duplicate (take's judgement).
func (m *merger) accept(p int32, sp *sproc, e *trace.Event, cur segment, line int, own *[]trace.Problem) bool {
	r := m.r
	fi, pos := cur.file, filePos(cur.file, line)
	var buf []byte
	if !sp.combined {
		// At most one event waits per node file: its buffer is reused.
		buf = trace.AppendJSON(sp.lineBuf[:0], e)
		sp.lineBuf = buf
	} else {
		// The lines waiting in the combined file's queues are cut from
		// shared slabs, not allocated one by one; a slab is freed once
		// every line in it is merged.
		if cap(m.slab)-len(m.slab) < 4<<10 {
			m.slab = make([]byte, 0, 1<<20)
		}
		start := len(m.slab)
		m.slab = trace.AppendJSON(m.slab, e)
		buf = m.slab[start:len(m.slab):len(m.slab)]
	}
	past := func(add func(h, at uint64)) {
		r.rescan(sp.id, sp.files[:sp.seg], cur, line, nil, add)
	}
	if prev, dup := sp.dup.seen(e.T, eventHash(e), uint64(fi)<<32|uint64(uint32(line)), past); dup {
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
	fi := sp.files[sp.seg].file
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
	m.combWhy = &trace.IDMap[string]{}
	f, err := trace.Open(path)
	if err != nil {
		m.combEOF = true
		m.setGroup(m.combFile, []trace.Problem{{File: path, Msg: fmt.Sprintf("trace: %v; file skipped", err)}})
		return
	}
	m.combF = f
	m.comb = trace.NewAhead(trace.NewLineReader(f, path, 64<<10), nil, nil) // decoded on the second core
}

// safe reports whether the heap's smallest head can be merged: every
// event of the combined file with a clock up to its own has been read
// (the file is in time order).
func (m *merger) safe(it headItem) bool {
	return m.readAny && (m.readW > it.w || m.readW == it.w && m.readL > it.l)
}

// readCombined reads the combined file's next line into its node's
// queue, judged as readCombined (combined.go) judges it.
func (m *merger) readCombined() {
	r := m.r
	path := r.files[m.combFile]
	e, line, err := m.comb.Next()
	if err != nil || e == nil {
		m.combEOF = true
		g := append(m.combOwn, m.comb.Problems()...)
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
	if !r.combinedLine(path, m.combWhy, line, e, &m.combOwn) {
		return
	}
	id := e.Node
	p, ok := m.byID.Get(id)
	if !ok {
		return
	}
	sp := m.procs[p]
	wasEmpty := sp.qh >= len(sp.q)
	if !m.accept(p, sp, e, segment{m.combFile, true}, line, &m.combOwn) {
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
	if m.comb != nil {
		m.comb.Stop()
	}
	if m.combF != nil {
		m.combF.Close()
	}
}
