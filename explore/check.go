package explore

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/judge"
)

// PropBound is the property that a run's election messages stay within
// the worst case its protocol declares (protocol.Complexity.Bound).
const PropBound = "message-bound"

// rules are what the checks need to know of the scenario, computed once.
type rules struct {
	goal       protocol.Goal // the leader notes' goal (a mutex protocol's composed election's)
	mutex      bool
	leaders    bool // leader notes are judged at quiescence
	assumes    string
	candidates map[protocol.NodeID]bool // nil: every member
	// limit is the worst-case count of election messages, -1 when the
	// protocol declares none; kinds classifies the message kinds.
	limit     int
	limitName string
	kinds     map[string]int      // 1 announce, 2 control
	notes     []string            // what cannot be judged, said once
	safety    *protocol.Predicate // the protocol's safety predicate (Spec.Safety), nil for none
	// settle is the stabilisation delay the run summary gives (the
	// protocol's own, plus the hello timeout): at the run's end, before
	// quiescence, liveness is judged only when no crash, recovery or drop
	// came within it.
	settle time.Duration
	// budget is the protocol's per-node message budget (nil: none),
	// judged at every run's end and quiescence on the members with the
	// scenario's parameters.
	budget  *protocol.Budget
	members []protocol.NodeID
	params  protocol.Params
	moving  string
	// rounds: a round protocol, whose synchronizer a crash or a dropped
	// frame may stall (the run summary's verdict: stalled).
	rounds bool
}

func newRules(s *scenario.Scenario) *rules {
	r := &rules{limit: -1, kinds: map[string]int{}, settle: analysis.Stabilisation(s)}
	name := s.Protocol.Name
	r.mutex = protocol.GoalFor(name, s.Protocol.Params) == protocol.GoalMutex
	lp := analysis.LeaderProtocol(name, s.Protocol.Params)
	r.goal = protocol.GoalFor(lp, s.Protocol.Params)
	switch {
	case r.mutex && lp == "":
	case r.goal == protocol.GoalTree:
		r.notes = append(r.notes, "the tree goal (one root, a spanning tree) is not judged at quiescence; `trace check` judges it on the run")
	case r.goal == protocol.GoalNone:
	default:
		r.leaders = true
	}
	_, r.rounds = rounds.Lookup(name)
	r.candidates = protocol.CandidatesOf(lp, s.MemberIDs(), s.Protocol.Params, s.Seed)
	spec, err := protocol.LookupFor(name, s.Protocol.Params)
	if err == nil && spec.Budget != nil {
		r.budget, r.members, r.params = spec.Budget, s.MemberIDs(), s.Protocol.Params
		if m := s.Mobility.Model; m != "" && m != "static" {
			r.moving = "mobility " + m
		}
	}
	if err == nil && spec.Safety != "" {
		if r.safety, err = protocol.ParsePredicate(spec.Safety); err != nil {
			r.notes = append(r.notes, "safety predicate not checked: "+err.Error())
		}
	}
	if err != nil || spec.Complexity == nil {
		return r
	}
	r.assumes = spec.Complexity.Assumes
	if spec.Goal == protocol.GoalMutex || spec.Complexity.Bound == nil {
		return r
	}
	for _, k := range spec.Complexity.Announce {
		r.kinds[k] = 1
	}
	for _, k := range spec.Complexity.Control {
		r.kinds[k] = 2
	}
	b, err := spec.Complexity.Bound(s.MemberIDs(), s.Protocol.Params, s.Seed)
	switch {
	case err != nil:
		r.notes = append(r.notes, "message bound not checked: "+err.Error())
	case b.EveryOrder && b.Worst != nil:
		r.limit, r.limitName = *b.Worst, b.Name
	case b.EveryOrder && b.Exact != nil:
		// A count that is the same in every order (Hirschberg-Sinclair's)
		// bounds it.
		r.limit, r.limitName = *b.Exact, fmt.Sprintf("%s; exactly %d for this ring in every order", b.Name, *b.Exact)
	default:
		r.notes = append(r.notes, fmt.Sprintf("message bound not checked: %s declares no worst case over every order (%s)", name, b.Name))
	}
	return r
}

// checker follows one run's trace events and reports the first property
// violated: at most one leader per epoch, never two nodes in the
// critical section, the election's messages within the worst case, and
// at quiescence the liveness goal. Its state is part of a state's
// fingerprint where it decides a future verdict.
type checker struct {
	r       *rules
	leader  map[protocol.NodeID]protocol.NodeID // each node's latest leader note
	epochs  map[string]epochNote
	inside  map[protocol.NodeID]bool
	waiting map[protocol.NodeID]int // requests not granted yet
	crashed int                     // crashes so far (the scenario's and the explorer's)
	dropped int                     // frames dropped by the explorer so far
	changed time.Duration           // the latest crash, recovery or drop
	// since is when each waiting node's oldest request not granted began
	// to wait (at the latest), and noted the latest leader note's time:
	// at the run's end only what has been so for the stabilisation delay
	// is judged. Times, not state: not in the fingerprint.
	since map[protocol.NodeID]time.Duration
	noted time.Duration
	// starts are each epoch's first election-start, to name an epoch in
	// a witness as trace check does ("the election by node 1 at 1.000
	// s"): presentation, not in the fingerprint.
	starts map[string]epochNote
	msgs   int // election messages sent
	sent   int // messages sent, for the per-node budget (in the fingerprint)
	// sends holds what the per-node budget needs of the run (nil
	// without a budget).
	sends *judge.Collector
	// states are the nodes' last state notes, for the safety predicate.
	states map[protocol.NodeID]json.RawMessage
	found  *found
	// outside is a violation not judged: after a crash, outside the
	// algorithm's assumptions (said once by the explorer).
	outside string
}

type epochNote struct {
	node, leader protocol.NodeID
	at           int64 // an election-start's time (starts)
}

// found is a violation as the checker saw it.
type found struct {
	prop, witness string
}

func newChecker(r *rules) *checker {
	k := &checker{r: r, leader: map[protocol.NodeID]protocol.NodeID{}, epochs: map[string]epochNote{},
		inside: map[protocol.NodeID]bool{}, waiting: map[protocol.NodeID]int{}, since: map[protocol.NodeID]time.Duration{}}
	if r.budget != nil {
		k.sends = &judge.Collector{}
	}
	return k
}

// collected maps the trace events the per-node budget reads.
var collected = map[string]int{trace.EvSend: judge.CSend, trace.EvRelay: judge.CRelay, trace.EvRecv: judge.CRecv,
	string(protocol.NoteElectionStart): judge.CStart, string(protocol.NoteElectionEnd): judge.CEnd, string(protocol.NoteLeader): judge.CLeader,
	string(protocol.NoteCSRequest): judge.CRequest, trace.EvDrop: judge.CDrop, trace.EvCrash: judge.CCrash,
	trace.EvRecover: judge.CRecover}

// collect keeps what the per-node budget reads of e.
func (k *checker) collect(e *trace.Event) {
	w, ok := collected[e.Ev]
	if !ok || (w == judge.CSend || w == judge.CDrop) && (e.Kind == "hello" || e.Kind == "") || (w == judge.CCrash || w == judge.CRecover) && e.Node == 0 {
		return
	}
	k.sends.Add(judge.CEvent{T: e.T, What: w, Node: e.Node, Kind: e.Kind, To: e.To, From: e.From, Origin: e.Origin,
		Leader: e.Leader, Seq: e.Seq, OSeq: e.OSeq})
	if w == judge.CSend {
		k.sent++
		// The allowances the run so far meets, judged as it goes.
		if c := k.sends.JudgeNode(k.r.budget, e.Node, k.r.members, k.r.params, k.sends.Facts(k.r.moving)); c != nil && c.Verdict == judge.Invalid {
			k.fail(PropBound, "%s; the send over it: %s", c.Reason, k.sends.Entry(judge.CEvent{T: e.T, Node: e.Node, Kind: e.Kind, To: e.To}))
		}
	}
}

// judgeBudget judges the run so far against the per-node budget, as
// trace check does (judge.Collector): over it is a violation.
func (k *checker) judgeBudget() {
	if k.sends == nil || k.found != nil {
		return
	}
	if c := k.sends.Judge(k.r.budget, k.r.members, k.r.params, k.sends.Facts(k.r.moving)); c != nil && c.Verdict == judge.Invalid {
		k.fail(PropBound, "%s", c.Reason)
	}
}

func (k *checker) fail(prop, format string, args ...any) {
	if k.r.rounds && k.crashed+k.dropped > 0 && (prop == analysis.PropStableLeader || prop == analysis.PropGranted) {
		// A round protocol's liveness after a crash or a dropped frame:
		// its synchronizer may have stalled, outside its assumptions, and
		// the run summary's rule (judge.Summary) makes a stalled run's
		// verdict stalled whatever its leaders; safety (two leaders in an
		// epoch, the message bound) is still judged.
		v, why := judge.Summary(judge.Invalid, fmt.Sprintf(format, args...), judge.Run{Stalled: "a round protocol after a crash or a dropped frame, outside its assumptions"})
		k.outside = fmt.Sprintf("%s not judged: %s (%s)", prop, v, why)
		return
	}
	if k.crashed > 0 && k.r.assumes != "" {
		// Outside the algorithm's assumptions, as trace check says.
		k.outside = fmt.Sprintf("%s after a crash is outside the algorithm's assumptions (%s): not judged", prop, k.r.assumes)
		return
	}
	if k.found == nil {
		k.found = &found{prop: prop, witness: fmt.Sprintf(format, args...)}
	}
}

// observe is the Controller's observer.
func (k *checker) observe(e *trace.Event) {
	if k.sends != nil {
		k.collect(e)
	}
	switch e.Ev {
	case string(protocol.NoteLeader):
		if k.leader[e.Node] != e.Leader {
			k.noted = max(k.noted, time.Duration(e.T)) // a change of leader, not a new epoch of the same one
		}
		k.leader[e.Node] = e.Leader
		if e.Epoch == "" || e.Leader == protocol.None {
			return
		}
		f, ok := k.epochs[e.Epoch]
		switch {
		case !ok:
			k.epochs[e.Epoch] = epochNote{node: e.Node, leader: e.Leader}
		case f.leader != e.Leader:
			name := "epoch " + e.Epoch
			if st, ok := k.starts[e.Epoch]; ok {
				name = "the election by " + analysis.ElectionName(st.node, time.Duration(st.at).Seconds())
			}
			k.fail(analysis.PropEpochLeader, "%s has two leaders: node %d announces %d, node %d announces %d",
				name, f.node, f.leader, e.Node, e.Leader)
		}
	case string(protocol.NoteElectionStart):
		if st, ok := k.starts[e.Epoch]; e.Epoch != "" && (!ok || e.T < st.at || e.T == st.at && e.Node < st.node) {
			if k.starts == nil {
				k.starts = map[string]epochNote{}
			}
			k.starts[e.Epoch] = epochNote{node: e.Node, at: e.T}
		}
	case string(protocol.NoteCSRequest):
		if k.waiting[e.Node] == 0 {
			k.since[e.Node] = time.Duration(e.T)
		}
		k.waiting[e.Node]++
	case string(protocol.NoteCSEnter):
		for id := range k.inside {
			if id != e.Node {
				k.fail(analysis.PropMutex, "node %d enters the critical section while node %d is in it", e.Node, id)
			}
		}
		k.inside[e.Node] = true
		if k.waiting[e.Node] > 1 {
			k.waiting[e.Node]--
			k.since[e.Node] = time.Duration(e.T) // the next request waits since then at the latest
		} else {
			delete(k.waiting, e.Node)
			delete(k.since, e.Node)
		}
	case string(protocol.NoteCSExit):
		delete(k.inside, e.Node)
	case string(protocol.NoteState):
		k.state(e)
	case trace.EvDrop:
		if e.Reason == sim.ReasonSchedule { // dropped by the explorer
			k.changed = max(k.changed, time.Duration(e.T))
			k.dropped++
		}
	case trace.EvRecover, trace.EvStart:
		k.changed = max(k.changed, time.Duration(e.T))
	case trace.EvCrash:
		k.changed = max(k.changed, time.Duration(e.T))
		if e.Node != 0 {
			delete(k.inside, e.Node)
			delete(k.waiting, e.Node) // abandoned with the crash
			delete(k.since, e.Node)
			delete(k.leader, e.Node)
			delete(k.states, e.Node)
			k.crashed++
		}
	case trace.EvSend:
		if k.r.limit < 0 || e.Kind == "" || e.Kind == "hello" || protocol.IsTransport(e.Kind) || k.r.kinds[e.Kind] != 0 {
			return
		}
		k.msgs++
		if k.msgs > k.r.limit && k.crashed == 0 {
			k.fail(PropBound, "%d election messages, above the worst case %d (%s)", k.msgs, k.r.limit, k.r.limitName)
		}
	}
}

// state checks the safety predicate after a node's state changed.
func (k *checker) state(e *trace.Event) {
	if k.r.safety == nil {
		return
	}
	if k.states == nil {
		k.states = map[protocol.NodeID]json.RawMessage{}
	}
	k.states[e.Node] = json.RawMessage(e.Text)
	if why := k.r.safety.Violated(k.states); why != "" {
		k.fail(analysis.PropSafety, "%s", why)
	}
}

// quiescent judges liveness when nothing is left to happen but the
// network's periodic events: every request granted; every live node of a
// connected component following the component's best node (as the
// summary's verdict judges). It says what it could not decide.
func (k *checker) quiescent(c *sim.Controller) (undecided string) {
	return k.liveness(c, false)
}

// atEnd judges liveness at the run's end, before quiescence, only after
// the stabilisation delay: not when a crash, recovery or drop came
// within it (as the run summary judges only settled components); a
// request only when it has waited that long; the leaders only when no
// leader note came within it. It says what it did not judge rather than
// report a goal the protocol had no time to reach.
func (k *checker) atEnd(c *sim.Controller) (undecided string) {
	if k.found != nil {
		return ""
	}
	if k.changed > 0 && c.Now()-k.changed < k.r.settle {
		return fmt.Sprintf("liveness at the run's end not judged where a crash, recovery or drop came within the stabilisation delay %s of the end (as the run summary leaves such components unsettled; a longer duration lets it be judged)", k.r.settle)
	}
	return k.liveness(c, true)
}

// liveness judges the goal on the state of c; at the run's end (end),
// only what has been so for the stabilisation delay.
func (k *checker) liveness(c *sim.Controller, end bool) (undecided string) {
	if k.found != nil {
		return ""
	}
	if k.crashed > 0 && k.r.assumes != "" {
		return "liveness after a crash is outside the algorithm's assumptions (" + k.r.assumes + "): not judged"
	}
	nodes := c.Nodes()
	alive := map[protocol.NodeID]bool{}
	for _, n := range nodes {
		alive[n.ID] = n.Alive
	}
	var ids []protocol.NodeID
	young := false
	for id, w := range k.waiting {
		switch {
		case w <= 0 || !alive[id]:
		case end && c.Now()-k.since[id] < k.r.settle:
			young = true
		default:
			ids = append(ids, id)
		}
	}
	if young {
		undecided = fmt.Sprintf("at the run's end, requests waiting for less than the stabilisation delay %s are not judged (a longer duration lets them be)", k.r.settle)
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		if end {
			k.fail(analysis.PropGranted, "at the run's end node %d has waited for the critical section since %s, longer than the stabilisation delay %s (%d request(s) not granted)", ids[0], k.since[ids[0]], k.r.settle, k.waiting[ids[0]])
		} else {
			k.fail(analysis.PropGranted, "nothing is left to happen and node %d waits for the critical section (%d request(s) not granted)", ids[0], k.waiting[ids[0]])
		}
		return ""
	}
	if !k.r.leaders {
		return undecided
	}
	for _, comp := range components(nodes) {
		var best *sim.NodeState
		for i := range comp {
			n := &comp[i]
			if k.r.candidates != nil && !k.r.candidates[n.ID] {
				continue
			}
			if best == nil || k.r.goal.Better(n.ID, n.Value, best.ID, best.Value) {
				best = n
			}
		}
		if best == nil {
			continue
		}
		var bad []string
		for _, n := range comp {
			if l := k.leader[n.ID]; l != best.ID {
				if l == protocol.None {
					bad = append(bad, fmt.Sprintf("node %d has no leader", n.ID))
				} else {
					bad = append(bad, fmt.Sprintf("node %d follows %d", n.ID, l))
				}
			}
		}
		if len(bad) > 0 {
			what := "nothing is left to happen and"
			if end {
				what = fmt.Sprintf("at the run's end, %s after the last leader note,", c.Now()-k.noted)
			}
			k.fail(analysis.PropStableLeader, "%s component {%s} should follow its best node %d: %s",
				what, compIDs(comp), best.ID, strings.Join(bad, "; "))
			return ""
		}
	}
	return undecided
}

// components are the connected components of the live nodes, by the
// radio links up now (the links cut by hand apart).
func components(nodes []sim.NodeState) [][]sim.NodeState {
	idx := map[protocol.NodeID]int{}
	parent := make([]int, len(nodes))
	for i, n := range nodes {
		idx[n.ID] = i
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i, n := range nodes {
		if !n.Alive {
			continue
		}
		for _, m := range n.Neighbors {
			if j, ok := idx[m]; ok && nodes[j].Alive {
				parent[find(i)] = find(j)
			}
		}
	}
	groups := map[int][]sim.NodeState{}
	var roots []int
	for i, n := range nodes {
		if !n.Alive {
			continue
		}
		r := find(i)
		if _, ok := groups[r]; !ok {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], n)
	}
	out := make([][]sim.NodeState, len(roots))
	for i, r := range roots {
		out[i] = groups[r]
	}
	return out
}

func compIDs(c []sim.NodeState) string {
	s := make([]string, len(c))
	for i, n := range c {
		s[i] = fmt.Sprint(n.ID)
	}
	return strings.Join(s, ",")
}
