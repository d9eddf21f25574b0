package analysis

import (
	"fmt"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// Verdicts of a property.
const (
	Valid   = "valid"   // checked, and it holds
	Invalid = "invalid" // a violation was found; see the witnesses
	Unknown = "unknown" // the trace cannot decide; see the reason
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
	// Stabilisation is how long after the last topology change leadership
	// must be settled (default 15 s).
	Stabilisation time.Duration
	// Step is the grid on which ground truth is sampled (default 100 ms).
	Step time.Duration
}

// CheckReport holds a verdict for every property.
type CheckReport struct {
	Run        string     `json:"run"`
	Protocol   string     `json:"protocol"`
	Properties []Property `json:"properties"`
	// Problems lists damaged input as file:line: message.
	Problems []string `json:"problems,omitempty"`
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
	// Checked counts what was examined (epochs, instants, section pairs).
	Checked int `json:"checked"`
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

// DefaultStabilisation is how long after the last topology change the
// stable-leader check waits before it requires settled leadership.
const DefaultStabilisation = 15 * time.Second

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
	if opt.Stabilisation <= 0 {
		opt.Stabilisation = DefaultStabilisation
	}
	if opt.Step <= 0 {
		opt.Step = DefaultStep
	}
	r, err := load([]string{dir}, loadOptions{keep: checkEvents})
	if err != nil {
		return nil, err
	}
	rep := &CheckReport{Run: r.header.Run, Protocol: r.header.Protocol}
	why := r.outsideAssumptions()
	mutex := protocol.GoalOf(r.header.Protocol) == protocol.GoalMutex
	if mutex && !r.hasLeaderNotes() {
		rep.Properties = append(rep.Properties, noLeaderToJudge(PropEpochLeader), noLeaderToJudge(PropStableLeader))
	} else {
		rep.Properties = append(rep.Properties, judgeOutside(checkEpochs(r), why), judgeOutside(checkStable(r, opt), why))
	}
	rep.Properties = append(rep.Properties, checkMutex(r))
	if mutex || r.hasSections() {
		rep.Properties = append(rep.Properties, checkGranted(r))
	}
	if _, ok := rounds.Lookup(r.header.Protocol); ok {
		rep.Properties = append(rep.Properties, checkSync(dir)) // round protocols: rounds.go
	}
	if r.leaderGoal() == protocol.GoalTree {
		rep.Properties = judgeTreeGoal(dir, rep.Properties, why, opt)  // tree identify: docs/analysis.md
		rep.Properties = appendBFSDepth(dir, rep.Properties, why, opt) // sync/bfs: trace/analysis/bfsdepth.go
	}
	rep.Problems = problemStrings(r.problems)
	return rep, nil
}

// checkEvents are the event types the checkers read; neighbour events
// and the like are skipped undecoded.
func checkEvents(ev string) bool {
	switch evTypes[ev] {
	case tOther, tPosition:
		return false
	}
	return true
}

// checkEpochs finds two different leaders announced under one epoch.
func checkEpochs(r *run) Property {
	p := Property{Name: PropEpochLeader}
	type first struct{ e *event }
	byEpoch := map[int32]*event{}
	reported := map[int32]bool{}
	for _, pr := range r.procs[1:] {
		for i := range pr.evs {
			e := &pr.evs[i]
			if e.typ != tLeader || e.epoch == 0 || e.leader == protocol.None {
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
					Text: fmt.Sprintf("epoch %s has two leaders: node %d announces %d, node %d announces %d",
						r.strs[e.epoch], f.node, f.leader, e.node, e.leader),
					Events: []WitnessEvent{r.witnessEvent(f, ""), r.witnessEvent(e, "")},
				})
			}
		}
	}
	p.Checked = len(byEpoch)
	switch {
	case p.Violations > 0:
		p.Verdict = Invalid
	case len(byEpoch) == 0:
		p.Verdict, p.Reason = Unknown, "no leader note carries an epoch (the protocol has no epochs?)"
	default:
		p.Verdict = Valid
	}
	return p
}

// checkStable samples the ground truth and, at every instant at least the
// stabilisation delay after the last change before it, requires every
// component to follow exactly its best node. One witness per stable
// window: its first failing instant.
func checkStable(r *run, opt CheckOptions) Property {
	p := Property{Name: PropStableLeader}
	tr, err := newTruth(r, opt.Step)
	if err != nil {
		p.Verdict, p.Reason = Unknown, "no ground truth: "+err.Error()
		return p
	}
	fo := newFollower(r, tr)
	stableWindows(&p, tr, opt, fo.advance, func(s *snapshot, ci int, c []int, since int64) (bool, func() Witness) {
		if s.best[ci] < 0 {
			return false, nil // no candidate: not judged
		}
		best := tr.members[s.best[ci]].ID
		var bad []int
		for _, i := range c {
			if fo.leader[i] != best {
				bad = append(bad, i)
			}
		}
		return len(bad) > 0, func() Witness { return stableWitness(r, tr, fo, s, c, best, bad, since) }
	}, "")
	return p
}

// stableWindows walks the ground truth and, at every sample at least the
// stabilisation delay after the last topology change before it, asks
// judge about every component (ci, its member indices, and when the last
// change was); judge says whether the component fails and how to build
// its witness, asked for only once per stable window: its first failing
// instant. advance replays the nodes' notes up to each sample. The counts,
// witnesses and verdict go into p; held ends the reason of a valid one.
func stableWindows(p *Property, tr *truth, opt CheckOptions, advance func(t int64),
	judge func(s *snapshot, ci int, c []int, since int64) (bool, func() Witness), held string) {
	delay := int64(opt.Stabilisation)
	var lastChange int64
	windowFailed := false
	tr.walk(func(s *snapshot, final bool) {
		advance(s.t)
		if s.changed {
			lastChange, windowFailed = s.t, false
		}
		if s.t-lastChange < delay {
			return
		}
		p.Checked++
		for ci, c := range s.comps {
			fails, witness := judge(s, ci, c, lastChange)
			if !fails {
				continue
			}
			p.Violations++
			if windowFailed {
				continue
			}
			windowFailed = true
			if len(p.Witnesses) < maxWitnesses {
				p.Witnesses = append(p.Witnesses, witness())
			}
		}
	})
	switch {
	case p.Violations > 0:
		p.Verdict = Invalid
	case p.Checked == 0:
		p.Verdict = Unknown
		p.Reason = fmt.Sprintf("no stable window: the last topology change at %.1fs leaves less than %v before the end at %.1fs",
			seconds(lastChange), opt.Stabilisation, seconds(tr.end))
	default:
		p.Verdict = Valid
		p.Reason = fmt.Sprintf("%d instants checked, every %v from %v after each topology change%s", p.Checked, opt.Step, opt.Stabilisation, held)
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
	w.Text = fmt.Sprintf("at %.1fs (%.1fs after the last topology change) component {%s} should follow its best node %d: %s",
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
