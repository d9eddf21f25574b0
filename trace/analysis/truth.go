package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/scenario"
	"manetlab/trace"
)

// DefaultStep is the grid on which ground truth is sampled: components,
// and the leader each node follows.
const DefaultStep = 100 * time.Millisecond

// truth is the ground truth of a run, rebuilt from the scenario recorded
// in the run header: who is alive (the run file's crash and recover
// events), which nodes can hear each other (the mobility model and the
// radio model's deterministic range) and every node's value (the
// scenario's, changed by set-value commands in the node traces).
type truth struct {
	sc   *scenario.Scenario
	goal protocol.Goal // what "best node" means
	// candidate marks the members that can win, by index; nil: all.
	candidate []bool
	members   []scenario.Member
	index     map[protocol.NodeID]int
	med       *radio.Medium
	static    bool
	step      int64
	end       int64
	faults    []fault // ascending by t
	values    []fault // set-value commands, ascending by t
}

// fault is a change of one member's state at time t.
type fault struct {
	t     int64
	i     int
	up    bool
	value float64
}

// newTruth rebuilds the ground truth of r, or says why it cannot.
func newTruth(r *run, step time.Duration) (*truth, error) {
	if !r.hasRunFile {
		return nil, fmt.Errorf("no %s: the scenario is unknown", trace.RunFileName)
	}
	sc, err := scenario.Parse([]byte(r.header.Scenario), r.headerFile, nil)
	if err != nil {
		return nil, fmt.Errorf("%s:1: the scenario recorded in the header: %w", r.headerFile, err)
	}
	mob, err := sc.MobilityModel()
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", r.headerFile, err)
	}
	med, err := radio.NewMedium(sc.Radio, mob, sc.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", r.headerFile, err)
	}
	leaders := LeaderProtocol(sc.Protocol.Name, sc.Protocol.Params)
	tr := &truth{sc: sc, goal: protocol.GoalOf(leaders), members: sc.Members(), index: map[protocol.NodeID]int{}, med: med,
		static: mob.MaxSpeed() == 0, step: int64(step), end: r.end()}
	if tr.end <= 0 {
		tr.end = int64(sc.Duration.D())
	}
	tr.step = gridStep(r, tr.end, tr.step) // bounded on any input: screen.go
	for i, m := range tr.members {
		tr.index[m.ID] = i
	}
	if c := protocol.CandidatesOf(leaders, sc.MemberIDs(), sc.Protocol.Params, sc.Seed); c != nil {
		tr.candidate = make([]bool, len(tr.members))
		for i, m := range tr.members {
			tr.candidate[i] = c[m.ID]
		}
	}
	for _, e := range r.procs[0].evs {
		i, ok := tr.index[e.node]
		if ok && (e.typ == tCrash || e.typ == tRecover) {
			tr.faults = append(tr.faults, fault{t: e.t, i: i, up: e.typ == tRecover})
		}
	}
	for _, p := range r.procs[1:] {
		i, ok := tr.index[p.id]
		if !ok {
			continue
		}
		for k := range p.evs {
			e := &p.evs[k]
			if e.typ == tCommand && r.strs[e.text] == string(protocol.SetValue) && e.hasValue {
				tr.values = append(tr.values, fault{t: e.t, i: i, value: e.value})
			}
		}
	}
	slices.SortStableFunc(tr.faults, func(a, b fault) int { return cmp.Compare(a.t, b.t) })
	slices.SortStableFunc(tr.values, func(a, b fault) int { return cmp.Compare(a.t, b.t) })
	return tr, nil
}

// snapshot is the ground truth at one sample instant.
type snapshot struct {
	t     int64
	alive []bool
	value []float64
	comps [][]int // member indices, each ascending
	// best is per component the member index of its best node, or -1 when
	// no member of it can win (Spec.Candidates): such a component is not
	// judged.
	best []int
	// changed says the components, liveness or values differ from the
	// previous sample's (the first sample counts as a change).
	changed bool
}

// walk calls fn at every grid instant k*step below the end and at the end
// itself (last, with final true). Components are recomputed only when
// something can have moved: always for a moving model, on crash, recover
// or value changes for a static one.
func (tr *truth) walk(fn func(s *snapshot, final bool)) {
	n := len(tr.members)
	s := &snapshot{alive: make([]bool, n), value: make([]float64, n)}
	for i, m := range tr.members {
		s.alive[i], s.value[i] = true, m.Value
	}
	label := make([]int32, n)
	prev := make([]int32, n)
	fi, vi := 0, 0
	first := true
	prog := newProgress("ground truth", tr.end, runTimeUnit) // progress.go
	for k := int64(0); ; k++ {
		t := k * tr.step
		final := t >= tr.end
		if final {
			t = tr.end
		}
		prog.set(t)
		dirty := first || !tr.static
		for fi < len(tr.faults) && tr.faults[fi].t <= t {
			f := tr.faults[fi]
			if s.alive[f.i] != f.up {
				s.alive[f.i], dirty = f.up, true
			}
			fi++
		}
		valuesChanged := false
		for vi < len(tr.values) && tr.values[vi].t <= t {
			v := tr.values[vi]
			if s.value[v.i] != v.value {
				s.value[v.i], valuesChanged = v.value, true
			}
			vi++
		}
		s.t = t
		s.changed = first || valuesChanged
		if dirty {
			s.comps = tr.med.Components(time.Duration(t), s.alive)
			copy(prev, label)
			for i := range label {
				label[i] = -1
			}
			for _, c := range s.comps {
				for _, i := range c {
					label[i] = int32(c[0])
				}
			}
			if !first && !slices.Equal(prev, label) {
				s.changed = true
			}
		}
		if dirty || valuesChanged {
			s.best = s.best[:0]
			for _, c := range s.comps {
				b := -1
				for _, i := range c {
					if tr.goal == protocol.GoalTree {
						break // any member may be root: the tree property judges it
					}
					if tr.candidate != nil && !tr.candidate[i] {
						continue
					}
					if b < 0 || tr.goal.Better(tr.members[i].ID, s.value[i], tr.members[b].ID, s.value[b]) {
						b = i
					}
				}
				s.best = append(s.best, b)
			}
		}
		fn(s, final)
		first = false
		if final {
			return
		}
	}
}

// follower tracks the leader each node follows, replaying its notes in
// time order alongside the ground truth.
type follower struct {
	r      *run
	procs  []*proc // per member index; nil without a trace
	next   []int
	leader []protocol.NodeID
	last   []int // index of the node's latest leader note, -1 none
}

func newFollower(r *run, tr *truth) *follower {
	n := len(tr.members)
	f := &follower{r: r, procs: make([]*proc, n), next: make([]int, n), leader: make([]protocol.NodeID, n), last: make([]int, n)}
	for i, m := range tr.members {
		f.procs[i] = r.byID[m.ID]
		f.last[i] = -1
	}
	return f
}

// advance applies every event with t <= until.
func (f *follower) advance(until int64) {
	for i, p := range f.procs {
		if p == nil {
			continue
		}
		for f.next[i] < len(p.evs) && p.evs[f.next[i]].t <= until {
			e := &p.evs[f.next[i]]
			switch e.typ {
			case tStart, tCrash:
				f.leader[i], f.last[i] = protocol.None, -1
			case tLeader:
				f.leader[i], f.last[i] = e.leader, f.next[i]
			}
			f.next[i]++
		}
	}
}
