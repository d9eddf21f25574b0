package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/judge"
)

// DefaultBeaconKinds are the periodic message kinds left out of M: they
// are sent whether or not an election runs.
var DefaultBeaconKinds = []string{"beacon", "hello", "announce", "heartbeat"}

// Metrics are the paper's figures for one run (docs/analysis.md defines
// them). A nil figure is one the run cannot give: F, R, T and M for a
// protocol that notes no elections, T when no election completed.
type Metrics struct {
	F              *float64 `json:"F"`
	R              *float64 `json:"R"`
	T              *float64 `json:"T"`
	MBcast         *float64 `json:"M_bcast"`
	MUcast         *float64 `json:"M_ucast"`
	WrongOrUnknown *float64 `json:"wrong_or_unknown"`
	// Note says why figures are missing.
	Note string `json:"note,omitempty"`
}

// MetricsReport is the full measurement of one run.
type MetricsReport struct {
	Run      string  `json:"run"`
	Protocol string  `json:"protocol"`
	Nodes    int     `json:"nodes"`
	Duration float64 `json:"duration"`
	// CrossHost lists the run's cross-host problems (crosshost.go),
	// printed before the figures.
	CrossHost []CrossHost `json:"cross_host,omitempty"`
	// Unauthenticated: as CheckReport's.
	Unauthenticated []string `json:"unauthenticated,omitempty"`
	Metrics
	// Messages counts frames by kind: the protocols' messages as sent and
	// relayed (a flood counts once per transmission).
	Messages map[string]KindCount `json:"messages"`
	// Link counts the network stack's own frames, apart from Messages:
	// acknowledgements and retransmissions of one-hop unicasts.
	Link LinkCount `json:"link"`
	// Routing measures the multi-hop messages with a destination and the
	// routing protocol's control frames, when MetricsOptions.Routing asks
	// and the run has any (ComputeRouting).
	Routing   *RoutingMetrics   `json:"routing,omitempty"`
	PerNode   []NodeMetrics     `json:"per_node"`
	Elections []ElectionMetrics `json:"elections"`
	// Complexity sets message counts beside theory, for protocols that
	// declare one (ring elections).
	Complexity *Complexity `json:"complexity,omitempty"`
	// Mutex measures the critical sections, for runs that note any
	// cs-request or cs-enter.
	Mutex *MutexMetrics `json:"mutex,omitempty"`
	// End is the ground truth at the end of the run, component by
	// component, which the run summary judges; nil without ground truth.
	End []EndComponent `json:"end,omitempty"`
	// Stabilisation is the delay in seconds after which a component
	// counts as settled (CheckOptions.Stabilisation).
	Stabilisation float64  `json:"stabilisation"`
	Problems      []string `json:"problems,omitempty"`

	// EndFinal's (judged.go).
	final    bool
	heard    func(since float64) bool
	finalWhy string
}

// EndComponent is one component of the live nodes at the end of a run
// (docs/analysis.md, "Ground truth").
type EndComponent struct {
	Nodes []protocol.NodeID `json:"nodes"`
	// Expected is the best node, which must lead a settled component
	// (None: no candidate, or a tree protocol, whose root any member may
	// be).
	Expected protocol.NodeID `json:"expected_leader"`
	// Since is when, in seconds from the start, its membership or its
	// links last changed.
	Since float64 `json:"since"`
	// Reach lists the live nodes outside it that it reaches over
	// uncertain links: a better one of them may lead it.
	Reach []protocol.NodeID `json:"reach,omitempty"`
	// Settled: unchanged for the stabilisation delay, so it is judged.
	Settled bool `json:"settled"`
	// Cut lists the members whose traces stop before the end without an
	// end event (a full disk, a killed writer), with where: what they
	// follow at the end is unknown, so the component is not judged.
	Cut []TraceCut `json:"cut,omitempty"`
}

// TraceCut is a node whose trace stops without an end event in a run
// whose run file records its end: At is its last event, in seconds from
// the start of the run.
type TraceCut struct {
	Node protocol.NodeID `json:"node"`
	At   float64         `json:"at"`
}

// String is "node 3 at 5.000s".
func (c TraceCut) String() string { return fmt.Sprintf("node %d at %.3fs", c.Node, c.At) }

// LinkCount counts the network stack's own frames of a run: the link
// layer's and the routing protocol's (hellos are not traced by default
// and not counted).
type LinkCount struct {
	Acks      uint64 `json:"acks"`       // acknowledgement frames sent
	Retx      uint64 `json:"retx"`       // unicast frames sent again
	RetxBytes uint64 `json:"retx_bytes"` // their message bytes
	// Routing control frames (AODV): requests, replies, errors.
	RREQ uint64 `json:"rreq"`
	RREP uint64 `json:"rrep"`
	RERR uint64 `json:"rerr"`
}

// Frames is every frame counted: acknowledgements, retransmissions and
// routing control.
func (l LinkCount) Frames() uint64 { return l.Acks + l.Retx + l.RREQ + l.RREP + l.RERR }

// KindCount counts the frames of one kind put on the air (send and
// relay events) and their bytes.
type KindCount struct {
	Broadcast uint64 `json:"broadcast"`
	Unicast   uint64 `json:"unicast"`
	Bytes     uint64 `json:"bytes"`
}

// NodeMetrics is one node's share.
type NodeMetrics struct {
	Node  protocol.NodeID `json:"node"`
	Sent  uint64          `json:"sent"`
	Bytes uint64          `json:"bytes"`
	// LeaderChanges counts the node's leader notes that name another
	// leader than the one it followed just before (none after its start
	// or a crash): a note naming none counts when it had a leader, a
	// repeated note does not (docs/analysis.md). The run summary's
	// leader_changes is their sum.
	LeaderChanges int     `json:"leader_changes"`
	NoLeader      float64 `json:"no_leader"`   // live seconds without a leader
	InElection    float64 `json:"in_election"` // live seconds in an election
	Live          float64 `json:"live"`        // seconds alive
}

// ElectionMetrics is one election epoch.
type ElectionMetrics struct {
	Epoch string `json:"epoch"`
	// Initiator is the node of the epoch's first election-start (the
	// lowest ID of those that started it first): with Start, the
	// election's readable name.
	Initiator protocol.NodeID `json:"initiator"`
	Start     float64         `json:"start"`
	// End is when the last participant adopted a leader under this
	// epoch; null when none did.
	End          *float64 `json:"end"`
	Participants int      `json:"participants"`
	Messages     uint64   `json:"messages"`
}

// MetricsOptions tune ComputeMetrics.
type MetricsOptions struct {
	// BeaconKinds are excluded from M (default DefaultBeaconKinds).
	BeaconKinds []string
	// Step is the ground-truth grid of wrong_or_unknown (default 100 ms).
	Step time.Duration
	// Stabilisation decides which components are settled at the end
	// (zero: the protocol's own, Stabilisation).
	Stabilisation time.Duration
	// Routing adds the routing metrics (a read of the receives of its
	// own: `trace report` asks, a run's summary does not).
	Routing bool
	// Visit, when not nil, is handed every event the metrics' read takes,
	// as AnalyzeOptions.Visit is (ComputeMetrics; Analyze has its own).
	Visit func(id protocol.NodeID, e *trace.Event)
}

// metricEvents are what the metrics read: receives, most of a trace,
// are skipped undecoded. Neighbour events are read: the ground truth of a
// run of real processes uses them (truth.go, observedDown).
func metricEvents(ev string) bool {
	switch typeOf(ev) {
	case tOther, tPosition, tRecv, tDrop:
		return false
	}
	return true
}

// MetricEvents are the event types ComputeMetrics reads from node files.
func MetricEvents(ev string) bool { return metricEvents(ev) }

// ComputeMetrics reads the run in dir and measures it.
func ComputeMetrics(dir string, opt MetricsOptions) (*MetricsReport, error) {
	return ComputeMetricsFrom(trace.Disk, dir, opt)
}

// ComputeMetricsFrom is ComputeMetrics over the files of src (a
// trace.Recording keeping at least MetricEvents).
func ComputeMetricsFrom(src trace.Source, dir string, opt MetricsOptions) (*MetricsReport, error) {
	return computeMetrics(&loader{dir: dir, src: src, visit: opt.Visit}, opt)
}

// computeMetrics measures the run of l (visit.go).
func computeMetrics(l *loader, opt MetricsOptions) (*MetricsReport, error) {
	if opt.BeaconKinds == nil {
		opt.BeaconKinds = DefaultBeaconKinds
	}
	if opt.Step <= 0 {
		opt.Step = DefaultStep
	}
	routing := routingFrom(l, opt.Routing)
	r, err := l.run(readMetrics)
	if err != nil {
		return nil, err
	}
	if opt.Stabilisation <= 0 {
		opt.Stabilisation = r.stabilisation()
	}
	rep := &MetricsReport{Run: r.header.Run, Protocol: r.header.Protocol, Messages: map[string]KindCount{},
		Stabilisation: opt.Stabilisation.Seconds(), CrossHost: r.crossHost()}
	rep.Unauthenticated = r.unauth
	end := r.end()
	rep.Duration = seconds(end)
	tr, terr := newTruth(r, opt.Step)
	members := r.nodeIDs()
	if terr == nil {
		members = members[:0]
		for _, m := range tr.members {
			members = append(members, m.ID)
		}
	}
	rep.Nodes = len(members)
	beacon := map[int32]bool{}
	for _, k := range opt.BeaconKinds {
		beacon[r.str(k)] = true
	}

	// Liveness from the run file: crash and recover.
	downAt := map[protocol.NodeID][]int64{} // alternating crash, recover times
	for _, e := range r.procs[0].evs {
		if e.typ == tCrash || e.typ == tRecover {
			downAt[e.node] = append(downAt[e.node], e.t)
		}
	}

	type epochInfo struct {
		start   int64
		end     int64
		done    bool
		started map[protocol.NodeID]int64
		adopted map[protocol.NodeID]bool
	}
	epochs := map[int32]*epochInfo{}
	var epochOrder []int32
	// Non-periodic sends by node, broadcasts and unicasts apart, for the
	// per-election counts and M.
	sendTimes := map[protocol.NodeID][]int64{}
	ucastTimes := map[protocol.NodeID][]int64{}
	var liveTotal, electionTotal float64
	var bcast, ucast uint64
	for _, id := range members {
		nm := NodeMetrics{Node: id}
		pr := r.byID[id]
		var evs []event
		if pr != nil {
			evs = pr.evs
		}
		// Walk the node's events with its liveness: alive from 0 unless a
		// crash; leader none at start; in an election from election-start
		// until a leader is adopted or the election ends.
		alive, leader, inElection := true, protocol.None, false
		var since int64 // start of the current stretch
		crashes := downAt[id]
		ci := 0
		account := func(to int64) {
			if alive && to > since {
				d := seconds(to - since)
				nm.Live += d
				if leader == protocol.None {
					nm.NoLeader += d
				}
				if inElection {
					nm.InElection += d
				}
			}
			since = max(since, to)
		}
		applyFault := func(until int64) {
			for ci < len(crashes) && crashes[ci] <= until {
				account(crashes[ci])
				alive = !alive
				if !alive {
					leader, inElection = protocol.None, false
				}
				ci++
			}
		}
		for i := range evs {
			e := &evs[i]
			applyFault(e.t)
			account(e.t)
			switch e.typ {
			case tStart:
				leader, inElection = protocol.None, false
			case tLeader:
				if e.leader != leader {
					nm.LeaderChanges++
				}
				leader = e.leader
				if e.leader != protocol.None {
					inElection = false
					if ep := epochs[e.epoch]; e.epoch != 0 && ep != nil {
						if _, in := ep.started[id]; in && !ep.adopted[id] {
							ep.adopted[id] = true
							ep.end, ep.done = max(ep.end, e.t), true
						}
					}
				}
			case tElStart:
				inElection = true
				if e.epoch != 0 {
					ep := epochs[e.epoch]
					if ep == nil {
						ep = &epochInfo{start: e.t, started: map[protocol.NodeID]int64{}, adopted: map[protocol.NodeID]bool{}}
						epochs[e.epoch] = ep
						epochOrder = append(epochOrder, e.epoch)
					}
					ep.start = min(ep.start, e.t)
					if _, ok := ep.started[id]; !ok {
						ep.started[id] = e.t
					}
				}
			case tElEnd:
				inElection = false
			case tAck:
				rep.Link.Acks++
			case tRetx:
				rep.Link.Retx++
				rep.Link.RetxBytes += uint64(e.bytes)
			case tRREQ:
				rep.Link.RREQ++
			case tRREP:
				rep.Link.RREP++
			case tRERR:
				rep.Link.RERR++
			case tSend, tRelay:
				nm.Sent++
				nm.Bytes += uint64(e.bytes)
				kc := rep.Messages[r.strs.Strs[e.kind]]
				if e.to == protocol.None {
					kc.Broadcast++
				} else {
					kc.Unicast++
				}
				kc.Bytes += uint64(e.bytes)
				rep.Messages[r.strs.Strs[e.kind]] = kc
				if !beacon[e.kind] {
					sendTimes[id] = append(sendTimes[id], e.t)
					if e.to != protocol.None {
						ucastTimes[id] = append(ucastTimes[id], e.t)
					}
				}
			}
		}
		applyFault(end)
		account(end)
		liveTotal += nm.Live
		electionTotal += nm.InElection
		rep.PerNode = append(rep.PerNode, nm)
	}

	// Elections, in order of their first start.
	sort.SliceStable(epochOrder, func(a, b int) bool { return epochs[epochOrder[a]].start < epochs[epochOrder[b]].start })
	var tSum float64
	tCount, participations := 0, 0
	for _, k := range epochOrder {
		ep := epochs[k]
		em := ElectionMetrics{Epoch: r.strs.Strs[k], Start: seconds(ep.start), Participants: len(ep.started)}
		for id, t := range ep.started {
			if t == ep.start && (em.Initiator == protocol.None || id < em.Initiator) {
				em.Initiator = id
			}
		}
		participations += len(ep.started)
		until := end
		if ep.done {
			d := seconds(ep.end)
			em.End = &d
			until = ep.end
			tSum += seconds(ep.end - ep.start)
			tCount++
		}
		for id := range ep.started {
			all := countWithin(sendTimes[id], ep.start, until)
			uc := countWithin(ucastTimes[id], ep.start, until)
			em.Messages += all
			ucast += uc
			bcast += all - uc
		}
		rep.Elections = append(rep.Elections, em)
	}

	n := float64(rep.Nodes)
	if len(epochs) == 0 {
		rep.Note = "no election-start notes: F, R, T and M apply only to protocols that hold elections"
	} else {
		rep.F = ptr(electionTotal / liveTotal)
		if end > 0 && n > 0 {
			rep.R = ptr(float64(len(epochs)) / n / (seconds(end) / 60))
		}
		if tCount > 0 {
			rep.T = ptr(tSum / float64(tCount))
		} else {
			rep.Note = "no election completed: T unknown"
		}
		// Per node per election, as the paper counts it: what each
		// participant sends while the election runs. A node that takes
		// part in a clean election broadcasts its Election and its
		// Leader once, so M_bcast is 2 when nothing goes wrong.
		rep.MBcast = ptr(float64(bcast) / float64(participations))
		rep.MUcast = ptr(float64(ucast) / float64(participations))
	}
	var wrong *float64
	if terr == nil {
		wrong, rep.End = wrongOrUnknown(r, tr, int64(opt.Stabilisation))
		rep.endFinal(l, r, tr)
	} else {
		rep.endFinal(l, r, nil)
	}
	switch {
	case r.goal() == protocol.GoalMutex && !r.hasLeaderNotes():
		if rep.Note != "" {
			rep.Note += "; "
		}
		rep.Note += "wrong_or_unknown does not apply: a mutual exclusion protocol without leader notes"
	case terr != nil:
		if rep.Note != "" {
			rep.Note += "; "
		}
		rep.Note += "wrong_or_unknown unknown: " + terr.Error()
	default:
		rep.WrongOrUnknown = wrong
	}
	if routing() {
		if rep.Routing, err = ComputeRouting(l.dir, l.src); err != nil {
			return nil, err
		}
	}
	var cnote string
	if terr != nil {
		rep.Complexity, cnote = computeComplexity(l, r, nil)
	} else {
		rep.Complexity, cnote = computeComplexity(l, r, tr)
	}
	if cnote != "" && rep.Note != "" {
		rep.Note += "; " + cnote
	} else if cnote != "" {
		rep.Note = cnote
	}
	if r.hasSections() {
		// The synchronisation delay in messages follows the causal graph,
		// which needs the receives this load skipped.
		rm, err := l.run(readCausal)
		if err != nil {
			return nil, err
		}
		rep.Mutex = computeMutex(rm, rep.Nodes)
		static := terr == nil && tr.static
		rep.Mutex.Judged = judge.Worse(judgeMutexCount(l, rm, rep.Mutex.Requests, static, true), judgeBudget(l, rm, static))
		if rep.Mutex.WaitingAtEnd > 0 {
			rep.Mutex.Final = neverGranted(rm, judge.Final(rm.quiet(), rm.facts(l, rm, static), false, endConnected(rep.End), coverage(rm.uncovered())))
		}
	}
	rep.Problems = problemStrings(r.problems)
	return rep, nil
}

func ptr(v float64) *float64 { return &v }

// wrongOrUnknown is the share of live node-samples, on the ground-truth
// grid below the end, whose leader is not the best node of their
// component nor a better one it reaches over uncertain links. It also
// returns the components at the end, settled under delay or not.
func wrongOrUnknown(r *run, tr *truth, delay int64) (*float64, []EndComponent) {
	fo := newFollower(r, tr)
	var live, wrong int
	var end []EndComponent
	tr.walk(func(s *snapshot, final bool) {
		if final {
			for ci, c := range s.comps {
				ec := EndComponent{Since: seconds(s.since[ci]), Settled: s.settled(ci, delay)}
				for _, i := range c {
					ec.Nodes = append(ec.Nodes, tr.members[i].ID)
					if fo.cut[i] != math.MaxInt64 && fo.cut[i] >= 0 { // no trace at all: the summary says so apart
						ec.Cut = append(ec.Cut, TraceCut{Node: tr.members[i].ID, At: seconds(fo.cut[i])})
					}
				}
				slices.SortFunc(ec.Cut, func(a, b TraceCut) int { return cmp.Compare(a.Node, b.Node) })
				if s.uncertain[ci] {
					for j, rj := range s.reach {
						if rj == s.reach[c[0]] && !slices.Contains(c, j) {
							ec.Reach = append(ec.Reach, tr.members[j].ID)
						}
					}
					slices.Sort(ec.Reach)
				}
				slices.Sort(ec.Nodes)
				if s.best[ci] >= 0 {
					ec.Expected = tr.members[s.best[ci]].ID
				}
				end = append(end, ec)
			}
			return
		}
		fo.advance(s.t)
		for ci, c := range s.comps {
			if s.best[ci] < 0 {
				continue // no candidate: not judged
			}
			for _, i := range c {
				live++
				// Past the end of a node's cut trace its leader is unknown.
				if fo.cut[i] < s.t || !tr.accepts(s, ci, fo.leader[i]) {
					wrong++
				}
			}
		}
	})
	if live == 0 {
		return nil, end
	}
	return ptr(float64(wrong) / float64(live)), end
}

// countWithin counts the times in ts (sorted) from lo to hi inclusive.
func countWithin(ts []int64, lo, hi int64) uint64 {
	a, _ := slices.BinarySearch(ts, lo)
	b, _ := slices.BinarySearch(ts, hi+1)
	return uint64(b - a)
}
