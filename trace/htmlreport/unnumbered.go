package htmlreport

import (
	"cmp"
	"slices"
	"strings"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// looseNotes keeps the notes that tell apart the elections of a protocol
// whose election-start notes carry no epoch (bully's): read node by node,
// they are put in time order at the end (analysis.Unnumbered).
type looseNotes struct {
	notes  []looseNote
	starts int  // epoch-less election-starts kept
	full   bool // more than maxLoose: the elections are not named
}

type looseNote struct {
	t     int64
	node  protocol.NodeID
	start bool
	epoch string // a leader note's
}

// maxLoose bounds the notes kept (a few MB): a run with more elections
// than the page names is past telling them apart anyway.
const maxLoose = 1 << 16

// see takes one event of node id's trace.
func (l *looseNotes) see(id protocol.NodeID, e *trace.Event) {
	n := looseNote{t: e.T, node: id}
	switch e.Ev {
	case string(protocol.NoteElectionStart):
		if e.Epoch != "" {
			return // numbered: the epoch names the election
		}
		n.start = true
		l.starts++
	case string(protocol.NoteLeader):
		if e.Leader == protocol.None {
			return
		}
		n.epoch = strings.Clone(e.Epoch)
	case string(protocol.NoteElectionEnd), trace.EvCrash:
	default:
		return
	}
	if l.full {
		return
	}
	if len(l.notes) == maxLoose {
		l.full, l.notes = true, nil
		return
	}
	l.notes = append(l.notes, n)
}

// elections names the unnumbered elections: by initiator and start, and
// by the epoch their winner announced when there is one.
func (l *looseNotes) elections() []ElectionName {
	if l.full || l.starts == 0 {
		return nil
	}
	slices.SortStableFunc(l.notes, func(a, b looseNote) int { return cmp.Compare(a.t, b.t) })
	var u analysis.Unnumbered
	for _, n := range l.notes {
		if n.start {
			u.Start(n.t, n.node)
		} else {
			u.Stop(n.t, n.node, n.epoch)
		}
	}
	var out []ElectionName
	for i, s := range u.Spans {
		if i == maxElections {
			break
		}
		e := ElectionName{Epoch: s.Epoch, Initiator: uint32(s.Initiator), Start: secs(s.Start)}
		if s.Done {
			end := secs(s.End)
			e.End = &end
		}
		out = append(out, e)
	}
	return out
}
