package mutex_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/sim/simtest"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// coordEvent is one trace event of a simulated run that the mutex tests
// read: a note or a send.
type coordEvent struct {
	T    time.Duration
	Node protocol.NodeID
	Ev   string // the note kind, or "send"
	Kind string // a send's message kind
	Text string
}

// coordRunT is a simulated run: its events in time order and the checker's
// verdicts.
type coordRunT struct {
	dir    string
	events []coordEvent
	check  *analysis.CheckReport
}

// runSim simulates the scenario y and reads back its notes and sends.
func coordRun(t *testing.T, name, y string) *coordRunT {
	t.Helper()
	dir, _ := simtest.RunYAML(t, name, y)
	r := &coordRunT{dir: dir}
	keep := func(ev string) bool { return ev != trace.EvHeader }
	if _, err := analysis.WalkDir(dir, keep, func(id protocol.NodeID, e *trace.Event) {
		if id == 0 {
			return
		}
		switch {
		case e.Ev == trace.EvSend:
			r.events = append(r.events, coordEvent{T: time.Duration(e.T), Node: id, Ev: e.Ev, Kind: e.Kind})
		case coordIsNote(e.Ev):
			r.events = append(r.events, coordEvent{T: time.Duration(e.T), Node: id, Ev: e.Ev, Text: e.Text})
		}
	}); err != nil {
		t.Fatal(err)
	}
	coordSort(r.events)
	chk, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.check = chk
	return r
}

func coordIsNote(ev string) bool {
	switch protocol.NoteKind(ev) {
	case protocol.NoteLeader, protocol.NoteCSRequest, protocol.NoteCSEnter, protocol.NoteCSExit, protocol.NoteInfo:
		return true
	}
	return false
}

// coordSort orders events by time, stably (each node's file is in order).
func coordSort(evs []coordEvent) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].T < evs[j].T })
}

// mutexValid fails the test unless the checker judged mutual exclusion
// valid over at least minPairs pairs of sections.
func (r *coordRunT) mutexValid(t *testing.T, minPairs int) {
	t.Helper()
	for _, p := range r.check.Properties {
		if p.Name == analysis.PropMutex {
			if p.Verdict != analysis.Valid || p.Checked < minPairs {
				t.Fatalf("mutual exclusion %s (%s), %d pairs checked (want at least %d), witnesses %+v", p.Verdict, p.Reason, p.Checked, minPairs, p.Witnesses)
			}
			return
		}
	}
	t.Fatalf("no %s property in %+v", analysis.PropMutex, r.check.Properties)
}

// count counts the events of node (0: any) with Ev ev (and, for sends,
// Kind kind) in [from, to].
func (r *coordRunT) count(node protocol.NodeID, ev, kind string, from, to time.Duration) int {
	n := 0
	for _, e := range r.events {
		if e.T >= from && e.T <= to && (node == 0 || e.Node == node) && e.Ev == ev && (kind == "" || e.Kind == kind) {
			n++
		}
	}
	return n
}

// notes returns the notes of kind k, in time order.
func (r *coordRunT) notes(k protocol.NoteKind) []coordEvent {
	var out []coordEvent
	for _, e := range r.events {
		if e.Ev == string(k) {
			out = append(out, e)
		}
	}
	return out
}

// kinds lists the message kinds sent, with their counts.
func (r *coordRunT) kinds() map[string]int {
	m := map[string]int{}
	for _, e := range r.events {
		if e.Ev == trace.EvSend {
			m[e.Kind]++
		}
	}
	return m
}

// hasInfo reports whether some info note contains text.
func (r *coordRunT) hasInfo(text string) bool {
	for _, e := range r.notes(protocol.NoteInfo) {
		if strings.Contains(e.Text, text) {
			return true
		}
	}
	return false
}

// coordWorkload writes explicit request/release pairs: node requests at at and
// releases hold later.
func coordWorkload(pairs ...coordWL) string {
	var b strings.Builder
	b.WriteString("workload:\n")
	for _, p := range pairs {
		fmt.Fprintf(&b, "  - {at: %s, node: %d, command: request}\n", coordDur(p.at), p.node)
		if p.hold > 0 {
			fmt.Fprintf(&b, "  - {at: %s, node: %d, command: release}\n", coordDur(p.at+p.hold), p.node)
		}
	}
	return b.String()
}

// coordWL is one node's request at at, released hold later (0: never).
type coordWL struct {
	node protocol.NodeID
	at   time.Duration
	hold time.Duration
}

func coordDur(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }
