package analysis

// The streaming merge of a combined node file merged with other
// directories (stream.go): a node's lines in it come between its lines
// in the directories before and after, so the merge cannot read the file
// along the smallest clock as it reads a combined file alone. It is read
// whole first, each accepted line kept by node (its canonical JSON) until
// the node's process reaches this file; the lines are then judged for
// duplicates and merged as a node file's.

import (
	"fmt"
	"slices"

	"manetlab/protocol"
	"manetlab/trace"
)

// preFile is a combined file read whole.
type preFile struct {
	file   int32
	lines  trace.IDMap[*preLines]
	usable []protocol.NodeID // the nodes with an acceptable header, ascending
	own    []trace.Problem   // the lines' problems, then the duplicates'
	reader []trace.Problem   // the line reader's
	screen []trace.Problem   // the screen's, ending the file
	err    error
	any    bool
}

// preLines are a node's accepted lines of a preFile, not yet merged.
type preLines struct {
	line  []int32
	canon [][]byte
	next  int
}

// preread reads the combined files merged with other directories, each
// line judged as readCombined judges it.
func (m *merger) preread() {
	r := m.r
	for _, pf := range m.pre {
		path := r.files[pf.file]
		f, err := trace.Open(path)
		if err != nil {
			pf.err = fmt.Errorf("trace: %w", err) // as trace.ScanEvents says it
			continue
		}
		lr := trace.NewLineReader(f, path, 64<<10)
		var why trace.IDMap[string]
		for {
			e, line, err := lr.Next(nil)
			if err != nil || e == nil {
				pf.err = err
				break
			}
			pf.any = true
			if !r.combinedLine(path, &why, line, e, &pf.own) {
				continue
			}
			if _, ok := m.byID.Get(e.Node); !ok {
				continue
			}
			pl, _ := pf.lines.Get(e.Node)
			if pl == nil {
				pl = &preLines{}
				pf.lines.Set(e.Node, pl)
			}
			pl.line = append(pl.line, int32(line))
			pl.canon = append(pl.canon, trace.AppendJSON(nil, e))
		}
		f.Close()
		pf.reader = lr.Problems
		why.Each(func(id protocol.NodeID, w string) {
			if w == "" {
				pf.usable = append(pf.usable, id)
			}
		})
		slices.Sort(pf.usable)
		if pf.err == nil && pf.any {
			// Now: the screen counts by path, and a directory may be given twice.
			for _, id := range pf.usable {
				r.screen.FinishNode(path, id, &pf.screen)
			}
		}
	}
}

// pullPre queues process p's next accepted line of combined file fi, and
// says whether there was one.
func (m *merger) pullPre(p int32, sp *sproc, fi int32) bool {
	pf := m.preFile(fi)
	pl, _ := pf.lines.Get(sp.id)
	for pl != nil && pl.next < len(pl.line) {
		k := pl.next
		pl.next++
		var e trace.Event
		if err := trace.Decode(pl.canon[k], &e); err != nil {
			continue // not possible: the line is AppendJSON's
		}
		pl.canon[k] = nil
		if m.accept(p, sp, &e, segment{fi, true}, int(pl.line[k]), &pf.own) {
			return true
		}
	}
	return false
}

// preFile is the combined file fi read whole.
func (m *merger) preFile(fi int32) *preFile {
	for _, pf := range m.pre {
		if pf.file == fi {
			return pf
		}
	}
	panic("analysis: not a combined file read whole")
}

// finishPre ends the problems of the combined files read whole, as
// readCombined ends them.
func (m *merger) finishPre() {
	r := m.r
	for _, pf := range m.pre {
		path := r.files[pf.file]
		g := append(pf.own, pf.reader...)
		slices.SortStableFunc(g, func(a, b trace.Problem) int { return a.Line - b.Line })
		switch {
		case pf.err != nil:
			g = append(g, trace.Problem{File: path, Msg: pf.err.Error() + "; file skipped"})
		case !pf.any:
			g = append(g, trace.Problem{File: path, Msg: "no events, not even a header; file skipped"})
		default:
			g = append(g, pf.screen...)
		}
		m.setGroup(pf.file, g)
	}
}
