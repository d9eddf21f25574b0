package htmlreport

import "manetlab/protocol"

// Sections is who held the critical section when, for runs with sections
// (any cs-request or cs-enter note). Per node, as Data.Nodes: the stays in
// the section [enter, exit] (exit: the next cs-exit, the node's crash or
// restart, or the end of the run), the waits [request, end] (end: the
// entry that granted it — a node's k-th request of a process life goes
// with its k-th entry — its node's crash or restart, or the end of the
// run) and the request instants.
type Sections struct {
	Held     [][][2]float64 `json:"held"`
	Waits    [][][2]float64 `json:"waits"`
	Requests [][]float64    `json:"requests"`
}

// csState follows one node's critical section notes.
type csState struct {
	any     bool
	pending []int64 // requests not yet granted, oldest first
	open    int64   // enter of the section held; -1 none
	held    [][2]float64
	waits   [][2]float64
	reqs    []float64
}

func newCSState() csState { return csState{open: -1} }

// note applies one event of the node's trace at t.
func (c *csState) note(ev string, t int64) {
	switch ev {
	case string(protocol.NoteCSRequest):
		c.any = true
		c.pending = append(c.pending, t)
		c.reqs = append(c.reqs, secs(t))
	case string(protocol.NoteCSEnter):
		c.any = true
		if len(c.pending) > 0 {
			c.waits = append(c.waits, [2]float64{secs(c.pending[0]), secs(t)})
			c.pending = c.pending[1:]
		}
		if c.open < 0 {
			c.open = t
		}
	case string(protocol.NoteCSExit):
		c.leave(t)
	default: // crash or start: the process's sections and requests end
		c.finish(t)
	}
}

// leave closes the open section at t.
func (c *csState) leave(t int64) {
	if c.open >= 0 {
		c.held = append(c.held, [2]float64{secs(c.open), secs(t)})
		c.open = -1
	}
}

// finish ends the open section and every waiting request at t.
func (c *csState) finish(t int64) {
	c.leave(t)
	for _, r := range c.pending {
		c.waits = append(c.waits, [2]float64{secs(r), secs(t)})
	}
	c.pending = nil
}

// buildSections gathers the lanes, or nil when no node has a section
// note.
func (d *Data) buildSections(states map[protocol.NodeID]*nodeState, end int64) {
	has := false
	for _, s := range states {
		has = has || s.cs.any
	}
	if !has {
		return
	}
	n := len(d.Nodes)
	sec := &Sections{Held: make([][][2]float64, n), Waits: make([][][2]float64, n), Requests: make([][]float64, n)}
	for i, id := range d.Nodes {
		s := states[protocol.NodeID(id)]
		if s == nil {
			continue
		}
		s.cs.finish(end)
		sec.Held[i], sec.Waits[i], sec.Requests[i] = s.cs.held, s.cs.waits, s.cs.reqs
	}
	d.Sections = sec
}
