package analysis

import (
	"fmt"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/scenario"
	"manetlab/trace/judge"
)

// Property names, as reports print them.
const (
	PropEpochLeader  = "one-leader-per-epoch"
	PropStableLeader = "stable-leader"
	PropMutex        = "mutual-exclusion"
	PropGranted      = "requests-granted"
)

// CheckOptions tune Check.
type CheckOptions struct {
	// Stabilisation is how long a component must stay unchanged
	// (membership and links) before its leadership is judged; zero: the
	// protocol's own (Stabilisation).
	Stabilisation time.Duration
	// Step is the grid on which ground truth is sampled (default 100 ms).
	Step time.Duration
}

// CheckReport holds a verdict for every property.
type CheckReport struct {
	Run      string `json:"run"`
	Protocol string `json:"protocol"`
	// CrossHost lists the run's cross-host problems (crosshost.go),
	// printed before the verdicts.
	CrossHost []CrossHost `json:"cross_host,omitempty"`
	// Unauthenticated says how many refused frames came from addresses no
	// node of the run sends from (crosshost.go): printed as notes, no
	// node's problem.
	Unauthenticated []string   `json:"unauthenticated,omitempty"`
	Properties      []Property `json:"properties"`
	// Problems lists damaged input as file:line: message.
	Problems []string `json:"problems,omitempty"`
}

// Verdict is the verdict of every property together and its reason
// (judge.Combined): the first line of the text report.
func (c *CheckReport) Verdict() (string, string) {
	ps := make([]judge.Judged, len(c.Properties))
	for i, p := range c.Properties {
		ps[i] = judge.Judged{Name: p.Name, Verdict: p.Verdict, Reason: p.Reason}
		if p.Judged != nil && p.Verdict != Unknown {
			ps[i].Name += fmt.Sprintf(" (on %.1f%% of live node-time)", 100**p.Judged)
		}
	}
	return judge.Combined(ps)
}

// Invalid reports whether some property was found violated.
func (c *CheckReport) Invalid() bool {
	for _, p := range c.Properties {
		if p.Verdict == Invalid {
			return true
		}
	}
	return false
}

// Property is the verdict on one property.
type Property struct {
	Name    string `json:"name"`
	Verdict string `json:"verdict"`
	// Reason explains an unknown verdict, or notes what was checked.
	Reason string `json:"reason,omitempty"`
	// Checked counts what was examined (epochs, component-instants,
	// section pairs).
	Checked int `json:"checked"`
	// Judged is, for the properties judged on settled components
	// (stable-leader, tree), the share of live node-time in them.
	Judged *float64 `json:"judged,omitempty"`
	// Violations counts every violation; Witnesses shows the first few.
	Violations int       `json:"violations"`
	Witnesses  []Witness `json:"witnesses,omitempty"`
}

// Witness is a minimal account of one violation: what went wrong, and the
// events that show it.
type Witness struct {
	Text   string         `json:"text"`
	Events []WitnessEvent `json:"events"`
}

// WitnessEvent is one event of a witness, with where to find it.
type WitnessEvent struct {
	Node protocol.NodeID `json:"node"`
	Ev   string          `json:"ev"`
	T    float64         `json:"t"` // seconds from the start of the run
	Src  string          `json:"src"`
	What string          `json:"what,omitempty"`
}

// DefaultStabilisation is how long a component must stay unchanged
// before the stable-leader check requires settled leadership in it, for a
// protocol that declares no Spec.Settle.
const DefaultStabilisation = 15 * time.Second

// Stabilisation is the default stabilisation delay of a run of sc: the
// Spec.Settle of the protocol whose leaders are judged (LeaderProtocol),
// plus the neighbour-discovery timeout (radio.hello.timeout), which every
// protocol waits to learn that a link went down; DefaultStabilisation
// for a protocol that declares no Settle.
func Stabilisation(sc *scenario.Scenario) time.Duration {
	name := LeaderProtocol(sc.Protocol.Name, sc.Protocol.Params)
	d, ok := protocol.SettleOf(name, sc.Protocol.Params)
	if !ok {
		return DefaultStabilisation
	}
	hello := sc.Radio
	hello.Defaults()
	return d + hello.Hello.Timeout.D()
}

// stabilisation is Stabilisation for the scenario recorded in r's header,
// or DefaultStabilisation when it cannot be read (the checks then say
// why they have no ground truth).
func (r *run) stabilisation() time.Duration {
	sc, err := r.scenario()
	if err != nil {
		return DefaultStabilisation
	}
	return Stabilisation(sc)
}

// maxWitnesses bounds the witnesses kept per property.
const maxWitnesses = 10

// witnessEvent describes an event of r for a witness.
func (r *run) witnessEvent(e *event, what string) WitnessEvent {
	return WitnessEvent{Node: e.node, Ev: evName(e), T: seconds(e.t), Src: r.src(e), What: what}
}

func seconds(t int64) float64 { return float64(t) / 1e9 }

// Check reads the run in dir and decides every property (docs/analysis.md
// gives the rules): at most one leader per election epoch; after the
// stabilisation delay, exactly one leader per connected component,
// agreed by all members and the component's best node; never two nodes in
// the critical section at once, judged by happened-before.
func Check(dir string, opt CheckOptions) (*CheckReport, error) {
	return check(&loader{dir: dir}, opt)
}

// check decides every property of the run of l (visit.go).
func check(l *loader, opt CheckOptions) (*CheckReport, error) {
	if opt.Step <= 0 {
		opt.Step = DefaultStep
	}
	r, err := l.run(readCheck)
	if err != nil {
		return nil, err
	}
	if opt.Stabilisation <= 0 {
		opt.Stabilisation = r.stabilisation()
	}
	rep := &CheckReport{Run: r.header.Run, Protocol: r.header.Protocol, CrossHost: r.crossHost()}
	rep.Unauthenticated = r.unauth
	why := r.outsideAssumptions()
	mutex := r.goal() == protocol.GoalMutex
	if r.goal() == protocol.GoalNone {
		rep.Properties = append(rep.Properties, nothingToJudge(PropEpochLeader), nothingToJudge(PropStableLeader))
	} else if mutex && !r.hasLeaderNotes() {
		rep.Properties = append(rep.Properties, noLeaderToJudge(PropEpochLeader), noLeaderToJudge(PropStableLeader))
	} else {
		rep.Properties = append(rep.Properties, judgeOutside(checkEpochs(r), why), judgeOutside(checkStable(l, r, opt), why))
	}
	mx, err := checkMutexOf(r, l)
	if err != nil {
		return nil, err
	}
	rep.Properties = append(rep.Properties, mx)
	if mutex || r.hasSections() {
		rep.Properties = append(rep.Properties, checkGranted(r, func() string { return r.mutexFinal(l, opt) }))
	}
	if _, ok := rounds.Lookup(r.header.Protocol); ok {
		rep.Properties = append(rep.Properties, checkSync(l)) // round protocols: rounds.go
	}
	if p, ok := checkBound(l, r, opt); ok {
		rep.Properties = append(rep.Properties, p)
	}
	if p, ok := checkSafety(r); ok { // a declared safety predicate: safety.go
		rep.Properties = append(rep.Properties, p)
	}
	if r.leaderGoal() == protocol.GoalTree {
		rep.Properties = judgeTreeGoal(l, rep.Properties, why, opt)  // tree identify: docs/analysis.md
		rep.Properties = appendBFSDepth(l, rep.Properties, why, opt) // sync/bfs: trace/analysis/bfsdepth.go
	}
	gaps := r.uncovered()
	for i, p := range rep.Properties {
		rep.Properties[i] = statesCoverage(p, gaps)
	}
	rep.Problems = problemStrings(r.problems)
	return rep, nil
}

// checkEvents are the event types the checkers read; positions in node
// files and unknown events are skipped undecoded. Neighbour events are
// read: the ground truth of a run of real processes uses them.
func checkEvents(ev string) bool {
	switch typeOf(ev) {
	case tOther, tPosition:
		return false
	}
	return true
}

// checkEpochs finds two different leaders announced under one epoch.
func checkEpochs(r *run) Property {
	p := Property{Name: PropEpochLeader}
	byEpoch := map[int32]*event{}
	reported := map[int32]bool{}
	var named []int32 // each witness's epoch, to name it readably below
	leaderNotes := 0
	for _, pr := range r.procs[1:] {
		for i := range pr.evs {
			e := &pr.evs[i]
			if e.typ != tLeader || e.leader == protocol.None {
				continue
			}
			leaderNotes++
			if e.epoch == 0 {
				continue
			}
			f, ok := byEpoch[e.epoch]
			if !ok {
				byEpoch[e.epoch] = e
				continue
			}
			if f.leader == e.leader || reported[e.epoch] {
				continue
			}
			reported[e.epoch] = true
			p.Violations++
			if len(p.Witnesses) < maxWitnesses {
				p.Witnesses = append(p.Witnesses, Witness{
					Text:   fmt.Sprintf(" has two leaders: node %d announces %d, node %d announces %d", f.node, f.leader, e.node, e.leader),
					Events: []WitnessEvent{r.witnessEvent(f, ""), r.witnessEvent(e, "")},
				})
				named = append(named, e.epoch)
			}
		}
	}
	if len(named) > 0 {
		// "the election by node 10 at 0.031 s has two leaders: ...",
		// by its first election-start ("epoch 1" without one).
		starts := r.electionStarts(reported)
		for i, ep := range named {
			f, ok := starts[ep]
			p.Witnesses[i].Text = electionLabel(r.strs.Strs[ep], f, ok) + p.Witnesses[i].Text
		}
	}
	p.Checked = len(byEpoch)
	switch {
	case p.Violations > 0:
		p.Verdict = Invalid
	case len(byEpoch) == 0 && leaderNotes == 0:
		// Facts, not a guess about the protocol: no node adopted a
		// leader, so no epoch had one to judge.
		p.Verdict, p.Reason = Unknown, "no node adopted a leader: no epoch to judge"
	case len(byEpoch) == 0:
		// Leaders were adopted, and no note names an epoch: the
		// protocol's elections have none (floodmax), so the property
		// does not apply; stable-leader judges the leaders themselves.
		p.Verdict, p.Reason = Valid, fmt.Sprintf("%s: none of the %d leader notes carries an epoch (the protocol's elections have none); stable-leader judges the leaders", judge.NotApplicable, leaderNotes)
	default:
		p.Verdict = Valid
	}
	return p
}

// checkStable samples the ground truth and requires every settled
// component (certain, unchanged for the stabilisation delay) to follow
// exactly its best node. One witness per settled stretch of a component:
// its first failing instant.
func checkStable(l *loader, r *run, opt CheckOptions) Property {
	p := Property{Name: PropStableLeader}
	tr, err := newTruth(r, opt.Step)
	if err != nil {
		p.Verdict, p.Reason = Unknown, "no ground truth: "+err.Error()
		return p
	}
	fo := newFollower(r, tr)
	final, notFinal := r.finalState(l, tr)
	stableWindows(&p, tr, opt, fo.advance, final, func(s *snapshot, ci int, c []int, since int64) (bool, bool, func() Witness) {
		if s.best[ci] < 0 {
			return false, false, nil // no candidate: not judged
		}
		for _, i := range c {
			if fo.cut[i] < s.t {
				return false, false, nil // a member's trace stopped or is missing: what it follows is unknown
			}
		}
		best := tr.members[s.best[ci]].ID
		// Every member follows one leader, the best node or a better
		// one reached over uncertain links.
		var bad []int
		lead := fo.leader[c[0]]
		if !tr.accepts(s, ci, lead) {
			lead = best
		}
		for _, i := range c {
			if fo.leader[i] != lead {
				bad = append(bad, i)
			}
		}
		return true, len(bad) > 0, func() Witness {
			w := stableWitness(r, tr, fo, s, c, best, bad, since)
			if !s.settled(ci, int64(opt.Stabilisation)) {
				w.Text += "; " + judge.QuietWitness(r.quiet(), seconds(s.t)) + ", so it never will"
			}
			return w
		}
	}, "")
	if notFinal != "" && p.Verdict == Unknown && r.quiet() != nil {
		p.Reason += "; the end is not final: " + notFinal
	}
	if cut := fo.cutShort(tr); len(cut) > 0 {
		p.Reason += "; traces missing or stopping without an end event, components with them not judged after: " + strings.Join(cut, ", ")
	}
	return p
}

// stableWindows walks the ground truth and asks judge about every
// settled component at every sample (ci, its member indices, and when it
// last changed; docs/analysis.md): judge says whether it judged the
// component, whether it fails, and how to build its witness, asked for
// only once per settled stretch of a component: its first failing
// instant. advance replays the nodes' notes up to each sample. The
// counts, the share of live node-time judged, witnesses and verdict go
// into p; held ends the reason of a valid one.
func stableWindows(p *Property, tr *truth, opt CheckOptions, advance func(t int64), final func(s *snapshot, ci int) bool,
	judge func(s *snapshot, ci int, c []int, since int64) (judged, fails bool, witness func() Witness), held string) {
	delay := int64(opt.Stabilisation)
	type stretch struct {
		first int
		since int64
	}
	reported := map[stretch]bool{}
	var live, judgedNodes, uncertainNodes int
	var longest int64 // the longest a certain component stayed unchanged
	tr.walk(func(s *snapshot, last bool) {
		advance(s.t)
		for ci, c := range s.comps {
			live += len(c)
			if s.uncertain[ci] {
				uncertainNodes += len(c)
			}
			longest = max(longest, s.t-s.since[ci])
			if !s.settled(ci, delay) && !(last && final != nil && final(s, ci)) {
				continue
			}
			judged, fails, witness := judge(s, ci, c, s.since[ci])
			if !judged {
				continue
			}
			p.Checked++
			judgedNodes += len(c)
			if !fails {
				continue
			}
			p.Violations++
			k := stretch{c[0], s.since[ci]}
			if reported[k] {
				continue
			}
			reported[k] = true
			if len(p.Witnesses) < maxWitnesses {
				p.Witnesses = append(p.Witnesses, witness())
			}
		}
	})
	if live > 0 {
		p.Judged = ptr(float64(judgedNodes) / float64(live))
	}
	share := func() string {
		s := fmt.Sprintf("%.1f%% of live node-time judged", 100*float64(judgedNodes)/float64(max(live, 1)))
		if uncertainNodes > 0 {
			s += fmt.Sprintf(", %.1f%% in components with an uncertain link outside", 100*float64(uncertainNodes)/float64(live))
		}
		return s
	}
	switch {
	case p.Violations > 0:
		p.Verdict = Invalid
		p.Reason = share()
	case p.Checked == 0:
		p.Verdict = Unknown
		p.Reason = fmt.Sprintf("no settled component: none stayed unchanged (membership and links) for the %v delay; the longest stretch was %.1fs (%s)",
			opt.Stabilisation, seconds(longest), share())
	default:
		p.Verdict = Valid
		p.Reason = fmt.Sprintf("%d component-instants checked, every %v, in components unchanged for %v (%s)%s",
			p.Checked, opt.Step, opt.Stabilisation, share(), held)
	}
}

// stableWitness describes one failing component at one instant: the
// expected leader and up to three members that follow another or none,
// with their latest leader notes.
func stableWitness(r *run, tr *truth, fo *follower, s *snapshot, comp []int, best protocol.NodeID, bad []int, since int64) Witness {
	w := Witness{}
	var who []string
	for k, i := range bad {
		if k == 3 {
			who = append(who, fmt.Sprintf("and %d more", len(bad)-3))
			break
		}
		id := tr.members[i].ID
		if fo.leader[i] == protocol.None {
			who = append(who, fmt.Sprintf("node %d has no leader", id))
		} else {
			who = append(who, fmt.Sprintf("node %d follows %d", id, fo.leader[i]))
		}
		if fo.last[i] >= 0 {
			e := &fo.procs[i].evs[fo.last[i]]
			w.Events = append(w.Events, r.witnessEvent(e, "latest leader note"))
		}
	}
	w.Text = fmt.Sprintf("at %.1fs (%.1fs after its last change) component {%s} should follow its best node %d: %s",
		seconds(s.t), seconds(s.t-since), compIDs(tr, comp), best, strings.Join(who, "; "))
	return w
}

// compIDs lists a component's IDs, at most a dozen.
func compIDs(tr *truth, comp []int) string {
	var ids []string
	for k, i := range comp {
		if k == 12 {
			ids = append(ids, fmt.Sprintf("... (%d nodes)", len(comp)))
			break
		}
		ids = append(ids, fmt.Sprint(tr.members[i].ID))
	}
	return strings.Join(ids, ",")
}
