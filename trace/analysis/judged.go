package analysis

import (
	"fmt"
	"strings"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/trace"
	"manetlab/trace/judge"
)

// What the trace shows for trace/judge's rules: the simulator's
// quiescence record, and the facts that decide whether a protocol's
// message bound holds in the run (faults, movement, loss, real
// processes).

// quiet returns the run file's quiescence record (trace.EvQuiet), nil
// without one.
func (r *run) quiet() *judge.Quiet {
	for _, e := range r.procs[0].evs {
		if e.typ == tQuiet && e.hasValue {
			return &judge.Quiet{At: e.value}
		}
	}
	return nil
}

// lossEvents are the events lostMessage reads.
func lossEvents(ev string) bool { return ev == trace.EvDrop }

// facts states what r's trace shows about the conditions of a bound;
// static says whether the ground truth's mobility model keeps every node
// still; drops is a run holding r's drop events (r itself when its load
// kept them: not check's lean one; nil: read them through l).
func (r *run) facts(l *loader, drops *run, static bool) judge.Facts {
	var f judge.Facts
	for _, e := range r.procs[0].evs {
		if e.typ == tCrash || e.typ == tRecover {
			verb := "crashed"
			if e.typ == tRecover {
				verb = "recovered"
			}
			f.Fault = fmt.Sprintf("node %d %s at %.3fs", e.node, verb, seconds(e.t))
			break
		}
	}
	if !static {
		f.Moving = "the mobility model moves them"
		if sc, err := r.scenario(); err == nil && sc.Mobility.Model != "" {
			f.Moving = "mobility " + sc.Mobility.Model
		}
	}
	f.Real = r.header.Driver == "node"
	if drops != nil {
		f.Lost = lostMessage(drops)
		return f
	}
	lost, err := l.lost()
	if err != nil {
		f.Lost = "the drops could not be read: " + err.Error()
		return f
	}
	f.Lost = lost
	return f
}

// lost is lostMessage of the run l reads, its drops read once whichever
// analyses ask (a check weighs a bound, the final state and the
// requests: each read the whole run again before).
func (l *loader) lost() (string, error) {
	if l.loss == nil {
		l.loss = &lossRead{}
		drops, err := l.run(readLoss)
		if err != nil {
			l.loss.err = err
		} else {
			l.loss.msg = lostMessage(drops)
		}
	}
	return l.loss.msg, l.loss.err
}

// lostMessage names the first message of the protocol that the network
// dropped, or "" when none was, hellos aside: given up at its sender (no
// acknowledgement after every retransmission, a full queue, no route) or
// a broadcast or flood lost at a receiver (a unicast lost there is
// retransmitted and not traced). The per-node budgets see loss the same
// way (judge.Collector): a flood's copy lost at one receiver may still
// arrive by another path, which the drops alone cannot tell, so the
// count is left unjudged rather than judged on a run that lost one.
func lostMessage(r *run) string {
	var first *event
	for _, p := range r.procs[1:] {
		e := p.lost // a lean load's
		for i := 0; e == nil && i < len(p.evs); i++ {
			if c := &p.evs[i]; c.typ == tDrop && lostDrop(r.strs.Strs[c.kind]) {
				e = c
			}
		}
		if e != nil && (first == nil || e.t < first.t) {
			first = e
		}
	}
	if first == nil {
		return ""
	}
	k := r.strs.Strs[first.kind]
	switch {
	case first.to != protocol.None:
		return fmt.Sprintf("node %d's %s to %d dropped at %.3fs (%s)", first.node, k, first.to, seconds(first.t), r.src(first))
	case first.from != protocol.None:
		return fmt.Sprintf("node %d lost %d's %s at %.3fs (%s)", first.node, first.from, k, seconds(first.t), r.src(first))
	}
	return fmt.Sprintf("node %d's %s dropped at %.3fs (%s)", first.node, k, seconds(first.t), r.src(first))
}

// guarded says whether the check judges spec's message count against a
// bound (checkBound).
func guarded(spec protocol.Spec) bool {
	_, isRounds := rounds.Lookup(spec.Name)
	return spec.Budget != nil || spec.Mutex != nil && spec.Mutex.HiIf != nil ||
		spec.Goal != protocol.GoalMutex && (spec.Complexity != nil && spec.Complexity.Bound != nil || isRounds)
}

// ReadsReceives says whether the summary or `trace check` of a run of
// spec reads its receives and every drop: a count judged against a
// bound, or mutual exclusion (its causal order). When it does not, they
// read no receive and only the drops that LostDrop weighs, which is
// what the simulator's summary trace level keeps (trace.level:
// summary).
func ReadsReceives(spec protocol.Spec) bool {
	return guarded(spec) || spec.Goal == protocol.GoalMutex || spec.Mutex != nil
}

// LostDrop says whether a drop event is one the check weighs as a lost
// message (lostDrop).
func LostDrop(e *trace.Event) bool { return e.Ev == trace.EvDrop && lostDrop(e.Kind) }

// lostDrop says whether a drop of a message of kind is one lostMessage
// weighs: any of the protocol's or its channel's, hellos aside (as
// judge.Collector weighs them).
func lostDrop(kind string) bool {
	return kind != HelloKind && kind != ""
}

// notice is how long neighbour discovery may take to report a change of
// links to the protocols: a hello period and the hello timeout (a link
// lost is noticed at the timeout); first, how long it takes to hear
// every neighbour of a component that never changed: two hello periods.
func notice(tr *truth) (change, first int64) {
	h := tr.sc.Radio
	h.Defaults()
	return int64(h.Hello.Period.D() + h.Hello.Timeout.D()), int64(2 * h.Hello.Period.D())
}

// heard reports whether the members of a component that last changed at
// since have heard of it by t: notice's change after a change, its first
// for a component unchanged since the start.
func heard(tr *truth, since, t int64) bool {
	change, first := notice(tr)
	if since <= 0 {
		return t >= first
	}
	return t-since >= change
}

// finalState decides which components at the end of r may be judged
// though not settled: the run ended in a final state (judge.Final: the
// simulator recorded quiescence, nothing moves, nothing was lost; crashes
// are left to the assumptions, as for any verdict), the component has
// no uncertain link out and has not changed for the neighbour-discovery
// notice, so the protocols have heard of its last change. Nil when the
// end is not final; why says why not.
func (r *run) finalState(l *loader, tr *truth) (ok func(s *snapshot, ci int) bool, why string) {
	f := r.facts(l, nil, tr.static)
	why = judge.Final(r.quiet(), f, true, coverage(r.uncovered()))
	if why != "" {
		return nil, why
	}
	return func(s *snapshot, ci int) bool {
		return !s.uncertain[ci] && heard(tr, s.since[ci], s.t)
	}, ""
}

// judgeMutexCount judges the messages of r's requests against the most
// per request its protocol guarantees (protocol.MutexCost.HiIf); nil
// when it guarantees none. drops: r holds its drop events.
func judgeMutexCount(l *loader, r *run, requests int, static bool, drops bool) *judge.Count {
	spec, err := r.spec()
	if err != nil || spec.Mutex == nil || spec.Mutex.PerEntry == nil || spec.Mutex.HiIf == nil {
		return nil
	}
	n := 0
	if sc, err := r.scenario(); err == nil {
		n = sc.Size()
	}
	if n == 0 {
		return nil
	}
	_, hi := spec.Mutex.PerEntry(n)
	counted := map[string]bool{}
	for _, k := range spec.Mutex.Kinds {
		counted[k] = true
	}
	for _, k := range spec.Mutex.Unbounded {
		counted[k] = false
	}
	var msgs uint64
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			if e.typ != tSend {
				continue
			}
			k := r.strs.Strs[e.kind]
			if k == HelloKind || protocol.IsTransport(k) {
				continue
			}
			if c, listed := counted[k]; listed && !c || !listed && len(spec.Mutex.Kinds) > 0 {
				continue
			}
			msgs++
		}
	}
	var d *run
	if drops {
		d = r
	}
	return judge.PerRequest(msgs, requests, hi, spec.Mutex.Messages, spec.Mutex.HiIf, r.facts(l, d, static))
}

// endConnected says why the live nodes at the end of r are not one
// component with no uncertain link out ("" when they are).
func endConnected(ends []EndComponent) string {
	switch {
	case len(ends) == 0:
		return "no ground truth at the end"
	case len(ends) > 1:
		return fmt.Sprintf("the live nodes are in %d components at the end", len(ends))
	case len(ends[0].Reach) > 0:
		return "uncertain links at the end"
	}
	return ""
}

// mutexFinal says why the end of r is not a final state in which waiting
// requests are never granted ("" when it is): judge.Final with no fault
// at all, and the live nodes one component at the end.
func (r *run) mutexFinal(l *loader, opt CheckOptions) string {
	tr, err := newTruth(r, opt.Step)
	if err != nil {
		return "no ground truth: " + err.Error()
	}
	_, ends := wrongOrUnknown(r, tr, int64(opt.Stabilisation))
	return judge.Final(r.quiet(), r.facts(l, nil, tr.static), false, endConnected(ends), coverage(r.uncovered())) // check's lean load keeps no drops
}

// coverage is judge.Final's extra cause for traces that do not cover the
// run: what a node did after its trace stops is unknown.
func coverage(gaps []string) string {
	if len(gaps) == 0 {
		return ""
	}
	return "traces missing or stopping without an end event: " + firstAndMore(gaps)
}

// PropBound is the property that the run's message count keeps the bound
// its protocol guarantees (trace/judge, Counts and PerRequest).
const PropBound = "message-bound"

// checkBound judges the messages of r against the bound its protocol
// guarantees; ok false when it guarantees none (no property then).
func checkBound(l *loader, r *run, opt CheckOptions) (Property, bool) {
	spec, err := r.spec()
	if err != nil {
		return Property{}, false
	}
	if !guarded(spec) {
		return Property{}, false
	}
	p := Property{Name: PropBound}
	tr, err := newTruth(r, opt.Step)
	if err != nil {
		p.Verdict, p.Reason = Unknown, "no ground truth: "+err.Error()
		return p, true
	}
	var j *judge.Count
	if spec.Goal == protocol.GoalMutex {
		reqs := len(collectSections(r).reqs)
		p.Checked = reqs
		j = judgeMutexCount(l, r, reqs, tr.static, false) // check's lean load keeps no drops
		if spec.Budget != nil {
			rr, err := l.run(readCausal)
			if err != nil {
				p.Verdict, p.Reason = Unknown, "message budget unknown: "+err.Error()
				return p, true
			}
			j = judge.Worse(j, judgeBudget(l, rr, tr.static))
		}
	} else if c, note := computeComplexity(l, r, tr); c != nil {
		p.Checked = c.Elections
		j = c.Judged
		if j == nil && note != "" {
			j = &judge.Count{Verdict: Unknown, Reason: note}
		}
	}
	if j == nil {
		return Property{}, false
	}
	p.Verdict, p.Reason = j.Verdict, j.Reason
	if j.Verdict == Invalid {
		p.Violations = 1
	}
	return p, true
}

// EndFinal says whether the run ended in a final state (judge.Final;
// crashes left to the assumptions), and heard, whether the members of a
// component at the end that last changed at since (seconds from the
// start) have heard of it: such a component, with no uncertain link
// out, is judged though not settled (docs/analysis.md, "Liveness at
// quiescence"). why says why the end is not final.
func (m *MetricsReport) EndFinal() (ok bool, heard func(since float64) bool, why string) {
	return m.finalWhy == "" && m.final, m.heard, m.finalWhy
}

// endFinal fills m's EndFinal from r.
func (m *MetricsReport) endFinal(l *loader, r *run, tr *truth) {
	q := r.quiet()
	if q == nil || tr == nil {
		m.finalWhy = judge.Final(q, judge.Facts{Real: r.header.Driver == "node"}, true)
		return
	}
	end := int64(m.Duration * 1e9)
	m.final = true
	if gaps := r.uncovered(); len(gaps) > 0 {
		m.finalWhy = judge.Final(q, judge.Facts{}, true, coverage(gaps))
		return
	}
	m.heard = func(since float64) bool { return heard(tr, int64(since*1e9), end) }
	m.finalWhy = judge.Final(q, r.facts(l, nil, tr.static), true)
}

// uncovered lists what no trace covers (docs/analysis.md, "Traces cut
// short"): the members of the recorded scenario that left no trace, and
// the nodes whose traces stop without an end event in a run whose run
// file records its end (a full disk, a killed writer), with their last
// event's time. Empty when every trace covers the whole run.
func (r *run) uncovered() []string {
	ended := false
	for _, e := range r.procs[0].evs {
		if e.typ == tEnd {
			ended = true
			break
		}
	}
	var out []string
	if sc, err := r.scenario(); err == nil {
		for _, id := range sc.MemberIDs() {
			if p := r.byID[id]; p == nil || len(p.evs) == 0 {
				out = append(out, fmt.Sprintf("node %d (no trace)", id))
			}
		}
	}
	if !ended {
		return out
	}
	for _, p := range r.procs[1:] {
		if len(p.evs) == 0 {
			continue
		}
		cut := true
		for i := range p.evs {
			if p.evs[i].typ == tEnd {
				cut = false
				break
			}
		}
		if cut {
			out = append(out, fmt.Sprintf("node %d after %.3fs", p.id, seconds(p.evs[len(p.evs)-1].t)))
		}
	}
	return out
}

// statesCoverage adds to a valid or unknown property of r what no trace
// covered, so that it is never a plain valid about instants or nodes
// that no trace shows; a property that already names them (stable-leader,
// tree) is left alone.
func statesCoverage(p Property, gaps []string) Property {
	if len(gaps) == 0 || p.Verdict == Invalid || strings.Contains(p.Reason, "without an end event") || strings.HasPrefix(p.Reason, "not applicable") {
		return p
	}
	note := "not covered: traces missing or stopping without an end event: " + firstAndMore(gaps)
	if p.Reason == "" {
		p.Reason = note
	} else {
		p.Reason += "; " + note
	}
	return p
}

// firstAndMore joins the first five items and counts the rest.
func firstAndMore(items []string) string {
	if len(items) <= 5 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:5], ", ") + fmt.Sprintf(" and %d more", len(items)-5)
}

// budgetEvents feeds a judge.Collector with what r's traces show for a
// protocol.Budget: r must hold the receives and the drops (readCausal).
func budgetEvents(r *run) *judge.Collector {
	c := &judge.Collector{}
	for _, e := range r.procs[0].evs {
		switch e.typ {
		case tCrash:
			c.Add(judge.CEvent{T: e.t, What: judge.CCrash, Node: e.node})
		case tRecover:
			c.Add(judge.CEvent{T: e.t, What: judge.CRecover, Node: e.node})
		}
	}
	what := map[evType]int{tSend: judge.CSend, tRelay: judge.CRelay, tRecv: judge.CRecv, tElStart: judge.CStart, tElEnd: judge.CEnd,
		tLeader: judge.CLeader, tCSRequest: judge.CRequest, tDrop: judge.CDrop}
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			w, ok := what[e.typ]
			if !ok {
				continue
			}
			k := r.strs.Strs[e.kind]
			if k == HelloKind && (w == judge.CSend || w == judge.CDrop) {
				continue
			}
			c.Add(judge.CEvent{T: e.t, What: w, Node: p.id, Kind: k, To: e.to, From: e.from, Origin: e.origin,
				Leader: e.leader, Seq: e.seq, OSeq: e.oseq})
		}
	}
	return c
}

// judgeBudget judges r's messages against its protocol's per-node
// budget (protocol.Budget); nil when it declares none. r must hold the
// receives and the drops.
func judgeBudget(l *loader, r *run, static bool) *judge.Count {
	spec, err := protocol.Lookup(r.header.Protocol)
	if err != nil || spec.Budget == nil {
		return nil
	}
	sc, err := r.scenario()
	if err != nil {
		return &judge.Count{Verdict: Unknown, Reason: "the per-node message budget not judged: the scenario is unknown: " + err.Error()}
	}
	c := budgetEvents(r)
	f := r.facts(l, r, static)
	if f.Lost == "" {
		// A broadcast lost at a receiver is loss too (facts see only
		// frames given up at their senders).
		f.Lost = c.Facts("").Lost
	}
	return c.Judge(spec.Budget, sc.MemberIDs(), sc.Protocol.Params, f)
}
