package analysis

import "manetlab/protocol"

// ElectionSpan is one election of a protocol whose election-start notes
// carry no epoch (bully's: its coordinator numbers the epoch only when it
// wins), named as the report page and the studio name every election: by
// its initiator and its start.
type ElectionSpan struct {
	// Epoch is the epoch of the last leader note within the span (bully:
	// "7.1", the coordinator and its number); "" when none.
	Epoch     string
	Initiator protocol.NodeID
	Start     int64 // ns
	End       int64 // ns; set when Done
	Done      bool
}

// Unnumbered tells such elections apart from the notes, fed in time
// order: an election runs from an election-start while no node is in an
// election (its initiator: that node, ties to the lower ID) until every
// node that started one since has ended it, adopted a leader or crashed.
// The start of a node already in an election is part of the election
// under way (bully: a higher node answering a lower one's election holds
// its own).
type Unnumbered struct {
	Spans  []ElectionSpan
	active map[protocol.NodeID]bool
}

// Start takes node's election-start at t.
func (u *Unnumbered) Start(t int64, node protocol.NodeID) {
	if u.active == nil {
		u.active = map[protocol.NodeID]bool{}
	}
	if len(u.active) == 0 {
		u.Spans = append(u.Spans, ElectionSpan{Initiator: node, Start: t})
	} else if s := &u.Spans[len(u.Spans)-1]; s.Start == t && node < s.Initiator {
		s.Initiator = node
	}
	u.active[node] = true
}

// Stop takes the end of node's part at t: an election-end note, a leader
// note (epoch: its epoch, "" for none), a crash.
func (u *Unnumbered) Stop(t int64, node protocol.NodeID, epoch string) {
	if len(u.Spans) == 0 {
		return
	}
	s := &u.Spans[len(u.Spans)-1]
	if s.Done {
		return
	}
	if epoch != "" {
		s.Epoch = epoch
	}
	if !u.active[node] {
		return
	}
	delete(u.active, node)
	if len(u.active) == 0 {
		s.End, s.Done = t, true
	}
}

// Under reports whether an election is under way.
func (u *Unnumbered) Under() bool { return len(u.active) > 0 }
