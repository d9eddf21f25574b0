package htmlreport

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"manetlab/internal/intern"
	"manetlab/protocol"
	"manetlab/trace"
)

// collector gathers the page's data from the events of the one read of a
// run (analysis.Analyze hands it every event it reads): each node's
// leader, tree-edge and critical section timeline as its events come,
// and the sends, receives and notes the sequence diagram may need, which
// it can only choose once the read is over (its window starts at the
// first election-start of any node). What it holds is bounded
// (Options.MaxChanges, Options.MaxHeld): beyond, leader segments and tree
// edges are kept for a sample of the nodes spread over the IDs (sample),
// and events for the sequence diagram for the nodes of the lowest IDs
// (heldUpTo), which are often neighbours (a grid, a line, a ring), so
// that lifelines chosen among them exchange frames.
type collector struct {
	opt Options
	// members are the scenario's, ring a ring algorithm's logical ring
	// (nil otherwise): the sequence diagram's lifelines and their order.
	members, ring []protocol.NodeID
	treeKind      map[string]bool
	states        map[protocol.NodeID]*nodeState
	byID          trace.IDMap[*nodeState] // states, for the lookup of every line
	end           int64

	// The run file: position events by node, crashes and recoveries in
	// file order.
	pos    map[protocol.NodeID][]posEvent
	faults []fault

	firstElection, firstRequest int64 // -1: none seen
	// elections are the first election-start of each epoch (at most
	// maxElections epochs), in the order first seen.
	elections map[string]*electionFirst
	epochs    []string
	// loose: the notes that tell apart elections whose starts carry no
	// epoch (unnumbered.go).
	loose looseNotes

	// sample: leader segments and tree edges are kept for nodes whose
	// ID is a multiple of it (a power of 2; 1: every node).
	sample  uint32
	changes int // leader segments and tree-edge changes held

	held     []heldEvent     // sends, receives and notes the window may need
	heldUpTo protocol.NodeID // held only for nodes of ID at most this
	texts    *intern.Table   // kinds, drop reasons and note texts
}

// posEvent is a position event of the run file.
type posEvent struct {
	t    int64
	x, y float64
}

// fault is a crash or a recovery in the run file.
type fault struct {
	t     int64
	node  protocol.NodeID
	crash bool
}

// heldEvent is an event of a node's trace the sequence diagram may show.
type heldEvent struct {
	t    int64
	seq  uint64
	node protocol.NodeID // whose trace
	peer protocol.NodeID // sends: the destination; receives: the sender
	text uint32          // sends: the kind; drops: the reason; notes: the text
	says uint32          // sends: what the message carries (the event's Text)
	what heldKind
}

type heldKind uint8

const (
	heldSend heldKind = iota
	heldRelay
	heldRecv
	heldDrop
	heldMark
)

// nodeState is what the read gathers of one node.
type nodeState struct {
	leader   protocol.NodeID
	since    int64
	segs     [][3]float64
	crashes  []float64
	parents  [][2]float64
	parentAt float64 // the time of the last of parents
	parent   protocol.NodeID
	lastFrom protocol.NodeID // sender of the latest tree-kind receive
	cs       csState         // critical section notes
}

func newCollector(opt Options) *collector {
	c := &collector{opt: opt, treeKind: map[string]bool{}, states: map[protocol.NodeID]*nodeState{},
		pos: map[protocol.NodeID][]posEvent{}, firstElection: -1, firstRequest: -1, sample: 1,
		heldUpTo: math.MaxUint32, texts: intern.New()}
	for _, k := range opt.TreeKinds {
		c.treeKind[k] = true
	}
	return c
}

// pageEvents are the node events the page reads.
func pageEvents(ev string) bool {
	switch ev {
	case trace.EvSend, trace.EvRelay, trace.EvRecv, trace.EvDrop, trace.EvStart, trace.EvCrash,
		trace.EvRecover, trace.EvEnd, string(protocol.NoteLeader), string(protocol.NoteElectionStart),
		string(protocol.NoteCSRequest), string(protocol.NoteCSEnter), string(protocol.NoteCSExit):
		return true
	}
	return false
}

// sampled reports whether id's leader segments and tree edges are kept.
func (c *collector) sampled(id protocol.NodeID) bool { return uint32(id)%c.sample == 0 }

// visit takes one event of the run (id 0: of the run file).
func (c *collector) visit(id protocol.NodeID, e *trace.Event) {
	if id == 0 {
		c.end = max(c.end, e.T)
		switch {
		case e.Ev == trace.EvPosition && e.Pos != nil:
			c.pos[e.Node] = append(c.pos[e.Node], posEvent{e.T, e.Pos[0], e.Pos[1]})
		case e.Ev == trace.EvCrash || e.Ev == trace.EvRecover:
			c.faults = append(c.faults, fault{e.T, e.Node, e.Ev == trace.EvCrash})
		}
		return
	}
	c.loose.see(id, e)
	if !pageEvents(e.Ev) {
		return
	}
	switch e.Ev {
	case string(protocol.NoteElectionStart):
		c.firstElection = first(c.firstElection, e.T)
		c.electionStart(id, e)
	case string(protocol.NoteCSRequest):
		c.firstRequest = first(c.firstRequest, e.T)
	}
	s, _ := c.byID.Get(id)
	if s == nil {
		s = &nodeState{cs: newCSState()}
		c.states[id] = s
		c.byID.Set(id, s)
	}
	c.end = max(c.end, e.T)
	switch e.Ev {
	case string(protocol.NoteCSRequest), string(protocol.NoteCSEnter), string(protocol.NoteCSExit):
		s.cs.note(e.Ev, e.T)
	case trace.EvStart, trace.EvCrash:
		s.cs.note(e.Ev, e.T)
		c.setLeader(id, s, protocol.None, e.T)
		c.setParent(id, s, protocol.None, e.T)
		s.lastFrom = protocol.None
		if e.Ev == trace.EvCrash {
			s.crashes = append(s.crashes, secs(e.T))
		}
	case string(protocol.NoteLeader):
		c.setLeader(id, s, e.Leader, e.T)
		p := protocol.None
		if e.Leader != protocol.None && e.Leader != id {
			p = s.lastFrom
		}
		c.setParent(id, s, p, e.T)
	case trace.EvRecv:
		if c.treeKind[e.Kind] {
			s.lastFrom = e.From
			if s.leader != protocol.None && s.leader != id {
				c.setParent(id, s, e.From, e.T)
			}
		}
	}
	c.hold(id, e)
	if c.changes > c.opt.MaxChanges {
		c.resample()
	}
}

func first(cur, t int64) int64 {
	if cur < 0 || t < cur {
		return t
	}
	return cur
}

func (c *collector) setLeader(id protocol.NodeID, s *nodeState, l protocol.NodeID, t int64) {
	if l == s.leader {
		return
	}
	if s.leader != protocol.None && t > s.since && c.sampled(id) {
		s.segs = append(s.segs, [3]float64{secs(s.since), secs(t), float64(s.leader)})
		c.changes++
	}
	s.leader, s.since = l, t
}

func (c *collector) setParent(id protocol.NodeID, s *nodeState, p protocol.NodeID, t int64) {
	if p == s.parent {
		return
	}
	s.parent = p
	if !c.sampled(id) {
		return
	}
	// parentAt is the last change's time, beside parent: most changes
	// are at a new time, and the tail of parents is cold at 100,000
	// nodes.
	if n := len(s.parents); n > 0 && s.parentAt == secs(t) {
		s.parents[n-1][1] = float64(p)
		return
	}
	s.parents = append(s.parents, [2]float64{secs(t), float64(p)})
	s.parentAt = secs(t)
	c.changes++
}

// hold keeps what of e the sequence diagram may need: with the window
// asked for, only what falls in it (a receive up to a second after it);
// otherwise everything up to 3 s after the earliest election-start seen,
// which bounds the window's end.
func (c *collector) hold(id protocol.NodeID, e *trace.Event) {
	if id > c.heldUpTo || e.T > c.holdUntil() {
		return
	}
	h := heldEvent{t: e.T, node: id, what: heldMark}
	switch e.Ev {
	case trace.EvSend, trace.EvRelay:
		h.what, h.peer, h.seq, h.text, h.says = heldSend, e.To, e.Seq, c.texts.Index(e.Kind), c.texts.Index(e.Text)
		if e.Ev == trace.EvRelay {
			h.what = heldRelay
		}
	case trace.EvRecv:
		h.what, h.peer, h.seq = heldRecv, e.From, e.Seq
	case trace.EvDrop:
		reason := e.Reason
		if reason == "" {
			reason = "drop"
		}
		h.what, h.peer, h.seq, h.text = heldDrop, e.From, e.Seq, c.texts.Index(reason)
	case string(protocol.NoteLeader):
		txt := "no leader"
		if e.Leader != protocol.None {
			txt = fmt.Sprintf("leader %d", e.Leader)
		}
		h.text = c.texts.Index(txt)
	case string(protocol.NoteElectionStart):
		h.text = c.texts.Index("election " + e.Epoch)
	case trace.EvCrash, trace.EvStart, trace.EvRecover,
		string(protocol.NoteCSRequest), string(protocol.NoteCSEnter), string(protocol.NoteCSExit):
		h.text = c.texts.Index(e.Ev)
	default:
		return
	}
	if c.opt.WindowSet {
		w0, w1 := int64(c.opt.Window[0]), int64(c.opt.Window[1])
		late := h.what == heldRecv || h.what == heldDrop
		if e.T < w0 || e.T > w1+lateBy && late || e.T > w1 && !late {
			return
		}
	}
	if len(c.held) >= c.opt.MaxHeld {
		if c.prune(); e.T > c.holdUntil() || id > c.heldUpTo {
			return
		}
	}
	if len(c.held) == cap(c.held) {
		// Doubled (fewer copies of millions of events than append's quarter), but never past MaxHeld.
		grown := make([]heldEvent, len(c.held), min(2*cap(c.held)+1024, c.opt.MaxHeld))
		copy(grown, c.held)
		c.held = grown
	}
	c.held = append(c.held, h)
}

// lateBy is how long after the window's end a receive is still matched
// to a send in it: a frame's delay.
const lateBy = int64(1e9)

// holdUntil is the latest time an event may have and still be shown.
func (c *collector) holdUntil() int64 {
	switch {
	case c.opt.WindowSet:
		return int64(c.opt.Window[1]) + lateBy
	case c.firstElection >= 0:
		return c.firstElection + int64(DefaultWindow) + lateBy
	}
	return 1<<63 - 1
}

// prune drops the held events beyond holdUntil, then, when more than 3/4
// of MaxHeld remain, keeps those of the nodes of the lowest IDs holding at
// most half of MaxHeld.
func (c *collector) prune() {
	until := c.holdUntil()
	c.held = slices.DeleteFunc(c.held, func(h heldEvent) bool { return h.t > until })
	if len(c.held) <= c.opt.MaxHeld*3/4 {
		return
	}
	per := map[protocol.NodeID]int{}
	for _, h := range c.held {
		per[h.node]++
	}
	sum, upTo := 0, protocol.None
	for _, id := range slices.Sorted(maps.Keys(per)) {
		if sum += per[id]; sum > c.opt.MaxHeld/2 {
			break
		}
		upTo = id
	}
	c.heldUpTo = upTo
	c.held = slices.DeleteFunc(c.held, func(h heldEvent) bool { return h.node > upTo })
}

// maxSample bounds the sample's period.
const maxSample = 1 << 30

// resample halves the nodes whose leader segments and tree edges are
// kept, dropping the others'.
func (c *collector) resample() {
	if c.sample >= maxSample {
		return
	}
	c.sample *= 2
	c.changes = 0
	for id, s := range c.states {
		if !c.sampled(id) {
			s.segs, s.parents = nil, nil
		}
		c.changes += len(s.segs) + len(s.parents)
	}
	if c.changes > c.opt.MaxChanges {
		c.resample()
	}
}

// maxElections bounds the elections the page names.
const maxElections = 200

// electionFirst is an epoch's first election-start: its initiator.
type electionFirst struct {
	t    int64
	node protocol.NodeID
}

// electionStart records id's election-start e: the first of its epoch
// names the election (ties to the lower ID, whatever the read order).
// Starts without an epoch (bully's) are named by looseNotes instead.
func (c *collector) electionStart(id protocol.NodeID, e *trace.Event) {
	if e.Epoch == "" {
		return // a protocol that does not number its elections
	}
	if c.elections == nil {
		c.elections = map[string]*electionFirst{}
	}
	f := c.elections[e.Epoch]
	switch {
	case f == nil && len(c.epochs) < maxElections:
		c.elections[e.Epoch] = &electionFirst{e.T, id}
		c.epochs = append(c.epochs, e.Epoch)
	case f != nil && (e.T < f.t || e.T == f.t && id < f.node):
		f.t, f.node = e.T, id
	}
}
