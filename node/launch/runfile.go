package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"manetlab/node"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// CrashSlack is how far after its recorded crash a node's trace may still
// hold events without a warning: the record is written once the process
// is gone, by a launcher on the node's own machine, so only clock
// adjustments between the two readings can put an event after it.
const CrashSlack = 10 * time.Millisecond

// Collected is what WriteCollectedRunFile wrote and found.
type Collected struct {
	// Faults are the crashes and recoveries written into the run file,
	// ascending by time.
	Faults []trace.Event
	// FromRecord says whether they come from the faults record
	// (trace.FaultsFileName); else from the traces.
	FromRecord bool
	// Warnings are disagreements between the record and the traces, one
	// line each.
	Warnings []string
	// End is the run's length written into the run file; EndFrom, when
	// not empty, says where it comes from when it is not the scenario's
	// duration (an earlier run file's end, or the traces' last events:
	// an interrupted run).
	End     time.Duration
	EndFrom string
}

// WriteCollectedRunFile writes run.jsonl into dir for run of scenario s
// whose node traces were gathered there (started by hand or on other
// machines), with the faults that really happened, never the schedule:
// those of the faults record dir/faults.jsonl when there is one (each
// launcher records a fault when it applied it), else those the traces
// show: a crash where a process's trace ends without an end event (at its
// last event, the latest time it is known alive) and a recovery where a
// new process of the node starts. A fault at or after the run's end is
// not one. With a record, it warns of a node whose trace holds events
// after a recorded crash (by more than CrashSlack) and before the
// recovery, of a new start without a recorded recovery, and of a trace
// that ends early without a recorded crash.
func WriteCollectedRunFile(dir, run string, s *scenario.Scenario) (*Collected, error) {
	dur := s.Duration.D()
	// A run file already there (a launcher's, of this run) may say the
	// run ended early: interrupted.
	recorded := recordedEnd(dir, run)
	// The traces are read against a run file: a provisional one first,
	// without faults.
	if err := node.WriteRunFile(dir, s, run, nil, 0); err != nil {
		return nil, err
	}
	members := map[protocol.NodeID]bool{}
	for _, id := range s.MemberIDs() {
		members[id] = true
	}
	c := &Collected{}
	recs, err := trace.ReadFaults(trace.FaultsFile(dir), func(id protocol.NodeID) bool { return members[id] }, dur)
	switch {
	case err == nil:
		c.FromRecord = true
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, err
	}
	down := downSpans(recs, int64(dur))
	lives := map[protocol.NodeID][]life{}
	after := map[protocol.NodeID]*late{}
	var last, lastEnded int64 // the traces' last event; the last clean end
	if _, err := analysis.WalkDir(dir, nil, func(id protocol.NodeID, e *trace.Event) {
		last = max(last, e.T)
		if e.Ev == trace.EvEnd {
			lastEnded = max(lastEnded, e.T)
		}
		ls := lives[id]
		// A life begins at a recover event (a restarted real node
		// writes one before its start) or a start not right after one.
		joins := len(ls) > 0 && ls[len(ls)-1].recoverAt >= 0 && ls[len(ls)-1].events == 1 && e.Ev == trace.EvStart
		if len(ls) == 0 || e.Ev == trace.EvRecover || (e.Ev == trace.EvStart && !joins) {
			ls = append(ls, life{first: e.T, last: e.T, crashAt: -1, recoverAt: -1})
		}
		l := &ls[len(ls)-1]
		l.last = max(l.last, e.T)
		l.events++
		switch e.Ev {
		case trace.EvEnd:
			l.ended = true
		case trace.EvCrash: // a node file of the simulator's kind
			l.crashAt = e.T
		case trace.EvRecover:
			l.recoverAt = e.T
		}
		lives[id] = ls
		if e.Ev != trace.EvStart {
			for _, sp := range down[id] {
				if e.T > sp.from+int64(CrashSlack) && e.T < sp.to {
					a := after[id]
					if a == nil {
						a = &late{span: sp, first: e.T}
						after[id] = a
					}
					if a.span == sp {
						a.n++
						a.last = e.T
					}
				}
			}
		}
	}); err != nil {
		return nil, err
	}
	// The run's length: the scenario's, unless the run stopped early (an
	// interrupt): an earlier run file says so, or every trace stops
	// before it, the last ones with an end event (nodes stopped cleanly,
	// not crashed).
	c.End = dur
	switch {
	case recorded > 0 && recorded < dur:
		c.End, c.EndFrom = recorded, fmt.Sprintf("the end recorded in the run file there before (%v)", recorded)
	case lastEnded > 0 && last == lastEnded && time.Duration(last) < dur-time.Second:
		c.End, c.EndFrom = time.Duration(last), fmt.Sprintf("the traces' last events, end events at %.3fs: the run was stopped early", float64(last)/1e9)
	}
	dur = c.End
	down = downSpans(recs, int64(dur))
	ids := slices.Sorted(func(yield func(protocol.NodeID) bool) {
		for id := range lives {
			if !yield(id) {
				return
			}
		}
	})
	if c.FromRecord {
		for _, r := range recs {
			c.Faults = append(c.Faults, trace.Event{T: r.T, Node: r.Node, Ev: r.Ev, Peer: r.Peer})
		}
		for _, id := range ids {
			c.Warnings = append(c.Warnings, disagreements(id, lives[id], down[id], after[id], int64(dur))...)
		}
	} else {
		for _, id := range ids {
			c.Faults = append(c.Faults, traceFaults(id, lives[id], int64(dur))...)
		}
	}
	slices.SortStableFunc(c.Faults, func(a, b trace.Event) int { return int(min(max(a.T-b.T, -1), 1)) })
	if err := node.WriteRunFile(dir, s, run, c.Faults, c.End); err != nil {
		return nil, err
	}
	return c, nil
}

// recordedEnd is the end event's time of the run file in dir if it is
// run's, else 0.
func recordedEnd(dir, run string) time.Duration {
	evs, _, err := trace.ReadFile(trace.RunFile(dir))
	if err != nil || len(evs) == 0 || evs[0].Run != run {
		return 0
	}
	for _, e := range slices.Backward(evs) {
		if e.Ev == trace.EvEnd {
			return time.Duration(e.T)
		}
	}
	return 0
}

// life is one process life of a node in its trace: from its first event,
// a recover event or a start (that does not follow a recover event) to
// the next.
type life struct {
	first, last int64
	events      int
	ended       bool  // an end event: it stopped cleanly
	crashAt     int64 // a crash event's time (simulator-style traces), or -1
	recoverAt   int64 // the recover event that began it, or -1
}

// late counts a node's events inside a recorded down span.
type late struct {
	span        span
	n           int
	first, last int64
}

// span is [from, to) in ns from the run's start.
type span struct{ from, to int64 }

// downSpans are the spans each node was down according to the record:
// from a crash to the next recovery, or to end.
func downSpans(recs []trace.FaultRecord, end int64) map[protocol.NodeID][]span {
	sorted := slices.Clone(recs)
	slices.SortStableFunc(sorted, func(a, b trace.FaultRecord) int { return int(min(max(a.T-b.T, -1), 1)) })
	out := map[protocol.NodeID][]span{}
	open := map[protocol.NodeID]int64{}
	for _, r := range sorted {
		from, isDown := open[r.Node]
		switch {
		case r.Ev == trace.EvCrash && !isDown:
			open[r.Node] = r.T
		case r.Ev == trace.EvRecover && isDown:
			out[r.Node] = append(out[r.Node], span{from, r.T})
			delete(open, r.Node)
		}
	}
	for id, from := range open {
		out[id] = append(out[id], span{from, end})
	}
	return out
}

// traceFaults are the faults node id's lives show: a crash where a life
// ends without an end event (at its crash event if it has one, else at its
// last event), a recovery where a later life begins (its recover event,
// or its start); none at or after end.
func traceFaults(id protocol.NodeID, ls []life, end int64) []trace.Event {
	var out []trace.Event
	add := func(t int64, ev string) {
		if t >= 0 && t < end {
			out = append(out, trace.Event{T: t, Node: id, Ev: ev})
		}
	}
	for i, l := range ls {
		if i > 0 {
			add(l.first, trace.EvRecover)
		}
		switch {
		case l.ended:
		case l.crashAt >= 0:
			add(l.crashAt, trace.EvCrash)
		default:
			add(l.last, trace.EvCrash)
		}
	}
	return out
}

// disagreements are the warnings about node id when the record's down
// spans and its trace's lives disagree.
func disagreements(id protocol.NodeID, ls []life, down []span, a *late, end int64) []string {
	var w []string
	sec := func(t int64) string { return fmt.Sprintf("%.3fs", float64(t)/1e9) }
	if a != nil {
		until := "until the end"
		if a.span.to < end {
			until = "and before its recovery at " + sec(a.span.to)
		}
		w = append(w, fmt.Sprintf("node %d has %d events after its recorded crash at %s %s (%s to %s): it was not stopped then, or a clock is off; the run file keeps the record",
			id, a.n, sec(a.span.from), until, sec(a.first), sec(a.last)))
	}
	// A recorded recovery explains a new life when it lies between the
	// previous life's start and this one's; a recorded crash explains a
	// life that stops early when it lies between its start and the next
	// life's start (or the end).
	recovered := func(from, to int64) bool {
		return slices.ContainsFunc(down, func(sp span) bool { return sp.to < end && from <= sp.to && sp.to <= to })
	}
	crashed := func(from, to int64) bool {
		return slices.ContainsFunc(down, func(sp span) bool { return from <= sp.from && sp.from <= to })
	}
	for i, l := range ls {
		if i > 0 && !recovered(ls[i-1].first, l.first) {
			w = append(w, fmt.Sprintf("node %d's trace starts again at %s with no recorded recovery before it: the run file has none", id, sec(l.first)))
		}
		next := end
		if i+1 < len(ls) {
			next = ls[i+1].first
		}
		if !l.ended && l.last < end && !crashed(l.first, next) {
			w = append(w, fmt.Sprintf("node %d's trace stops at %s without an end event and no crash is recorded: the run file has none", id, sec(l.last)))
		}
	}
	return w
}
