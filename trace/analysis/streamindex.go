package analysis

// The streaming merge's first pass (stream.go): the sends, indexed, and
// the receives matched to them as buildGraph matches them.

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"

	"manetlab/protocol"
	"manetlab/trace"
)

// index reads the run files whole, and the sends of every node file
// (first pass), numbering the processes as load does.
func (m *merger) index(lay *layout) error {
	r := m.r
	runProc := r.procs[0]
	m.preCount = len(r.problems)
	m.missing = slices.Clone(r.problems)
	r.problems = r.problems[:0]
	type nodeFile struct {
		id protocol.NodeID
		segment
	}
	var files []nodeFile // in run.files order for each node
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
			// Alone, it is read along the merge (streamread.go); with
			// other directories, whole first (preread.go).
			combined = true
			fi := int32(len(r.files))
			r.files = append(r.files, trace.NodesFile(d))
			if len(r.dirs) == 1 {
				m.combFile, m.hasComb = fi, true
			} else {
				m.pre = append(m.pre, &preFile{file: fi})
			}
			mine := usable // alone, its nodes are the run's
			if !m.hasComb {
				mine = map[protocol.NodeID]bool{}
			}
			n := len(recs)
			if !m.indexCombined(trace.NodesFile(d), fi, mine, &recs) {
				// Skipped whole: the second pass reads it for its problems.
				clear(mine)
				recs = recs[:n]
				continue
			}
			for id := range mine {
				if m.hasComb {
					break
				}
				usable[id] = true
				files = append(files, nodeFile{id, segment{fi, true}})
			}
			continue
		}
		for _, id := range lay.perDir[i] {
			fi := int32(len(r.files))
			path := trace.NodeFile(d, id)
			n := len(recs)
			r.files = append(r.files, path)
			if m.indexFile(path, fi, id, &recs) {
				files = append(files, nodeFile{id, segment{fi, false}})
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
	m.byID = trace.IDMap[int32]{}
	m.procs = []*sproc{{ended: true}}
	for i := range runProc.evs {
		e := &runProc.evs[i]
		m.procs[0].q = append(m.procs[0].q, sev{e: *e, pos: uint64(i), pred: -1, line: m.runLines[i]})
		if e.typ == tStart {
			m.procs[0].life++
		}
		if isSend(e) {
			runSends = append(runSends, m.sendOf(e, 0, uint64(i), m.procs[0].life))
		}
	}
	m.procs[0].life = 0
	for _, id := range ids {
		m.byID.Set(id, int32(len(m.procs)))
		pr := &proc{id: id, evs: []event{}}
		r.byID[id] = pr
		r.procs = append(r.procs, pr)
		m.procs = append(m.procs, &sproc{id: id})
	}
	for _, f := range files {
		p, _ := m.byID.Get(f.id)
		sp := m.procs[p]
		sp.files = append(sp.files, f.segment)
	}
	for i := range recs {
		recs[i].p, _ = m.byID.Get(protocol.NodeID(recs[i].p))
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
	st := m.idxOf(id)
	f, err := trace.Open(path)
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
			if why, _ := r.nodeHeader(e, id); why != "" {
				return false
			}
			continue
		}
		if !indexWanted(e.Ev) || !r.nodeLine(path, id, false, line, e, nil) {
			continue
		}
		past := func(add func(h, at uint64)) { r.rescan(id, st.segs, segment{fi, false}, line, nil, add) }
		if _, d := st.dup.seen(e.T, eventHash(e), uint64(fi)<<32|uint64(uint32(line)), past); d {
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

// idxOf is node id's state in the first pass.
func (m *merger) idxOf(id protocol.NodeID) *idxState {
	st, _ := m.idx.Get(id)
	if st == nil {
		st = &idxState{}
		m.idx.Set(id, st)
	}
	return st
}

// indexCombined is indexFile for the combined node file, file fi: every
// node's sends and starts, and which nodes are usable. ok is false when
// the file is skipped whole.
func (m *merger) indexCombined(path string, fi int32, usable map[protocol.NodeID]bool, recs *[]sendRec) bool {
	r := m.r
	f, err := trace.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	// Every node's first line is decoded, whatever its type: the lines
	// are read and decoded on the second core, which keeps its own
	// record of the nodes seen (those of the events it handed out).
	var seen trace.IDMap[bool]
	lr := trace.NewAhead(trace.NewLineReader(f, path, 64<<10), func(ev string, raw []byte) bool {
		if raw == nil || indexWanted(ev) {
			return true
		}
		id, ok := rawNode(raw)
		if !ok {
			return true
		}
		_, done := seen.Get(id)
		return !done
	}, func(e *trace.Event) {
		if e.Node != protocol.None {
			seen.Set(e.Node, true)
		}
	})
	defer lr.Stop()
	why := &trace.IDMap[string]{}
	any := false
	prog := newCount("indexing "+trace.NodesFileName, linesUnit)
	for {
		e, line, err := lr.Next()
		if err != nil {
			return false
		}
		if e == nil {
			m.lines += int64(line)
			for id := range usable {
				if m.hasComb {
					break // alone: no file follows it
				}
				st := m.idxOf(id)
				st.segs = append(st.segs, segment{fi, true})
			}
			break
		}
		any = true
		prog.set(int64(line))
		id := e.Node
		_, seen := why.Get(id)
		if !r.combinedLine(path, why, line, e, nil) {
			if w, _ := why.Get(id); !seen && w == "" && id != protocol.None {
				usable[id] = true
				m.idxOf(id)
			}
			continue
		}
		if !indexWanted(e.Ev) {
			continue
		}
		st, _ := m.idx.Get(id)
		past := func(add func(h, at uint64)) { r.rescan(id, st.segs, segment{fi, true}, line, nil, add) }
		if _, d := st.dup.seen(e.T, eventHash(e), uint64(fi)<<32|uint64(uint32(line)), past); d {
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
	m.byKey, m.byOrig = newMsgMap[int32](), newMsgMap[int32]()
	lastKey, lastOrig := newMsgMap[int32](), newMsgMap[int32]()
	type use struct {
		life int32
		at   int32
	}
	lastUse := newMsgMap[use]()
	reused := 0
	for i := range m.sends {
		s := &m.sends[i]
		k := msgKey{s.node, s.seq}
		if u, ok := lastUse.get(k); ok && u.life == s.life && m.sends[u.at].p == s.p {
			if reused++; reused <= maxProblems {
				f := &m.sends[u.at]
				m.graph = append(m.graph, trace.Problem{File: r.files[s.file], Line: int(s.line),
					Msg: fmt.Sprintf("node %d uses seq %d again (first at %s:%d) without a restart; receives go to the latest send before them", s.node, s.seq, r.files[f.file], f.line)})
			}
		}
		lastUse.set(k, use{s.life, int32(i)})
		if j, ok := lastKey.get(k); ok {
			m.sends[j].next = int32(i)
		} else {
			m.byKey.set(k, int32(i))
		}
		lastKey.set(k, int32(i))
		if s.typ == tSend && s.orig == s.node && s.oseq != 0 {
			ko := msgKey{s.orig, s.oseq}
			if j, ok := lastOrig.get(ko); ok {
				m.sends[j].onext = int32(i)
			} else {
				m.byOrig.set(ko, int32(i))
			}
			lastOrig.set(ko, int32(i))
		}
	}
	if reused > maxProblems {
		m.graph = append(m.graph, trace.Problem{File: r.dirs[0], Msg: fmt.Sprintf("%d more sequence numbers used again without a restart", reused-maxProblems)})
	}
	m.byClock = map[int32][]int32{}
	m.byKey.each(func(first int32) {
		if m.sends[first].next >= 0 {
			m.byClock[first] = m.sortByClock(m.cands(first, false))
		}
	})
	m.byOrig.each(func(first int32) {
		if m.sends[first].onext >= 0 {
			m.byClock[-first-1] = m.sortByClock(m.cands(first, true))
		}
	})
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
		if first, ok := m.byOrig.get(msgKey{e.origin, e.oseq}); ok {
			return m.latest(first, true, e)
		}
		return -1
	}
	if !isReceive(e) || e.from == e.node || e.from == protocol.None && e.origin == protocol.None {
		return -1
	}
	first, orig, ok := int32(-1), false, false
	if e.origin != protocol.None && e.origin != e.from {
		first, ok = m.byOrig.get(msgKey{e.origin, e.oseq})
		orig = ok
	}
	if !ok {
		first, ok = m.byKey.get(msgKey{e.from, e.seq})
	}
	if !ok && e.origin != protocol.None {
		first, ok = m.byOrig.get(msgKey{e.origin, e.oseq})
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

// msgMap maps message keys to values: the keys whose seq fits in 32 bits
// (a run's, but for damage) packed in one word, which the map hashes by
// its fast path for integers (the struct key's hash was an eighth of a
// merge's CPU), the others by the struct.
type msgMap[V any] struct {
	small map[uint64]V
	big   map[msgKey]V
}

func newMsgMap[V any]() msgMap[V] {
	return msgMap[V]{small: map[uint64]V{}, big: map[msgKey]V{}}
}

func (m msgMap[V]) get(k msgKey) (V, bool) {
	if k.seq>>32 == 0 {
		v, ok := m.small[uint64(k.node)<<32|k.seq]
		return v, ok
	}
	v, ok := m.big[k]
	return v, ok
}

func (m msgMap[V]) set(k msgKey, v V) {
	if k.seq>>32 == 0 {
		m.small[uint64(k.node)<<32|k.seq] = v
		return
	}
	m.big[k] = v
}

// each calls fn with every value, in no particular order.
func (m msgMap[V]) each(fn func(V)) {
	for _, v := range m.small {
		fn(v)
	}
	for _, v := range m.big {
		fn(v)
	}
}
