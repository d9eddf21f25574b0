// Package report turns a run's traces into the summary that `sim` and
// `run` print: the leader of every connected component at the end, whether
// it is the component's best node and whether the component had settled,
// messages by kind, and election time, as text and JSON. The verdict is
// trace/judge's (End and Summary): report gathers what it weighs and
// prints it. It reads only the trace directory, so it serves traces of
// the simulator and of real nodes alike.
//
// It imports trace, trace/analysis, trace/judge, scenario, radio,
// mobility, protocol and internal/geo.
package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"manetlab/internal/geo"
	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
	verdicts "manetlab/trace/judge"
)

// Summary is the verdict and headline figures of one run.
type Summary struct {
	Run      string `json:"run"`
	Protocol string `json:"protocol"`
	Driver   string `json:"driver"`
	Seed     uint64 `json:"seed"`
	Nodes    int    `json:"nodes"`
	Alive    int    `json:"alive"`
	// Verdict judges the components at the end (docs/analysis.md, "Run
	// summary"): "invalid" when a settled component (unchanged for the
	// stabilisation delay) does not follow exactly its best node (or a
	// better one of its Reach), or critical sections overlapped; else "unsettled" when a component
	// that is not settled does not follow its best node yet; else
	// "valid". "stalled" when a round protocol's synchronizer stopped with
	// live nodes mid-round; "unknown" when the run lies outside the
	// assumptions of its protocol (crashes for one that assumes none), when
	// critical section requests are still waiting at the end, longer than
	// any granted request waited (trace check's requests-granted is
	// unknown then too), or
	// when a node's trace stops before the end without an end event (a
	// full disk: the reason names the nodes and where, and no component
	// with such a member is judged).
	Verdict string `json:"verdict"`
	// Reason says in one line why.
	Reason string `json:"reason,omitempty"`
	// Stabilisation is the delay in seconds a component must stay
	// unchanged to be judged.
	Stabilisation float64     `json:"stabilisation"`
	Components    []Component `json:"components"`
	Messages      Messages    `json:"messages"`
	// ElectionTime is when, in seconds from the start of the run, the last
	// node adopted the leader it ended with.
	ElectionTime float64 `json:"election_time"`
	// Duration of the run in seconds.
	Duration float64 `json:"duration"`
	// Metrics are the paper's figures (F, R, T, M) and the share of
	// node-time with a wrong or unknown leader; docs/analysis.md defines
	// them. Nil when they could not be computed.
	Metrics *analysis.Metrics `json:"metrics,omitempty"`
	// Complexity sets the measured message counts beside theory, for
	// protocols whose counts theory predicts (ring elections).
	Complexity *analysis.Complexity `json:"complexity,omitempty"`
	// Mutex measures the critical sections, for runs that have any.
	Mutex *analysis.MutexMetrics `json:"mutex,omitempty"`
	// LeaderChanges counts leader changes, all nodes together: leader
	// notes naming another leader than the node followed (docs/analysis.md),
	// the sum of the metrics' per-node leader_changes.
	LeaderChanges int `json:"leader_changes"`
	// Timeline shows the leaders followed over the run, and the faults.
	Timeline []Moment `json:"timeline"`
	// Problems lists what the trace reader could not read (file:line).
	Problems []string `json:"problems,omitempty"`
	// CrossHost lists the run's cross-host problems (analysis.CrossHost:
	// traces missing, frames refused, late starts, another scenario),
	// printed before the verdict.
	CrossHost []analysis.CrossHost `json:"cross_host,omitempty"`
	// Unauthenticated: refused frames from addresses no node of the run
	// sends from (analysis.CheckReport's), printed as notes.
	Unauthenticated []string `json:"unauthenticated,omitempty"`

	measured *analysis.MetricsReport
}

// Measurements is the full metrics report the summary's Metrics come
// from (per node, per election, by kind), so callers that need more than
// the headline figures do not read the traces again.
func (s *Summary) Measurements() *analysis.MetricsReport { return s.measured }

// Component is one connected component of the live nodes at the end.
type Component struct {
	Nodes          []protocol.NodeID `json:"nodes"`
	ExpectedLeader protocol.NodeID   `json:"expected_leader"`
	// Leaders maps each leader ID its members follow (as a decimal string,
	// "none" for members without a leader, "unknown" for members without a trace) to how many follow it.
	Leaders LeaderCounts `json:"leaders"`
	// Valid: the members all follow the expected leader, or all follow a
	// better node of Reach.
	Valid bool `json:"valid"`
	// Reach lists the live nodes outside it reached over uncertain links
	// (docs/analysis.md): a better one of them may lead it.
	Reach []protocol.NodeID `json:"reach,omitempty"`
	// State is Settled (unchanged for the stabilisation delay: judged),
	// Unsettled, or CutShort when a member's trace stops before the end
	// without an end event (Cut says whose and where): what it follows at
	// the end is unknown, so the component is not judged (Valid false).
	State string `json:"state"`
	// Cut lists the members whose traces stop early, with their last
	// event's time.
	Cut []analysis.TraceCut `json:"cut,omitempty"`
	// NoTrace lists the members that left no trace at all (a host's
	// traces not gathered): whom they follow is unknown, so the component
	// is not judged (State NoTraces, Valid false).
	NoTrace []protocol.NodeID `json:"no_trace,omitempty"`
	// Changed is how many seconds before the end its membership or links
	// last changed.
	Changed float64 `json:"changed"`
	// Final: judged though it changed within the stabilisation delay,
	// because the run ended in a final state (quiescent, nothing moving
	// or lost: docs/analysis.md, "Liveness at quiescence") that its
	// members had heard of.
	Final bool `json:"final,omitempty"`
}

// Verdicts and component states of the summary.
const (
	Valid     = analysis.Valid
	Invalid   = analysis.Invalid
	Unsettled = analysis.Unsettled // also a component's state
	Settled   = verdicts.Settled
	CutShort  = verdicts.CutShort
	NoTraces  = verdicts.NoTraces
	Unknown   = analysis.Unknown
)

// overUncertain reports whether every member of c follows one node of
// c.Reach that beats c's expected leader: reached over uncertain links,
// it may lead c (docs/analysis.md).
func overUncertain(c Component, states map[protocol.NodeID]*nodeState, goal protocol.Goal, candidates map[protocol.NodeID]bool) bool {
	if len(c.Leaders) != 1 || c.ExpectedLeader == protocol.None {
		return false
	}
	l := states[c.Nodes[0]]
	if !l.hasLeader || !slices.Contains(c.Reach, l.leader) || (candidates != nil && !candidates[l.leader]) {
		return false
	}
	ls, es := states[l.leader], states[c.ExpectedLeader]
	return ls != nil && es != nil && goal.Better(l.leader, ls.value, c.ExpectedLeader, es.value)
}

func expected(id protocol.NodeID) string {
	if id == protocol.None {
		return "one leader among its members"
	}
	return strconv.FormatUint(uint64(id), 10)
}

// Messages counts protocol messages originated: messages, not frames
// (relays, retransmissions and hellos apart). Total and Bytes are the
// algorithm's messages; the acknowledgements and retransmissions of a
// protocol-side reliable channel (kinds with protocol.TransportPrefix)
// are counted apart in Transport and TransportBytes. ByKind has every
// kind. LinkAcks and LinkRetx count frames of the network stack, apart
// from both: one-hop acknowledgements and retransmissions of unicasts.
type Messages struct {
	Total          uint64            `json:"total"`
	ByKind         map[string]uint64 `json:"by_kind"`
	Bytes          uint64            `json:"bytes"`
	Transport      uint64            `json:"transport,omitempty"`
	TransportBytes uint64            `json:"transport_bytes,omitempty"`
	LinkAcks       uint64            `json:"link_acks,omitempty"`
	LinkRetx       uint64            `json:"link_retx,omitempty"`
}

// nodeState is what the summary tracks per node while reading its trace.
type nodeState struct {
	leader    protocol.NodeID
	hasLeader bool
	value     float64
	seen      bool // its trace was read (a member without one is not judged)
}

// summaryEvents are the node events the summary needs; the rest (receives,
// drops, neighbour changes) are skipped undecoded, which is most of a trace.
func summaryEvents(ev string) bool {
	switch ev {
	case trace.EvStart, string(protocol.NoteLeader), trace.EvCommand, trace.EvSend, trace.EvAck, trace.EvRetx:
		return true
	}
	return false
}

// Keep are the event types the summary reads from node files: a
// trace.Recording given to SummarizeFrom must keep them.
func Keep(ev string) bool { return summaryEvents(ev) || analysis.MetricEvents(ev) }

// Summarize reads the run in dir and computes its summary, streaming the
// node files so that large runs need not fit in memory.
func Summarize(dir string) (*Summary, error) { return SummarizeFrom(trace.Disk, dir) }

// SummarizeFrom is Summarize over the files of src: the run's own
// trace.Recording (keeping Keep) when its writer summarises it, which
// then reads nothing back from disk. The run is read once: the summary
// takes its events from the metrics' read (a Summarizer).
func SummarizeFrom(src trace.Source, dir string) (*Summary, error) {
	s, err := NewSummarizer(src, dir)
	if err != nil {
		return nil, err
	}
	m, err := analysis.ComputeMetricsFrom(src, dir, analysis.MetricsOptions{Visit: s.Visit})
	if err != nil {
		return nil, err
	}
	return s.Summary(m)
}

// A Summarizer gathers what the summary reads of a run from another read
// of it (the metrics', analysis.MetricsOptions.Visit; the HTML page's,
// htmlreport.Options.Visit), which applies the readers' rules for lines,
// headers, hostile input and duplicates once: hand that read Visit, then
// ask for the Summary with its metrics.
type Summarizer struct {
	hdr         trace.Event
	runFile     string
	sc          *scenario.Scenario
	members     []scenario.Member
	states      map[protocol.NodeID]*nodeState
	byID        trace.IDMap[*nodeState] // states, for Visit's lookup of every line
	end         int64
	changes     []change
	leaderNotes bool
	sum         *Summary
	// What the run file's events (after its header) say, folded as they
	// come: a million-node run's positions kept as events took 640 MB.
	alive  map[protocol.NodeID]bool
	pos    map[protocol.NodeID]geo.Vec
	runEnd int64         // the latest end event's time
	faults []trace.Event // crashes, recoveries, cuts and heals, in order
}

// NewSummarizer reads the header of the run in dir from src.
func NewSummarizer(src trace.Source, dir string) (*Summarizer, error) {
	runFile := trace.RunFile(dir)
	hdr, err := trace.ReadHeaderFrom(src, runFile)
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Parse([]byte(hdr.Scenario), runFile, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: the scenario recorded in the header: %w", runFile, err)
	}
	members := sc.Members()
	states := map[protocol.NodeID]*nodeState{}
	for _, m := range members {
		states[m.ID] = &nodeState{value: m.Value}
	}
	sum := &Summary{Run: hdr.Run, Protocol: hdr.Protocol, Driver: hdr.Driver, Seed: hdr.Seed, Nodes: len(members),
		Messages: Messages{ByKind: map[string]uint64{}}}
	z := &Summarizer{hdr: hdr, runFile: runFile, sc: sc, members: members, states: states, sum: sum,
		alive: map[protocol.NodeID]bool{}, pos: map[protocol.NodeID]geo.Vec{}}
	for id, st := range states {
		z.byID.Set(id, st)
	}
	return z, nil
}

// Visit takes one event of the run as read (id 0: the run file's).
func (s *Summarizer) Visit(id protocol.NodeID, e *trace.Event) {
	if id == protocol.None {
		switch e.Ev {
		case trace.EvCrash, trace.EvRecover:
			s.alive[e.Node] = e.Ev == trace.EvRecover
			s.faults = append(s.faults, *e)
		case trace.EvCut, trace.EvHeal: // by hand, on the live page
			s.faults = append(s.faults, *e)
		case trace.EvPosition:
			if e.Pos != nil {
				s.pos[e.Node] = geo.Vec{X: e.Pos[0], Y: e.Pos[1], Z: e.Pos[2]}
			}
		case trace.EvEnd:
			s.runEnd = max(s.runEnd, e.T)
		}
		return
	}
	if !summaryEvents(e.Ev) {
		return
	}
	st, _ := s.byID.Get(id)
	if st == nil {
		return
	}
	st.seen = true
	if e.T > s.end {
		s.end = e.T
	}
	switch e.Ev {
	case trace.EvStart:
		st.leader, st.hasLeader = protocol.None, false
		s.changes = append(s.changes, change{e.T, id, protocol.None})
	case string(protocol.NoteLeader):
		s.leaderNotes = true
		st.leader, st.hasLeader = e.Leader, e.Leader != protocol.None
		s.changes = append(s.changes, change{e.T, id, e.Leader})
		if t := float64(e.T) / 1e9; t > s.sum.ElectionTime {
			s.sum.ElectionTime = t
		}
	case trace.EvCommand:
		if e.Text == string(protocol.SetValue) && e.Value != nil {
			st.value = *e.Value
		}
	case trace.EvAck:
		s.sum.Messages.LinkAcks++
	case trace.EvRetx:
		s.sum.Messages.LinkRetx++
	case trace.EvSend:
		s.sum.Messages.ByKind[e.Kind]++
		if protocol.IsTransport(e.Kind) {
			s.sum.Messages.Transport++
			s.sum.Messages.TransportBytes += uint64(e.Bytes)
		} else {
			s.sum.Messages.Total++
			s.sum.Messages.Bytes += uint64(e.Bytes)
		}
	}
}

// Summary judges the run from what Visit took and m, the metrics of the
// same read (its problems are the summary's), once the read is over.
func (s *Summarizer) Summary(m *analysis.MetricsReport) (*Summary, error) {
	hdr, sc, members, states, sum := s.hdr, s.sc, s.members, s.states, s.sum
	end, changes, leaderNotes := s.end, s.changes, s.leaderNotes
	sum.Problems = m.Problems
	alive, pos, faults := s.alive, s.pos, s.faults
	end = max(end, s.runEnd)
	sum.Duration = time.Duration(end).Seconds()
	sum.Timeline = timeline(changes, faults, end)

	sum.CrossHost, sum.Unauthenticated = m.CrossHost, m.Unauthenticated
	ends := m.End
	if ends == nil {
		// No ground truth walk (nothing alive, or a scenario the
		// analysis could not rebuild): the final positions, all settled.
		comps, err := components(sc, members, pos, alive)
		if err != nil {
			return nil, err
		}
		for _, c := range comps {
			ends = append(ends, analysis.EndComponent{Nodes: c, Settled: true})
		}
	}
	// A mutual exclusion protocol's leaders are those of the election it
	// composes, judged by that election's goal; without leader notes
	// there is nothing to judge (docs/analysis.md).
	leaders := analysis.LeaderProtocol(hdr.Protocol, sc.Protocol.Params)
	goal := protocol.GoalFor(leaders, sc.Protocol.Params)
	candidates := protocol.CandidatesOf(leaders, sc.MemberIDs(), sc.Protocol.Params, sc.Seed)
	noLeaders := protocol.GoalFor(hdr.Protocol, sc.Protocol.Params) == protocol.GoalMutex && !leaderNotes || protocol.GoalFor(hdr.Protocol, sc.Protocol.Params) == protocol.GoalNone
	sum.Stabilisation = m.Stabilisation
	final, heard, _ := m.EndFinal()
	final = final && !noLeaders
	for _, e := range ends {
		var comp Component
		if noLeaders {
			comp = Component{Nodes: e.Nodes, Leaders: map[string]int{"none": len(e.Nodes)}, Valid: true}
		} else {
			comp = judge(e.Nodes, states, goal, candidates)
			comp.Reach = e.Reach
			if !comp.Valid && goal != protocol.GoalTree {
				comp.Valid = overUncertain(comp, states, goal, candidates)
			}
		}
		comp.State, comp.Changed = Settled, max(0, sum.Duration-e.Since)
		if !e.Settled {
			comp.State = Unsettled
			if final && len(e.Reach) == 0 && heard(e.Since) {
				// The run ended in a final state that the component's
				// members have heard of: judged as settled.
				comp.State, comp.Final = Settled, true
			}
		}
		if len(e.Cut) > 0 {
			comp.State, comp.Cut, comp.Valid = CutShort, e.Cut, false
		}
		for _, id := range e.Nodes {
			if st := states[id]; st != nil && !st.seen {
				comp.NoTrace = append(comp.NoTrace, id)
			}
		}
		if len(comp.NoTrace) > 0 && comp.State != CutShort {
			comp.State, comp.Valid = NoTraces, false
		}
		sum.Alive += len(e.Nodes)
		sum.Components = append(sum.Components, comp)
	}
	comps := make([]verdicts.Component, len(sum.Components))
	for i, c := range sum.Components {
		comps[i] = verdicts.Component{Nodes: c.Nodes, State: c.State, Valid: c.Valid, Final: c.Final, Changed: c.Changed,
			Follows: followed(c.Leaders), Expected: expected(c.ExpectedLeader), NoTrace: c.NoTrace}
		for _, k := range c.Cut {
			comps[i].Cut = append(comps[i].Cut, k.String())
		}
	}
	endVerdict, endReason := verdicts.End(comps, sum.Stabilisation, !noLeaders)
	// As trace check does: the first crash against Complexity.Assumes,
	// else the topology against Spec.Outside.
	judged := verdicts.Run{Outside: sc.OutsideAssumptions(), NoLeaders: noLeaders, Duration: sum.Duration}
	if len(faults) > 0 && faults[0].Ev == trace.EvCrash {
		judged.Outside = analysis.OutsideAssumptions(hdr.Protocol, sc.Protocol.Params, faults[0].Node, faults[0].T)
	}
	sum.measured = m
	sum.Metrics = &m.Metrics
	sum.Complexity = m.Complexity
	sum.LeaderChanges = 0
	for _, n := range m.PerNode {
		sum.LeaderChanges += n.LeaderChanges
	}
	if mx := m.Mutex; mx != nil {
		sum.Mutex = mx
		judged.Sections = &verdicts.Sections{Entries: mx.Entries, Requests: mx.Requests, Violations: mx.Violations,
			Waiting: mx.WaitingAtEnd, Recent: mx.Recent, RecentWindow: mx.RecentWindow, Never: mx.Final}
		if o := mx.Oldest; o != nil {
			judged.Sections.OldestNode, judged.Sections.OldestT = o.Node, o.T
		}
	}
	if c := sum.Complexity; c != nil {
		judged.Stalled = c.Stalled
	}
	judged.Counts = []*verdicts.Count{complexityJudged(sum.Complexity), mutexJudged(sum.Mutex)}
	sum.Verdict, sum.Reason = verdicts.Summary(endVerdict, endReason, judged)
	return sum, nil
}

func complexityJudged(c *analysis.Complexity) *verdicts.Count {
	if c == nil {
		return nil
	}
	return c.Judged
}

func mutexJudged(m *analysis.MutexMetrics) *verdicts.Count {
	if m == nil {
		return nil
	}
	return m.Judged
}

// components groups the live nodes by connectivity at their final
// positions under the scenario's radio model.
func components(sc *scenario.Scenario, members []scenario.Member, pos map[protocol.NodeID]geo.Vec, alive map[protocol.NodeID]bool) ([][]protocol.NodeID, error) {
	pts := make([]geo.Vec, len(members))
	up := make([]bool, len(members))
	for i, m := range members {
		p, ok := pos[m.ID]
		if !ok {
			return nil, fmt.Errorf("run file has no final position for node %d", m.ID)
		}
		pts[i] = p
		a, known := alive[m.ID]
		up[i] = a || !known
	}
	med, err := radio.NewMedium(sc.Radio, mobility.Static(pts), sc.Seed)
	if err != nil {
		return nil, err
	}
	var out [][]protocol.NodeID
	for _, c := range med.Components(0, up) {
		ids := make([]protocol.NodeID, len(c))
		for k, i := range c {
			ids[k] = members[i].ID
		}
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		out = append(out, ids)
	}
	return out, nil
}

// judge decides whether a component ended with exactly one leader, agreed
// by all, that is its best node.
// Only candidates (nil: every member) can be expected to lead; a
// component without one is not judged (valid, expected leader 0).
func judge(ids []protocol.NodeID, states map[protocol.NodeID]*nodeState, goal protocol.Goal, candidates map[protocol.NodeID]bool) Component {
	c := Component{Nodes: ids, Leaders: map[string]int{}}
	if goal == protocol.GoalTree {
		return judgeTree(c, states)
	}
	best := protocol.None
	for _, id := range ids {
		if candidates != nil && !candidates[id] {
			continue
		}
		if best == protocol.None || goal.Better(id, states[id].value, best, states[best].value) {
			best = id
		}
	}
	c.ExpectedLeader = best
	for _, id := range ids {
		st := states[id]
		key := "none"
		switch {
		case !st.seen:
			key = "unknown" // no trace: whom it follows is not known
		case st.hasLeader:
			key = strconv.FormatUint(uint64(st.leader), 10)
		}
		c.Leaders[key]++
	}
	c.Valid = best == protocol.None || len(c.Leaders) == 1 && c.Leaders[strconv.FormatUint(uint64(best), 10)] == len(ids)
	return c
}

// judgeTree decides a component of a tree protocol (IEEE 1394): any member
// may be root, so the component is valid when every member follows the
// same leader and it is one of them; the tree itself (one root, parent
// edges on radio links) is trace check's "tree" property.
func judgeTree(c Component, states map[protocol.NodeID]*nodeState) Component {
	var root protocol.NodeID
	for _, id := range c.Nodes {
		st := states[id]
		key := "none"
		if st.hasLeader {
			key = strconv.FormatUint(uint64(st.leader), 10)
			root = st.leader
		}
		c.Leaders[key]++
	}
	if len(c.Leaders) == 1 && root != protocol.None && slices.Contains(c.Nodes, root) {
		c.ExpectedLeader, c.Valid = root, true
	}
	return c
}
