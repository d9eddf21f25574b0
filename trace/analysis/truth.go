package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
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
	// down holds, in a run of real processes, per pair of members (the
	// smaller index first) the spans during which neighbour discovery at
	// one of them had lost the other (nbr-down, until nbr-up or its
	// process's next start): a partition the radio model does not know
	// of (a link set down, a firewall). Such a link counts as uncertain
	// where the model has it up. downTimes are the spans' bounds,
	// ascending, when a static model's components must be recomputed.
	down      map[[2]int32][]span
	downTimes []int64
	// cuts holds per pair of members (the smaller index first) the
	// changes of the link cut by hand (the run file's cut and heal
	// events, one per half), ascending: from cutChange.t on, halves of
	// it are cut. Both: the link is down; one: uncertain (one of the two
	// still hears the other). Their times are in downTimes too.
	cuts map[[2]int32][]cutChange
}

// cutChange is how many halves of a link are cut from t on.
type cutChange struct {
	t      int64
	halves int8
}

// cutHalves is how many halves of the link between members i and j are
// cut at t (0, 1 or 2).
func (tr *truth) cutHalves(i, j int, t int64) int8 {
	if i > j {
		i, j = j, i
	}
	var n int8
	for _, c := range tr.cuts[[2]int32{int32(i), int32(j)}] {
		if c.t > t {
			break
		}
		n = c.halves
	}
	return n
}

// noteCuts fills tr.cuts from the run file's cut and heal events,
// ascending by time.
func (tr *truth) noteCuts(evs []event) {
	half := map[[2]int32]bool{} // {a, b}: a no longer hears b
	for k := range evs {
		e := &evs[k]
		if e.typ != tCut && e.typ != tHeal {
			continue
		}
		a, ok1 := tr.index[e.node]
		b, ok2 := tr.index[e.from]
		if !ok1 || !ok2 || a == b {
			continue
		}
		half[[2]int32{int32(a), int32(b)}] = e.typ == tCut
		var n int8
		for _, h := range [][2]int32{{int32(a), int32(b)}, {int32(b), int32(a)}} {
			if half[h] {
				n++
			}
		}
		key := [2]int32{int32(min(a, b)), int32(max(a, b))}
		if tr.cuts == nil {
			tr.cuts = map[[2]int32][]cutChange{}
		}
		tr.cuts[key] = append(tr.cuts[key], cutChange{t: e.t, halves: n})
		tr.downTimes = append(tr.downTimes, e.t)
	}
	slices.Sort(tr.downTimes)
}

// span is [from, to) in ns from the start of the run.
type span struct{ from, to int64 }

// observedDown reports whether neighbour discovery at i or j had lost the
// other at t.
func (tr *truth) observedDown(i, j int, t int64) bool {
	if i > j {
		i, j = j, i
	}
	for _, sp := range tr.down[[2]int32{int32(i), int32(j)}] {
		if sp.from <= t && t < sp.to {
			return true
		}
	}
	return false
}

// noteObservedDown fills tr.down from the nbr-down and nbr-up events of
// r's node traces.
func (tr *truth) noteObservedDown(r *run) {
	for _, p := range r.procs[1:] {
		a, ok := tr.index[p.id]
		if !ok {
			continue
		}
		open := map[int32]int64{} // peer: since when lost
		var started int64         // the process's latest start
		closeSpan := func(b int32, to int64) {
			from := open[b]
			delete(open, b)
			if to <= from {
				return
			}
			k := [2]int32{int32(a), b}
			if k[0] > k[1] {
				k[0], k[1] = k[1], k[0]
			}
			if tr.down == nil {
				tr.down = map[[2]int32][]span{}
			}
			tr.down[k] = append(tr.down[k], span{from, to})
			tr.downTimes = append(tr.downTimes, from, to)
		}
		for k := range p.evs {
			e := &p.evs[k]
			switch e.typ {
			case tStart: // a new process: a new neighbour table
				for b := range open {
					closeSpan(b, e.t)
				}
				started = e.t
			case tStats:
				// Frames the process refused from a peer (per process,
				// counted from its start): the link is uncertain from
				// then until its next start.
				for _, id := range refusedFrom(r.strs.Strs[e.text]) {
					b, ok := tr.index[id]
					if !ok || b == a {
						continue
					}
					if since, lost := open[int32(b)]; !lost || started < since {
						open[int32(b)] = started
					}
				}
			case tNbrDown, tNbrUp:
				b, ok := tr.index[e.from]
				if !ok || b == a {
					continue
				}
				_, lost := open[int32(b)]
				if e.typ == tNbrDown && !lost {
					open[int32(b)] = e.t
				} else if e.typ == tNbrUp && lost {
					closeSpan(int32(b), e.t)
				}
			}
		}
		for b := range open {
			closeSpan(b, math.MaxInt64)
		}
	}
	slices.Sort(tr.downTimes)
}

// refusedFrom lists the peers a stats line counts refused frames from
// ("refused-from-3=12"; docs/trace.md), those with a count above zero.
func refusedFrom(stats string) []protocol.NodeID {
	var ids []protocol.NodeID
	for _, f := range strings.Fields(stats) {
		rest, ok := strings.CutPrefix(f, trace.StatsRefusedFrom)
		if !ok {
			continue
		}
		id, n, ok := strings.Cut(rest, "=")
		v, err := strconv.ParseUint(id, 10, 32)
		if !ok || err != nil || n == "0" || n == "" {
			continue
		}
		ids = append(ids, protocol.NodeID(v))
	}
	return ids
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
	sc, err := r.scenario()
	if err != nil {
		return nil, fmt.Errorf("%s:1: the scenario recorded in the header: %w", r.headerFile, err)
	}
	if err := r.checkTraced(sc); err != nil {
		return nil, err
	}
	// The models of a large run take a while to build: say so.
	stop := waiting(fmt.Sprintf("ground truth: building the mobility and radio models of %d nodes", sc.Size()))
	mob, err := sc.MobilityModel()
	if err != nil {
		stop()
		return nil, fmt.Errorf("%s:1: %w", r.headerFile, err)
	}
	med, err := radio.NewMedium(sc.Radio, mob, sc.Seed)
	stop()
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", r.headerFile, err)
	}
	leaders := LeaderProtocol(sc.Protocol.Name, sc.Protocol.Params)
	tr := &truth{sc: sc, goal: protocol.GoalFor(leaders, sc.Protocol.Params), members: sc.Members(), index: map[protocol.NodeID]int{}, med: med,
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
			if e.typ == tCommand && r.strs.Strs[e.text] == string(protocol.SetValue) && e.hasValue {
				tr.values = append(tr.values, fault{t: e.t, i: i, value: e.value})
			}
		}
	}
	var cuts []event
	for _, e := range r.procs[0].evs {
		if e.typ == tCut || e.typ == tHeal {
			cuts = append(cuts, e)
		}
	}
	if len(cuts) > 0 {
		slices.SortStableFunc(cuts, func(a, b event) int { return cmp.Compare(a.t, b.t) })
		tr.noteCuts(cuts)
	}
	slices.SortStableFunc(tr.faults, func(a, b fault) int { return cmp.Compare(a.t, b.t) })
	slices.SortStableFunc(tr.values, func(a, b fault) int { return cmp.Compare(a.t, b.t) })
	if r.header.Driver == "node" {
		// Real processes: the network may cut links the radio model
		// keeps (docs/analysis.md, "Ground truth").
		tr.noteObservedDown(r)
	}
	return tr, nil
}

// MaxUntraced is how many of the members a run header names may have left
// no trace at all before the ground truth is refused, when they are also
// more than half of them: the ground truth's cost follows the header's
// node count, so a header claiming a million nodes over a directory of
// twenty traces (another run's header, or a forged one) would cost hours
// and judge nodes nobody observed.
const MaxUntraced = 16

// checkTraced refuses a ground truth whose members mostly left no trace:
// more than MaxUntraced of them, and more than half.
func (r *run) checkTraced(sc *scenario.Scenario) error {
	n := sc.Size()
	traced := 0
	for _, p := range r.procs[1:] {
		if p.id != protocol.None {
			traced++
		}
	}
	if untraced := n - traced; untraced > MaxUntraced && untraced > n/2 {
		return fmt.Errorf("%s:1: the header names %d nodes, but only %d left a trace in %s: no ground truth is rebuilt for nodes that left none (the header of another run, or traces missing)",
			r.headerFile, n, traced, r.dirs[0])
	}
	return nil
}

// Link classes of the ground truth (docs/analysis.md, "Ground truth"),
// on radio.Medium.LinkProb: the delivery probability of a link over the
// neighbour-discovery window.
const (
	// LinkUp: a link is up when its LinkProb is at least this.
	LinkUp = 0.9
	// LinkDown: a link is down when its LinkProb is at most this. Between
	// LinkDown and LinkUp it is uncertain: neighbour discovery may see it
	// up or down. Uncertain links are left out of judgement: a component
	// may follow a better node that it reaches over uncertain links, or
	// not.
	LinkDown = 0.1
)

// snapshot is the ground truth at one sample instant.
type snapshot struct {
	t     int64
	alive []bool
	value []float64
	// comps are the components of the live nodes over the links that
	// are up: member indices, each ascending, ordered by their smallest
	// member.
	comps [][]int
	// best is per component the member index of its best node, or -1 when
	// no member of it can win (Spec.Candidates): such a component is not
	// judged.
	best []int
	// uncertain marks the components with an uncertain link to a node
	// outside them.
	uncertain []bool
	// reach labels every live node with its component over the links
	// that are up or uncertain (-1: dead).
	reach []int32
	// since is per component when its membership, the links of its
	// members (up or uncertain), a member's liveness or value last
	// changed; the first sample counts as a change.
	since []int64
}

// settled reports whether component ci is unchanged for delay.
func (s *snapshot) settled(ci int, delay int64) bool {
	return s.t-s.since[ci] >= delay
}

// accepts reports whether leader is an acceptable leader for component
// ci: its best node, or a better live node that it reaches over links
// that are up or uncertain (an uncertain link may join them).
func (tr *truth) accepts(s *snapshot, ci int, leader protocol.NodeID) bool {
	b := s.best[ci]
	if b >= 0 && leader == tr.members[b].ID {
		return true
	}
	j, ok := tr.index[leader]
	if !ok || !s.alive[j] || s.reach[j] != s.reach[s.comps[ci][0]] {
		return false
	}
	if tr.candidate != nil && !tr.candidate[j] {
		return false
	}
	return b >= 0 && tr.goal.Better(leader, s.value[j], tr.members[b].ID, s.value[b])
}

// linkState is the union-finds and per-node link signatures of one
// sample.
type linkState struct {
	up, loose uf
	sig       []uint64 // per node: its links (neighbour, class)
}

// uf is a union-find over node indices.
type uf []int32

func (u uf) reset() {
	for i := range u {
		u[i] = int32(i)
	}
}

func (u uf) find(i int32) int32 {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u uf) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	if ra < rb {
		ra, rb = rb, ra
	}
	u[ra] = rb // the smaller index is the root
}

// mix is a 64-bit finaliser (splitmix64), to hash small integers.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// components fills ls from the links at t, sets s.reach and returns the
// components over the links that are up, and which of them have an
// uncertain link to a node outside.
func (tr *truth) components(t int64, s *snapshot, ls *linkState) ([][]int, []bool) {
	n := len(tr.members)
	if len(ls.sig) != n {
		ls.up, ls.loose, ls.sig = make(uf, n), make(uf, n), make([]uint64, n)
		s.reach = make([]int32, n)
	}
	ls.up.reset()
	ls.loose.reset()
	clear(ls.sig)
	tr.med.Links(time.Duration(t), s.alive, LinkDown, func(i, j int, p float64) {
		if p <= LinkDown {
			return
		}
		var cut int8
		if tr.cuts != nil {
			if cut = tr.cutHalves(i, j, t); cut == 2 {
				return // cut by hand: down whatever the radio model says
			}
		}
		class := uint64(1) // uncertain
		if p >= LinkUp && cut == 0 && (tr.down == nil || !tr.observedDown(i, j, t)) {
			class = 2
			ls.up.union(int32(i), int32(j))
		}
		ls.loose.union(int32(i), int32(j))
		ls.sig[i] += mix(uint64(j)<<2 | class)
		ls.sig[j] += mix(uint64(i)<<2 | class)
	})
	group := map[int32]int{}
	looseSize := map[int32]int{}
	var comps [][]int
	for i := 0; i < n; i++ {
		s.reach[i] = -1
		if !s.alive[i] {
			continue
		}
		s.reach[i] = ls.loose.find(int32(i))
		looseSize[s.reach[i]]++
		r := ls.up.find(int32(i))
		g, ok := group[r]
		if !ok {
			g = len(comps)
			group[r] = g
			comps = append(comps, nil)
		}
		comps[g] = append(comps[g], i)
	}
	uncertain := make([]bool, len(comps))
	for ci, c := range comps {
		uncertain[ci] = looseSize[s.reach[c[0]]] != len(c)
	}
	return comps, uncertain
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
	var ls linkState
	sig := make([]uint64, n)    // per node: membership, links, value
	changed := make([]int64, n) // per node: when sig last changed
	fi, vi, di := 0, 0, 0
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
		for di < len(tr.downTimes) && tr.downTimes[di] <= t {
			dirty = true // a link neighbour discovery lost, or found again
			di++
		}
		for fi < len(tr.faults) && tr.faults[fi].t <= t {
			f := tr.faults[fi]
			if s.alive[f.i] != f.up {
				s.alive[f.i], dirty = f.up, true
				// A change even when undone within the step (a crash
				// and its recovery between two instants): the node's
				// process started again, and its component must settle
				// again (no longer judged settled since before).
				sig[f.i] = 0
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
		if dirty {
			s.comps, s.uncertain = tr.components(t, s, &ls)
		}
		if dirty || valuesChanged {
			s.best = s.best[:0]
			s.since = s.since[:0]
			for ci, c := range s.comps {
				var h uint64
				for _, i := range c {
					h = h*0x100000001b3 ^ mix(uint64(i)+1)
				}
				if s.uncertain[ci] {
					h = ^h
				}
				since := int64(0)
				b := -1
				for _, i := range c {
					x := h ^ mix(ls.sig[i]+0x9e3779b97f4a7c15) ^ mix(math.Float64bits(s.value[i]))
					if first || x != sig[i] {
						sig[i], changed[i] = x, t
					}
					since = max(since, changed[i])
					if tr.goal == protocol.GoalTree {
						continue // any member may be root: the tree property judges it
					}
					if tr.candidate != nil && !tr.candidate[i] {
						continue
					}
					if b < 0 || tr.goal.Better(tr.members[i].ID, s.value[i], tr.members[b].ID, s.value[b]) {
						b = i
					}
				}
				s.best = append(s.best, b)
				s.since = append(s.since, since)
			}
			for i := range sig {
				if !s.alive[i] {
					sig[i] = 0 // a recovery is a change
				}
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
	r     *run
	procs []*proc // per member index; nil without a trace
	// sched lists the members' start, crash and leader events in the
	// order advance applies them (by when, then member, then position),
	// and at how far it has: sampling walks the events once instead of
	// every member at every sample.
	sched  []followStep
	at     int
	leader []protocol.NodeID
	last   []int // index of the node's latest leader note, -1 none
	// cut is, for a node whose trace stops without an end event in a run
	// whose run file records its end (a full disk, a killed writer), the
	// time of its last event read: what it believed after that is
	// unknown; -1 for a member without a trace (a host's traces not
	// gathered: what it believed is never known). math.MaxInt64 for the
	// others.
	cut []int64
}

// cutShort lists the members whose traces stop early, "node N at T s",
// for a property's reason.
func (f *follower) cutShort(tr *truth) []string {
	var out []string
	for i, c := range f.cut {
		switch {
		case c < 0:
			out = append(out, fmt.Sprintf("node %d (no trace)", tr.members[i].ID))
		case c != math.MaxInt64:
			out = append(out, fmt.Sprintf("node %d at %.3fs", tr.members[i].ID, seconds(c)))
		}
	}
	return out
}

// followStep is an event of member i at position k of its trace, applied
// once the sampling reaches t: its time, or a time of an event before it
// that is later (a trace whose times go back is replayed in its order).
type followStep struct {
	t    int64
	i, k int32
}

func newFollower(r *run, tr *truth) *follower {
	n := len(tr.members)
	f := &follower{r: r, procs: make([]*proc, n), leader: make([]protocol.NodeID, n), last: make([]int, n),
		cut: make([]int64, n)}
	isEnd := func(e event) bool { return e.typ == tEnd }
	ended := slices.ContainsFunc(r.procs[0].evs, isEnd)
	for i, m := range tr.members {
		p := r.byID[m.ID]
		f.procs[i] = p
		f.last[i] = -1
		f.cut[i] = math.MaxInt64
		switch {
		case p == nil || len(p.evs) == 0:
			f.cut[i] = -1
		case ended && !slices.ContainsFunc(p.evs, isEnd):
			f.cut[i] = p.evs[len(p.evs)-1].t
		}
		if p == nil {
			continue
		}
		due := int64(math.MinInt64)
		for k := range p.evs {
			e := &p.evs[k]
			due = max(due, e.t)
			if e.typ == tStart || e.typ == tCrash || e.typ == tLeader {
				f.sched = append(f.sched, followStep{due, int32(i), int32(k)})
			}
		}
	}
	slices.SortFunc(f.sched, func(a, b followStep) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.i, b.i), cmp.Compare(a.k, b.k))
	})
	return f
}

// advance applies every event with t <= until (of each member's, those
// before its first later one).
func (f *follower) advance(until int64) {
	for ; f.at < len(f.sched) && f.sched[f.at].t <= until; f.at++ {
		st := f.sched[f.at]
		e := &f.procs[st.i].evs[st.k]
		switch e.typ {
		case tStart, tCrash:
			f.leader[st.i], f.last[st.i] = protocol.None, -1
		case tLeader:
			f.leader[st.i], f.last[st.i] = e.leader, int(st.k)
		}
	}
}
