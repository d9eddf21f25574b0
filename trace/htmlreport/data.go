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
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/protocol/logicalring"
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
	// MaxChanges bounds the leader segments and tree-edge changes kept
	// (default 2,000,000: about 40 MB of page). Beyond it they are kept
	// for a sample of the nodes only: those whose ID is a multiple of
	// Data.Sample, which the page says.
	MaxChanges int
	// MaxHeld bounds the sends, receives and notes held for the sequence
	// diagram while its window is not yet known (default 4,000,000, about
	// 128 MB: a 10,000-node run of 30 s holds 3 million). Beyond it they
	// are held, and the lifelines chosen, among the nodes of the lowest
	// IDs only (neighbours in many layouts), which the page says.
	MaxHeld int
	// TreeKinds are the message kinds that carry a leader (default
	// leader, beacon, announce). While a node follows another node, its
	// tree edge goes to the sender of the last frame of these kinds it
	// received (the page draws it only while that neighbour follows the
	// same leader and is within range).
	TreeKinds []string
	// Check tunes the check verdicts shown at the top.
	Check analysis.CheckOptions
	// Visit, when not nil, is also handed every event of the page's one
	// read (analysis.AnalyzeOptions.Visit): a run summary's
	// (report.Summarizer) from the same read.
	Visit func(id protocol.NodeID, e *trace.Event)
}

// Defaults of Options.
const (
	DefaultFPS          = 2
	DefaultMaxPositions = 240_000
	DefaultMaxLinks     = 250_000
	DefaultMaxLifelines = 30
	DefaultMaxMessages  = 400
	DefaultMaxChanges   = 2_000_000
	DefaultMaxHeld      = 4_000_000
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
	if o.MaxChanges <= 0 {
		o.MaxChanges = DefaultMaxChanges
	}
	if o.MaxHeld <= 0 {
		o.MaxHeld = DefaultMaxHeld
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
	// Sample, when above 1, says that Leaders and Parents are those of
	// the nodes whose ID is a multiple of it only (a run too large to keep
	// every node's).
	Sample uint32 `json:"sample,omitempty"`

	// Sections are the critical section lanes; nil without sections.
	Sections *Sections               `json:"sections,omitempty"`
	Seq      Sequence                `json:"seq"`
	Metrics  *analysis.MetricsReport `json:"metrics,omitempty"`
	Check    *analysis.CheckReport   `json:"check,omitempty"`
	// Verdict is the run's verdict as the summary of `run` and `sim`
	// states it (one of analysis.Verdicts), and its reason; the caller
	// sets them (`trace report --html` from trace/report), nil without.
	Verdict  *Verdict `json:"verdict,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Elections name the run's elections readably: the epoch, its
	// initiator (the first election-start of the epoch) and its start,
	// with its end from the metrics; in start order.
	Elections []ElectionName `json:"elections,omitempty"`
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
// (node IDs: every member when they are at most Options.MaxLifelines,
// else the most active; ascending, or in ring order for a ring
// algorithm, Ring then says so), the frames sent in the window by a lifeline
// node, and notes at lifeline nodes.
type Sequence struct {
	From      float64   `json:"from"`
	To        float64   `json:"to"`
	Why       string    `json:"why"`
	Nodes     []uint32  `json:"nodes"`
	Ring      bool      `json:"ring,omitempty"`
	Msgs      []Message `json:"msgs"`
	Marks     []Mark    `json:"marks"`
	Truncated string    `json:"truncated,omitempty"`
}

// Message is one frame: sent at T by From (Dest 0: broadcast), received
// or dropped at Recvs (only lifeline nodes, matched by (from, seq)).
type Message struct {
	T    float64 `json:"t"`
	From uint32  `json:"from"`
	Kind string  `json:"kind"`
	// Says is what the message carries, as its protocol describes it
	// (protocol.MessageDescriber; the send's Text): "" when it does not.
	Says  string    `json:"says,omitempty"`
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

// Build reads the run in dir once and gathers the page's data.
func Build(dir string, opt Options) (*Data, error) {
	d, _, err := Report(dir, opt)
	return d, err
}

// Report is Build that also returns the run's metrics report in full, as
// analysis.ComputeMetrics gives it (the page shows it without its
// per-node figures and problems), from the same one read of the run:
// `trace report --html` prints it.
func Report(dir string, opt Options) (*Data, *analysis.MetricsReport, error) {
	opt.defaults()
	start := time.Now()
	hdr, err := trace.ReadHeader(trace.RunFile(dir))
	if err != nil {
		return nil, nil, err
	}
	d := &Data{Run: hdr.Run, Protocol: hdr.Protocol, Driver: hdr.Driver}

	// The scenario: members, values, mobility and radio.
	var (
		members []scenario.Member
		ring    []protocol.NodeID // a ring algorithm's logical ring
		mob     mobility.Model
		prop    radio.Propagation
	)
	if sc, err := scenario.Parse([]byte(hdr.Scenario), trace.RunFile(dir), nil); err != nil {
		d.Notes = append(d.Notes, fmt.Sprintf("the scenario in the run header cannot be read (%v): no mobility model, no radio links", err))
	} else {
		d.Scenario = sc.Name
		members = sc.Members()
		ring = ringOrder(hdr.Protocol, sc)
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

	// The one read: the metrics, the verdicts, and the page's own data
	// (collect.go).
	c := newCollector(opt)
	visit := c.visit
	if opt.Visit != nil {
		visit = func(id protocol.NodeID, e *trace.Event) { c.visit(id, e); opt.Visit(id, e) }
	}
	metrics, check, err := analysis.Analyze(dir, analysis.AnalyzeOptions{Check: opt.Check, Visit: visit})
	if err != nil {
		return nil, nil, err
	}
	// A run that took long to read says where the page is.
	progressf := func(format string, args ...any) {
		if analysis.Progress != nil && time.Since(start) > analysis.ProgressEvery {
			fmt.Fprintf(analysis.Progress, "%s: html: %s\n", analysis.ProgressName, fmt.Sprintf(format, args...))
		}
	}
	progressf("%d nodes: timelines, map frames and radio links", len(c.states))
	end := c.end

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
	for id := range c.pos {
		addExtra(id)
	}
	for _, f := range c.faults {
		addExtra(f.node)
	}
	for id := range c.states {
		addExtra(id)
	}
	slices.Sort(extra)
	for _, id := range extra {
		index[id] = len(d.Nodes)
		d.Nodes = append(d.Nodes, uint32(id))
		d.Values = append(d.Values, -1)
		modelIndex = append(modelIndex, -1)
	}
	for i := range d.Values {
		if math.IsNaN(d.Values[i]) {
			d.Values[i] = -1
		}
	}
	d.End = secs(end)
	n := len(d.Nodes)

	// Leaders, crashes, dead spans, tree edges.
	d.Leaders = make([][][3]float64, n)
	d.Crashes = make([][]float64, n)
	d.Dead = make([][][2]float64, n)
	d.Parents = make([][][2]float64, n)
	for i, id := range d.Nodes {
		s := c.states[protocol.NodeID(id)]
		if s == nil {
			continue
		}
		c.setLeader(protocol.NodeID(id), s, protocol.None, end)
		d.Leaders[i] = s.segs
		d.Parents[i] = s.parents
		d.Crashes[i] = s.crashes
	}
	down := map[int]int64{}
	for _, f := range c.faults {
		i, ok := index[f.node]
		if !ok || i < 0 {
			continue
		}
		if f.crash {
			if _, dead := down[i]; !dead {
				down[i] = f.t
			}
			if !slices.Contains(d.Crashes[i], secs(f.t)) {
				d.Crashes[i] = append(d.Crashes[i], secs(f.t))
				slices.Sort(d.Crashes[i])
			}
		} else if t0, dead := down[i]; dead {
			d.Dead[i] = append(d.Dead[i], [2]float64{secs(t0), secs(f.t)})
			delete(down, i)
		}
	}
	for i, t0 := range down {
		d.Dead[i] = append(d.Dead[i], [2]float64{secs(t0), secs(end)})
	}
	// A real node killed by the launcher writes no crash: its trace
	// goes on following its leader until it restarts. The run file's
	// faults say when it was down, as the simulator's node traces do.
	for i, dead := range d.Dead {
		if len(dead) > 0 {
			d.Leaders[i] = clipLeaders(d.Leaders[i], dead)
			d.Parents[i] = clipParents(d.Parents[i], dead)
		}
	}
	if c.sample > 1 {
		d.Sample = c.sample
		d.Notes = append(d.Notes, fmt.Sprintf("%d nodes: leader timelines and tree edges are those of the 1 in %d nodes whose ID is a multiple of %d (more than %d leader and tree-edge changes)",
			n, c.sample, c.sample, opt.MaxChanges))
	}
	if c.heldUpTo != math.MaxUint32 {
		d.Notes = append(d.Notes, fmt.Sprintf("the sequence diagram's lifelines are chosen among the nodes of ID at most %d (more than %d sends, receives and notes to hold before the window was known)",
			c.heldUpTo, opt.MaxHeld))
	}

	d.buildSections(c.states, end)
	d.buildFrames(opt, end, mob, prop, modelIndex, index, c.pos)
	progressf("the sequence diagram")
	c.ring = ring
	for _, m := range members {
		c.members = append(c.members, m.ID)
	}
	d.buildSequence(opt, c)

	// Metrics and verdicts, as `trace report` and `trace check` give them.
	page := *metrics
	page.PerNode, page.Problems = nil, nil
	d.Metrics = &page
	d.nameElections(c, metrics)
	for k, p := range check.Problems {
		if k == 20 {
			d.Problems = append(d.Problems, fmt.Sprintf("... %d more", len(check.Problems)-20))
			break
		}
		d.Problems = append(d.Problems, p)
	}
	check.Problems = nil
	d.Check = check
	return d, metrics, nil
}

// Verdict is a run's verdict and its reason.
type Verdict struct {
	Word   string `json:"word"`
	Reason string `json:"reason,omitempty"`
	// Line is judge.Line's: the page's first line, as the text reports'.
	Line string `json:"line,omitempty"`
}

// ElectionName is one election as the page names it: "election 3 by
// node 5 at 1.000 s".
type ElectionName struct {
	Epoch     string   `json:"epoch"`
	Initiator uint32   `json:"initiator"`
	Start     float64  `json:"start"`
	End       *float64 `json:"end,omitempty"` // when the last participant adopted a leader under it
}

func (d *Data) nameElections(c *collector, m *analysis.MetricsReport) {
	ends := map[string]*float64{}
	if m != nil {
		for _, e := range m.Elections {
			ends[e.Epoch] = e.End
		}
	}
	for _, ep := range c.epochs {
		f := c.elections[ep]
		d.Elections = append(d.Elections, ElectionName{Epoch: ep, Initiator: uint32(f.node), Start: secs(f.t), End: ends[ep]})
	}
	if len(c.epochs) == 0 {
		d.Elections = c.loose.elections() // no numbered election: bully's
	}
	slices.SortStableFunc(d.Elections, func(a, b ElectionName) int { return cmp.Compare(a.Start, b.Start) })
}

// clipLeaders cuts the leader segments [from, to, leader] at the spans
// [from, to] the node was down.
func clipLeaders(segs [][3]float64, dead [][2]float64) [][3]float64 {
	var out [][3]float64
	for _, sg := range segs {
		parts := [][3]float64{sg}
		for _, dn := range dead {
			var next [][3]float64
			for _, p := range parts {
				if dn[1] <= p[0] || dn[0] >= p[1] {
					next = append(next, p)
					continue
				}
				// What it followed before the crash ends there (its
				// restart notes its leaders again); what it noted
				// while the run file has it down, it noted after its
				// restart, on a clock a little behind.
				switch {
				case p[0] < dn[0]:
					next = append(next, [3]float64{p[0], dn[0], p[2]})
				case dn[1] < p[1]:
					next = append(next, [3]float64{dn[1], p[1], p[2]})
				}
			}
			parts = next
		}
		out = append(out, parts...)
	}
	return out
}

// clipParents makes the parent changes [t, parent] say "none" while the
// node was down: none from each crash, and no change until it came back.
func clipParents(ps [][2]float64, dead [][2]float64) [][2]float64 {
	if len(ps) == 0 {
		return ps
	}
	var out [][2]float64
	in := func(t float64) bool {
		for _, dn := range dead {
			if t > dn[0] && t < dn[1] {
				return true
			}
		}
		return false
	}
	for _, p := range ps {
		if !in(p[0]) {
			out = append(out, p)
		}
	}
	for _, dn := range dead {
		at := 0.0 // the parent at the crash
		for _, p := range out {
			if p[0] <= dn[0] {
				at = p[1]
			}
		}
		if at != 0 {
			out = append(out, [2]float64{dn[0], 0})
			slices.SortStableFunc(out, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
		}
	}
	return out
}

// ringOrder is the logical ring of a ring algorithm's run (its
// protocol.params.ring, as every node resolves it), nil for another
// algorithm or a ring that cannot be resolved.
func ringOrder(name string, sc *scenario.Scenario) []protocol.NodeID {
	spec, err := protocol.Lookup(name)
	if err != nil || !spec.LogicalRing {
		return nil
	}
	order, err := logicalring.Resolve(sc.Protocol.Params["ring"], sc.MemberIDs(), sc.Seed)
	if err != nil {
		return nil
	}
	return order
}
