// Package htmlreport draws one run as a self-contained HTML page: a map of
// node positions over time with radio links and tree edges, a timeline of
// every node's leader, a message sequence diagram for a window of the run,
// and the run's metrics and check verdicts. The page loads nothing: its
// script, style and data (JSON) are embedded, and a Content-Security-Policy
// forbids any fetch. docs/analysis.md ("HTML report") describes it.
//
// It imports trace, trace/analysis, scenario, radio, mobility, protocol and
// internal/geo.
package htmlreport

import (
	"fmt"
	"math"
	"slices"
	"time"

	"manetlab/internal/geo"
	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// Options tune Build. The zero value gives the defaults.
type Options struct {
	// Window is the time span of the sequence diagram. When WindowSet is
	// false it is the 2 s from the first election-start, or the first
	// 2 s of the run when there is none.
	Window    [2]time.Duration
	WindowSet bool
	// FPS is how many map frames are sampled per second of run time
	// (default 2). It is lowered so that frames × nodes stays under
	// MaxPositions.
	FPS float64
	// MaxPositions bounds frames × nodes (default 240,000: about 3 MB of
	// page for any number of nodes).
	MaxPositions int
	// MaxLinks bounds the radio links drawn over all frames (default
	// 250,000 pairs); beyond it no links are drawn and the page says so.
	MaxLinks int
	// MaxLifelines bounds the nodes of the sequence diagram (default 30):
	// those with the most sends and receives in the window.
	MaxLifelines int
	// MaxMessages bounds the frames drawn in the sequence diagram
	// (default 400), the earliest first.
	MaxMessages int
	// TreeKinds are the message kinds that carry a leader (default
	// leader, beacon, announce). While a node follows another node, its
	// tree edge goes to the sender of the last frame of these kinds it
	// received (the page draws it only while that neighbour follows the
	// same leader and is within range).
	TreeKinds []string
	// Check tunes the check verdicts shown at the top.
	Check analysis.CheckOptions
}

// Defaults of Options.
const (
	DefaultFPS          = 2
	DefaultMaxPositions = 240_000
	DefaultMaxLinks     = 250_000
	DefaultMaxLifelines = 30
	DefaultMaxMessages  = 400
	DefaultWindow       = 2 * time.Second
)

// DefaultTreeKinds are the message kinds that carry a leader.
var DefaultTreeKinds = []string{"leader", "beacon", "announce"}

func (o *Options) defaults() {
	if o.FPS <= 0 {
		o.FPS = DefaultFPS
	}
	if o.MaxPositions <= 0 {
		o.MaxPositions = DefaultMaxPositions
	}
	if o.MaxLinks <= 0 {
		o.MaxLinks = DefaultMaxLinks
	}
	if o.MaxLifelines <= 0 {
		o.MaxLifelines = DefaultMaxLifelines
	}
	if o.MaxMessages <= 0 {
		o.MaxMessages = DefaultMaxMessages
	}
	if o.TreeKinds == nil {
		o.TreeKinds = DefaultTreeKinds
	}
}

// Data is everything the page draws, embedded in it as JSON. Times are
// seconds from the start of the run; nodes are referred to by ID, and
// per-node arrays follow Nodes.
type Data struct {
	Run      string    `json:"run"`
	Protocol string    `json:"protocol"`
	Driver   string    `json:"driver"`
	Scenario string    `json:"scenario"` // the scenario's name
	End      float64   `json:"end"`
	Nodes    []uint32  `json:"nodes"`
	Values   []float64 `json:"values"`
	// Area is the bounding box of all positions: min x, min y, max x,
	// max y in metres.
	Area [4]float64 `json:"area"`
	// Range is the radio's deterministic range in metres (0 unknown).
	Range float64 `json:"range"`
	// PosSource says where positions came from.
	PosSource string   `json:"pos_source"`
	Frames    []Frame  `json:"frames"`
	LinksNote string   `json:"links_note,omitempty"`
	Notes     []string `json:"notes,omitempty"`

	// Per node (as Nodes): the leader segments [start, end, leader]
	// (no segment: no leader), crash instants, dead spans [from, to],
	// and tree-edge changes [t, parent ID] (0: no edge).
	Leaders [][][3]float64 `json:"leaders"`
	Crashes [][]float64    `json:"crashes"`
	Dead    [][][2]float64 `json:"dead"`
	Parents [][][2]float64 `json:"parents"`

	// Sections are the critical section lanes; nil without sections.
	Sections *Sections               `json:"sections,omitempty"`
	Seq      Sequence                `json:"seq"`
	Metrics  *analysis.MetricsReport `json:"metrics,omitempty"`
	Check    *analysis.CheckReport   `json:"check,omitempty"`
	Problems []string                `json:"problems,omitempty"`
}

// Frame is the map at one instant: X, Y per node (metres, 0.1 m
// resolution; null where unknown) and the radio links as pairs of node
// indices (flattened).
type Frame struct {
	T     float64    `json:"t"`
	XY    []*float64 `json:"xy"`
	Links []int32    `json:"links,omitempty"`
}

// Sequence is the message sequence diagram: its window, its lifelines
// (node IDs, ascending), the frames sent in the window by a lifeline
// node, and notes at lifeline nodes.
type Sequence struct {
	From      float64   `json:"from"`
	To        float64   `json:"to"`
	Why       string    `json:"why"`
	Nodes     []uint32  `json:"nodes"`
	Msgs      []Message `json:"msgs"`
	Marks     []Mark    `json:"marks"`
	Truncated string    `json:"truncated,omitempty"`
}

// Message is one frame: sent at T by From (Dest 0: broadcast), received
// or dropped at Recvs (only lifeline nodes, matched by (from, seq)).
type Message struct {
	T     float64   `json:"t"`
	From  uint32    `json:"from"`
	Kind  string    `json:"kind"`
	Seq   uint64    `json:"seq"`
	Dest  uint32    `json:"dest,omitempty"`
	Relay bool      `json:"relay,omitempty"`
	Recvs []Receipt `json:"recvs"`
}

// Receipt is one receive (or drop, with its reason) of a Message.
type Receipt struct {
	T    float64 `json:"t"`
	Node uint32  `json:"node"`
	Drop string  `json:"drop,omitempty"`
}

// Mark is a note on a lifeline: leader, election-start, crash, start.
type Mark struct {
	T    float64 `json:"t"`
	Node uint32  `json:"node"`
	Text string  `json:"text"`
}

func secs(t int64) float64 { return math.Round(float64(t)/1e3) / 1e6 }

func round1(x float64) *float64 {
	v := math.Round(x*10) / 10
	return &v
}

// nodeState is what one pass over a node's trace gathers.
type nodeState struct {
	leader   protocol.NodeID
	since    int64
	segs     [][3]float64
	crashes  []float64
	parents  [][2]float64
	parent   protocol.NodeID
	lastFrom protocol.NodeID // sender of the latest tree-kind receive
	activity int             // sends and receives in the window
	cs       csState         // critical section notes
}

// Build reads the run in dir and gathers the page's data.
func Build(dir string, opt Options) (*Data, error) {
	opt.defaults()
	hdr, err := trace.ReadHeader(trace.RunFile(dir))
	if err != nil {
		return nil, err
	}
	d := &Data{Run: hdr.Run, Protocol: hdr.Protocol, Driver: hdr.Driver}

	// The scenario: members, values, mobility and radio.
	var (
		members []scenario.Member
		mob     mobility.Model
		prop    radio.Propagation
		// screen refuses hostile input (trace.Screen), a fresh one per
		// pass over the files.
		screen = func(*trace.Event) *trace.Screen { return trace.NewScreen(0, nil) }
	)
	if sc, err := scenario.Parse([]byte(hdr.Scenario), trace.RunFile(dir), nil); err != nil {
		d.Notes = append(d.Notes, fmt.Sprintf("the scenario in the run header cannot be read (%v): no mobility model, no radio links", err))
	} else {
		d.Scenario = sc.Name
		members = sc.Members()
		screen = func(*trace.Event) *trace.Screen { return trace.NewScreen(sc.Duration.D(), sc.MemberIDs()) }
		if m, err := sc.MobilityModel(); err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("no mobility model (%v): positions from position events only", err))
		} else {
			mob = m
			if med, err := radio.NewMedium(sc.Radio, m, sc.Seed); err != nil {
				d.Notes = append(d.Notes, fmt.Sprintf("no radio model (%v): no links", err))
			} else {
				prop = med.Propagation()
				d.Range = prop.Range()
			}
		}
	}

	// First pass: the run file, and the first election-start (cheap: other
	// lines are not decoded).
	firstElection, firstRequest := int64(-1), int64(-1)
	run, err := trace.WalkDirScreen(dir, func(ev string) bool {
		return ev == string(protocol.NoteElectionStart) || ev == string(protocol.NoteCSRequest)
	}, screen, func(_ protocol.NodeID, e *trace.Event) {
		first := &firstElection
		if e.Ev == string(protocol.NoteCSRequest) {
			first = &firstRequest
		}
		if *first < 0 || e.T < *first {
			*first = e.T
		}
	})
	if err != nil {
		return nil, err
	}
	var end int64
	posEvents := map[protocol.NodeID][]trace.Event{}
	for _, e := range run.RunEvents {
		end = max(end, e.T)
		if e.Ev == trace.EvPosition && e.Pos != nil {
			posEvents[e.Node] = append(posEvents[e.Node], e)
		}
	}

	// Nodes: the scenario's members, then any other node with a trace.
	index := map[protocol.NodeID]int{}
	modelIndex := []int{}
	for _, m := range members {
		index[m.ID] = len(d.Nodes)
		d.Nodes = append(d.Nodes, uint32(m.ID))
		d.Values = append(d.Values, m.Value)
		modelIndex = append(modelIndex, m.Index)
	}
	extra := []protocol.NodeID{}
	addExtra := func(id protocol.NodeID) {
		if _, ok := index[id]; !ok && id != protocol.None {
			index[id] = -1
			extra = append(extra, id)
		}
	}
	for id := range posEvents {
		addExtra(id)
	}
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			addExtra(e.Node)
		}
	}
	slices.Sort(extra)

	// The sequence window.
	w0, w1 := int64(0), int64(DefaultWindow)
	switch {
	case opt.WindowSet:
		w0, w1 = int64(opt.Window[0]), int64(opt.Window[1])
		d.Seq.Why = "as asked"
	case firstElection >= 0:
		w0, w1 = firstElection, firstElection+int64(DefaultWindow)
		d.Seq.Why = "the 2 s from the first election-start"
	case firstRequest >= 0:
		w0, w1 = firstRequest, firstRequest+int64(DefaultWindow)
		d.Seq.Why = "the 2 s from the first cs-request"
	default:
		d.Seq.Why = "the first 2 s (no election-start in the run)"
	}
	d.Seq.From, d.Seq.To = secs(w0), secs(w1)

	// Second pass: every node's leader notes, crashes, tree edges and the
	// window's messages.
	states := map[protocol.NodeID]*nodeState{}
	treeKind := map[string]bool{}
	for _, k := range opt.TreeKinds {
		treeKind[k] = true
	}
	var msgs []Message
	sendAt := map[sendKey]int{} // latest send in the window
	var recvs []recvEntry
	var marks []Mark
	inWindow := func(t int64) bool { return t >= w0 && t <= w1 }
	// Receives may arrive after the window's end by a frame's delay.
	inLate := func(t int64) bool { return t >= w0 && t <= w1+int64(time.Second) }
	keep := func(ev string) bool {
		switch ev {
		case trace.EvSend, trace.EvRelay, trace.EvRecv, trace.EvDrop, trace.EvStart, trace.EvCrash,
			trace.EvRecover, trace.EvEnd, string(protocol.NoteLeader), string(protocol.NoteElectionStart),
			string(protocol.NoteCSRequest), string(protocol.NoteCSEnter), string(protocol.NoteCSExit):
			return true
		}
		return false
	}
	state := func(id protocol.NodeID) *nodeState {
		s := states[id]
		if s == nil {
			s = &nodeState{cs: newCSState()}
			states[id] = s
			addExtra(id)
		}
		return s
	}
	setLeader := func(s *nodeState, l protocol.NodeID, t int64) {
		if l == s.leader {
			return
		}
		if s.leader != protocol.None && t > s.since {
			s.segs = append(s.segs, [3]float64{secs(s.since), secs(t), float64(s.leader)})
		}
		s.leader, s.since = l, t
	}
	setParent := func(s *nodeState, p protocol.NodeID, t int64) {
		if p == s.parent {
			return
		}
		s.parent = p
		if n := len(s.parents); n > 0 && s.parents[n-1][0] == secs(t) {
			s.parents[n-1][1] = float64(p)
			return
		}
		s.parents = append(s.parents, [2]float64{secs(t), float64(p)})
	}
	run, err = trace.WalkDirScreen(dir, keep, screen, func(id protocol.NodeID, e *trace.Event) {
		s := state(id)
		end = max(end, e.T)
		switch e.Ev {
		case string(protocol.NoteCSRequest), string(protocol.NoteCSEnter), string(protocol.NoteCSExit):
			s.cs.note(e.Ev, e.T)
		case trace.EvStart, trace.EvCrash:
			s.cs.note(e.Ev, e.T)
			setLeader(s, protocol.None, e.T)
			setParent(s, protocol.None, e.T)
			s.lastFrom = protocol.None
			if e.Ev == trace.EvCrash {
				s.crashes = append(s.crashes, secs(e.T))
			}
		case string(protocol.NoteLeader):
			setLeader(s, e.Leader, e.T)
			p := protocol.None
			if e.Leader != protocol.None && e.Leader != id {
				p = s.lastFrom
			}
			setParent(s, p, e.T)
		case trace.EvSend, trace.EvRelay:
			if inWindow(e.T) {
				s.activity++
				sendAt[sendKey{id, e.Seq}] = len(msgs)
				msgs = append(msgs, Message{T: secs(e.T), From: uint32(id), Kind: e.Kind, Seq: e.Seq, Dest: uint32(e.To), Relay: e.Ev == trace.EvRelay})
			}
		case trace.EvRecv, trace.EvDrop:
			if e.Ev == trace.EvRecv && treeKind[e.Kind] {
				s.lastFrom = e.From
				if s.leader != protocol.None && s.leader != id {
					setParent(s, e.From, e.T)
				}
			}
			if inLate(e.T) {
				if inWindow(e.T) {
					s.activity++
				}
				r := Receipt{T: secs(e.T), Node: uint32(id)}
				if e.Ev == trace.EvDrop {
					r.Drop = e.Reason
					if r.Drop == "" {
						r.Drop = "drop"
					}
				}
				recvs = append(recvs, recvEntry{e.From, e.Seq, r})
			}
		}
		if inWindow(e.T) {
			switch e.Ev {
			case string(protocol.NoteLeader):
				txt := "no leader"
				if e.Leader != protocol.None {
					txt = fmt.Sprintf("leader %d", e.Leader)
				}
				marks = append(marks, Mark{T: secs(e.T), Node: uint32(id), Text: txt})
			case string(protocol.NoteElectionStart):
				marks = append(marks, Mark{T: secs(e.T), Node: uint32(id), Text: "election " + e.Epoch})
			case trace.EvCrash, trace.EvStart, trace.EvRecover:
				marks = append(marks, Mark{T: secs(e.T), Node: uint32(id), Text: e.Ev})
			case string(protocol.NoteCSRequest), string(protocol.NoteCSEnter), string(protocol.NoteCSExit):
				marks = append(marks, Mark{T: secs(e.T), Node: uint32(id), Text: e.Ev})
			}
		}
	})
	if err != nil {
		return nil, err
	}
	d.End = secs(end)
	for _, id := range extra {
		index[id] = len(d.Nodes)
		d.Nodes = append(d.Nodes, uint32(id))
		d.Values = append(d.Values, math.NaN())
		modelIndex = append(modelIndex, -1)
	}
	for i := range d.Values {
		if math.IsNaN(d.Values[i]) {
			d.Values[i] = -1
		}
	}
	n := len(d.Nodes)

	// Leaders, crashes, dead spans, tree edges.
	d.Leaders = make([][][3]float64, n)
	d.Crashes = make([][]float64, n)
	d.Dead = make([][][2]float64, n)
	d.Parents = make([][][2]float64, n)
	for i, id := range d.Nodes {
		s := states[protocol.NodeID(id)]
		if s == nil {
			continue
		}
		setLeader(s, protocol.None, end)
		d.Leaders[i] = s.segs
		d.Parents[i] = s.parents
		d.Crashes[i] = s.crashes
	}
	down := map[int]int64{}
	for _, e := range run.RunEvents {
		i, ok := index[e.Node]
		if !ok || i < 0 {
			continue
		}
		switch e.Ev {
		case trace.EvCrash:
			if _, dead := down[i]; !dead {
				down[i] = e.T
			}
			if !slices.Contains(d.Crashes[i], secs(e.T)) {
				d.Crashes[i] = append(d.Crashes[i], secs(e.T))
				slices.Sort(d.Crashes[i])
			}
		case trace.EvRecover:
			if t0, dead := down[i]; dead {
				d.Dead[i] = append(d.Dead[i], [2]float64{secs(t0), secs(e.T)})
				delete(down, i)
			}
		}
	}
	for i, t0 := range down {
		d.Dead[i] = append(d.Dead[i], [2]float64{secs(t0), secs(end)})
	}

	d.buildSections(states, end)
	d.buildFrames(opt, end, mob, prop, modelIndex, index, posEvents)
	d.buildSequence(opt, msgs, recvs, sendAt, marks, states)

	// Metrics and verdicts, as `trace report` and `trace check` give them.
	if m, err := analysis.ComputeMetrics(dir, analysis.MetricsOptions{}); err != nil {
		d.Notes = append(d.Notes, "metrics: "+err.Error())
	} else {
		m.PerNode, m.Problems = nil, nil
		d.Metrics = m
	}
	if c, err := analysis.Check(dir, opt.Check); err != nil {
		d.Notes = append(d.Notes, "check: "+err.Error())
	} else {
		c.Problems = nil
		d.Check = c
	}
	for k, p := range run.Problems {
		if k == 20 {
			d.Problems = append(d.Problems, fmt.Sprintf("... %d more", len(run.Problems)-20))
			break
		}
		d.Problems = append(d.Problems, p.String())
	}
	return d, nil
}

// recvEntry is a receive in (or just after) the window, to be matched to
// its send.
type recvEntry struct {
	from protocol.NodeID
	seq  uint64
	r    Receipt
}

// sendKey names a frame: its sender and sequence number.
type sendKey struct {
	from protocol.NodeID
	seq  uint64
}

// buildSequence chooses the lifelines (the most active nodes in the
// window), attaches every receive to its send by (from, seq) and keeps
// the frames and notes of lifeline nodes.
func (d *Data) buildSequence(opt Options, msgs []Message, recvs []recvEntry, sendAt map[sendKey]int, marks []Mark, states map[protocol.NodeID]*nodeState) {
	type act struct {
		id protocol.NodeID
		n  int
	}
	var acts []act
	for id, s := range states {
		if s.activity > 0 {
			acts = append(acts, act{id, s.activity})
		}
	}
	slices.SortFunc(acts, func(a, b act) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return int(a.id) - int(b.id)
	})
	if len(acts) > opt.MaxLifelines {
		d.Seq.Truncated = fmt.Sprintf("%d of %d active nodes shown (the most active)", opt.MaxLifelines, len(acts))
		acts = acts[:opt.MaxLifelines]
	}
	shown := map[uint32]bool{}
	for _, a := range acts {
		d.Seq.Nodes = append(d.Seq.Nodes, uint32(a.id))
		shown[uint32(a.id)] = true
	}
	slices.Sort(d.Seq.Nodes)
	for _, r := range recvs {
		if !shown[r.r.Node] {
			continue
		}
		if k, ok := sendAt[sendKey{r.from, r.seq}]; ok && msgs[k].T <= r.r.T {
			msgs[k].Recvs = append(msgs[k].Recvs, r.r)
		}
	}
	slices.SortStableFunc(msgs, func(a, b Message) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return int(a.From) - int(b.From)
	})
	d.Seq.Msgs = []Message{}
	total := 0
	for _, m := range msgs {
		if !shown[m.From] {
			continue
		}
		total++
		if len(d.Seq.Msgs) < opt.MaxMessages {
			if m.Recvs == nil {
				m.Recvs = []Receipt{}
			}
			slices.SortFunc(m.Recvs, func(a, b Receipt) int { return int(a.Node) - int(b.Node) })
			d.Seq.Msgs = append(d.Seq.Msgs, m)
		}
	}
	if total > len(d.Seq.Msgs) {
		t := fmt.Sprintf("the first %d of %d frames shown", len(d.Seq.Msgs), total)
		if d.Seq.Truncated != "" {
			t = d.Seq.Truncated + "; " + t
		}
		d.Seq.Truncated = t
	}
	d.Seq.Marks = []Mark{}
	for _, m := range marks {
		if shown[m.Node] {
			d.Seq.Marks = append(d.Seq.Marks, m)
		}
	}
	slices.SortStableFunc(d.Seq.Marks, func(a, b Mark) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return int(a.Node) - int(b.Node)
	})
}

// buildFrames samples positions and radio links. A node's position at t
// is the mobility model's, shifted by the difference between its
// position events and the model at those events, interpolated linearly
// between them (so positions match every event exactly, and follow the
// model in between); without a model, the events interpolated linearly.
func (d *Data) buildFrames(opt Options, end int64, mob mobility.Model, prop radio.Propagation, modelIndex []int, index map[protocol.NodeID]int, posEvents map[protocol.NodeID][]trace.Event) {
	n := len(d.Nodes)
	frames := int(math.Floor(float64(end)/1e9*opt.FPS)) + 1
	if n > 0 && frames*n > opt.MaxPositions {
		frames = max(2, opt.MaxPositions/n)
		d.Notes = append(d.Notes, fmt.Sprintf("%d map frames (fewer than %g per second, to keep the page small)", frames, opt.FPS))
	}
	times := make([]int64, frames)
	for k := range times {
		if frames > 1 && float64(end)/1e9*opt.FPS+1 > float64(frames) {
			times[k] = int64(float64(end) * float64(k) / float64(frames-1))
		} else {
			times[k] = int64(float64(k) / opt.FPS * 1e9)
		}
	}
	if frames > 1 && times[frames-1] < end {
		times = append(times, end)
	}

	type anchor struct {
		t      int64
		dx, dy float64 // event minus model (or the event itself without a model)
	}
	anchors := make([][]anchor, n)
	for id, evs := range posEvents {
		i, ok := index[id]
		if !ok || i < 0 {
			continue
		}
		slices.SortStableFunc(evs, func(a, b trace.Event) int {
			return int(max(-1, min(1, a.T-b.T)))
		})
		for _, e := range evs {
			a := anchor{t: e.T, dx: e.Pos[0], dy: e.Pos[1]}
			if mob != nil && modelIndex[i] >= 0 && modelIndex[i] < mob.Len() {
				p := mob.Position(modelIndex[i], time.Duration(e.T))
				a.dx, a.dy = e.Pos[0]-p.X, e.Pos[1]-p.Y
			}
			anchors[i] = append(anchors[i], a)
		}
	}
	interp := func(as []anchor, t int64) (float64, float64, bool) {
		if len(as) == 0 {
			return 0, 0, false
		}
		k, _ := slices.BinarySearchFunc(as, t, func(a anchor, t int64) int {
			return int(max(-1, min(1, a.t-t)))
		})
		if k == 0 {
			return as[0].dx, as[0].dy, true
		}
		if k == len(as) {
			return as[k-1].dx, as[k-1].dy, true
		}
		a, b := as[k-1], as[k]
		if b.t == a.t {
			return b.dx, b.dy, true
		}
		f := float64(t-a.t) / float64(b.t-a.t)
		return a.dx + f*(b.dx-a.dx), a.dy + f*(b.dy-a.dy), true
	}

	d.Area = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	links := 0
	linksOK := prop != nil
	if !linksOK {
		d.LinksNote = "no radio model: links not drawn"
	}
	pos := make([]geo.Vec, n)
	known := make([]bool, n)
	for _, t := range times {
		f := Frame{T: secs(t), XY: make([]*float64, 2*n)}
		for i := range n {
			var p geo.Vec
			ok := false
			if mob != nil && modelIndex[i] >= 0 && modelIndex[i] < mob.Len() {
				p = mob.Position(modelIndex[i], time.Duration(t))
				ok = true
				if dx, dy, has := interp(anchors[i], t); has {
					p.X += dx
					p.Y += dy
				}
			} else if x, y, has := interp(anchors[i], t); has {
				p, ok = geo.Vec{X: x, Y: y}, true
			}
			pos[i], known[i] = p, ok
			if ok {
				f.XY[2*i], f.XY[2*i+1] = round1(p.X), round1(p.Y)
				d.Area[0], d.Area[1] = min(d.Area[0], p.X), min(d.Area[1], p.Y)
				d.Area[2], d.Area[3] = max(d.Area[2], p.X), max(d.Area[3], p.Y)
			}
		}
		if linksOK {
			for i := range n {
				if !known[i] {
					continue
				}
				for j := i + 1; j < n; j++ {
					if known[j] && prop.InRange(geo.Dist(pos[i], pos[j])) {
						f.Links = append(f.Links, int32(i), int32(j))
						links++
					}
				}
				if links > opt.MaxLinks {
					break
				}
			}
			if links > opt.MaxLinks {
				linksOK = false
				d.LinksNote = fmt.Sprintf("more than %d radio links over the sampled frames: links not drawn", opt.MaxLinks)
				for k := range d.Frames {
					d.Frames[k].Links = nil
				}
				f.Links = nil
			}
		}
		d.Frames = append(d.Frames, f)
	}
	if math.IsInf(d.Area[0], 0) {
		d.Area = [4]float64{0, 0, 1, 1}
		d.PosSource = "none: no mobility model and no position events"
	} else if mob != nil {
		d.PosSource = "the scenario's mobility model, aligned to the run file's position events"
	} else {
		d.PosSource = "the run file's position events, interpolated linearly"
	}
}
