package trace

import (
	"fmt"
	"math"
	"time"

	"manetlab/protocol"
)

// Screen decides, event by event, what of a damaged or hostile trace the
// analysis may use, so that no value in a file can make it loop or
// overflow: a time far beyond the run (one line at 1000 hours would make
// every time grid of the run that long), a position that is not a finite
// number of metres, a node that is not in the run. Every decision is a
// Problem naming file:line; what it names is either skipped or used as
// the Problem says. docs/analysis.md ("Input, and bad input") lists the
// rules. A Screen is not safe for concurrent use.
type Screen struct {
	// horizon is the scenario's duration (0: unknown); limit the latest
	// acceptable time and floor the earliest.
	horizon, limit, floor int64
	members               *IDMap[bool] // nil: unknown, every node accepted
	// files keeps apart, by path, a file (node 0) or each node's lines
	// of a combined node file; cur is files[curPath], so that a combined
	// file's lines do not hash its path each.
	files   map[string]*IDMap[*screenFile]
	curPath string
	cur     *IDMap[*screenFile]
}

// screenFile is the Screen's state for one file.
type screenFile struct {
	last       int64 // time of the latest event used
	any        bool
	back, neg  int // events that went back in time, events before 0
	backListed int
	negListed  int
}

// ScreenSlack is how far beyond the scenario's duration (at least) an
// event may lie and still be used: real nodes stop a little after the
// run's end, and the clocks of several machines disagree. The slack is
// the duration itself when that is longer.
const ScreenSlack = time.Minute

// MaxCoordinate bounds a position's coordinates in metres (a million
// kilometres): beyond it, or not a finite number, a position is skipped.
const MaxCoordinate = 1e9

// MaxBytes bounds an event's byte count; a larger or negative one is
// counted as 0.
const MaxBytes = 1 << 30

// screenListed is how many problems of one kind a file gets before the
// rest are only counted.
const screenListed = 3

// NewScreen returns a screen for a run of the given duration (0: unknown;
// then only times beyond a year are refused) whose nodes are members
// (nil: unknown, any node).
func NewScreen(duration time.Duration, members []protocol.NodeID) *Screen {
	s := &Screen{horizon: int64(duration), files: map[string]*IDMap[*screenFile]{}}
	slack := max(int64(ScreenSlack), s.horizon)
	if s.horizon <= 0 {
		slack = int64(366 * 24 * time.Hour)
	}
	s.limit, s.floor = s.horizon+slack, -slack
	if members != nil {
		s.members = &IDMap[bool]{}
		for _, id := range members {
			s.members.Set(id, true)
		}
	}
	return s
}

// Member reports whether id is a node of the run (always, when the
// members are unknown).
func (s *Screen) Member(id protocol.NodeID) bool {
	if s == nil || s.members == nil {
		return true
	}
	ok, _ := s.members.Get(id)
	return ok
}

// Event judges the event e at path:line (not a header). It returns false
// when e must be skipped; problems, if any, are appended to *probs. It may
// correct e in place (a byte count out of range becomes 0), saying so.
func (s *Screen) Event(path string, line int, e *Event, probs *[]Problem) bool {
	return s.NodeEvent(path, 0, line, e, probs)
}

// NodeEvent is Event for a line of node's in the combined node file at
// path (NodesFileName): the times of each node's lines are judged apart,
// as if they were in a file of their own.
func (s *Screen) NodeEvent(path string, node protocol.NodeID, line int, e *Event, probs *[]Problem) bool {
	if s == nil {
		return true
	}
	f := s.file(path, node)
	add := func(msg string, args ...any) {
		*probs = append(*probs, Problem{File: path, Line: line, Msg: fmt.Sprintf(msg, args...)})
	}
	switch {
	case e.T > s.limit:
		if s.horizon > 0 {
			add("time %v is far beyond the run (scenario duration %v; at most %v accepted); skipped", time.Duration(e.T), time.Duration(s.horizon), time.Duration(s.limit))
		} else {
			add("time %v is far beyond any run (at most %v accepted); skipped", time.Duration(e.T), time.Duration(s.limit))
		}
		return false
	case e.T < s.floor:
		add("time %v is far before the run's start (at least %v accepted); skipped", time.Duration(e.T), time.Duration(s.floor))
		return false
	}
	if e.Node != protocol.None && !s.Member(e.Node) {
		add("node %d is not in the run's scenario; skipped", e.Node)
		return false
	}
	if e.Pos != nil {
		for _, c := range e.Pos {
			if math.IsNaN(c) || math.Abs(c) > MaxCoordinate {
				add("position %v is not a coordinate in metres (at most %g); skipped", *e.Pos, float64(MaxCoordinate))
				return false
			}
		}
	}
	if e.Value != nil && (math.IsNaN(*e.Value) || math.IsInf(*e.Value, 0)) {
		add("value %v is not a number; skipped", *e.Value)
		return false
	}
	if e.Bytes < 0 || e.Bytes > MaxBytes {
		add("byte count %d out of range (0 to %d); counted as 0", e.Bytes, MaxBytes)
		e.Bytes = 0
	}
	if e.T < 0 {
		f.neg++
		if f.negListed < screenListed {
			f.negListed++
			add("time %v is before the run's start (a clock set before it?); used", time.Duration(e.T))
		}
	}
	if f.any && e.T < f.last {
		f.back++
		if f.backListed < screenListed {
			f.backListed++
			if node != 0 {
				add("time %v goes back %v from node %d's previous event; used in the node's order", time.Duration(e.T), time.Duration(f.last-e.T), node)
			} else {
				add("time %v goes back %v from the file's previous event; used in file order", time.Duration(e.T), time.Duration(f.last-e.T))
			}
		}
	}
	f.any = true
	f.last = max(f.last, e.T)
	return true
}

// file is the state of node's lines at path (node 0: the whole file).
func (s *Screen) file(path string, node protocol.NodeID) *screenFile {
	if s.cur == nil || path != s.curPath {
		m := s.files[path]
		if m == nil {
			m = &IDMap[*screenFile]{}
			s.files[path] = m
		}
		s.curPath, s.cur = path, m
	}
	f, _ := s.cur.Get(node)
	if f == nil {
		f = &screenFile{}
		s.cur.Set(node, f)
	}
	return f
}

// Finish reports, per file, the events of each kind beyond those listed.
func (s *Screen) Finish(path string, probs *[]Problem) { s.FinishNode(path, 0, probs) }

// FinishNode is Finish for node's lines of the combined node file at path.
func (s *Screen) FinishNode(path string, node protocol.NodeID, probs *[]Problem) {
	if s == nil {
		return
	}
	m := s.files[path]
	if m == nil {
		return
	}
	f, _ := m.Get(node)
	if f == nil {
		return
	}
	who, order := "", "file order"
	if node != 0 {
		who, order = fmt.Sprintf("node %d: ", node), "the node's order"
	}
	if n := f.back - f.backListed; n > 0 {
		*probs = append(*probs, Problem{File: path, Msg: fmt.Sprintf("%s%d more events go back in time; used in %s", who, n, order)})
	}
	if n := f.neg - f.negListed; n > 0 {
		*probs = append(*probs, Problem{File: path, Msg: fmt.Sprintf("%s%d more events before the run's start; used", who, n)})
	}
}

// Accepts reports whether Event would use e, without recording anything:
// the same judgement, for a second reading of the same lines.
func (s *Screen) Accepts(e *Event) bool {
	if s == nil {
		return true
	}
	if e.T > s.limit || e.T < s.floor || e.Node != protocol.None && !s.Member(e.Node) {
		return false
	}
	if e.Pos != nil {
		for _, c := range e.Pos {
			if math.IsNaN(c) || math.Abs(c) > MaxCoordinate {
				return false
			}
		}
	}
	return e.Value == nil || !math.IsNaN(*e.Value) && !math.IsInf(*e.Value, 0)
}
