package analysis

import (
	"fmt"

	"manetlab/protocol"
	"manetlab/trace/judge"
)

// ElectionParam is the protocol parameter by which a mutual exclusion
// protocol names the election it composes (the centralized algorithm's
// coordinator): protocol.params.election.
const ElectionParam = "election"

// LeaderProtocol names the protocol whose goal judges the leader notes of
// a run of protocol name with params: for a mutual exclusion protocol
// (protocol.GoalMutex) the election it composes, named by the string
// parameter ElectionParam ("" when it names none: the default goal);
// otherwise the protocol itself.
func LeaderProtocol(name string, params protocol.Params) string {
	if protocol.GoalFor(name, params) != protocol.GoalMutex {
		return name
	}
	e, _ := params[ElectionParam].(string)
	return e
}

// leaderGoal is the goal r's leader notes are judged by, from the
// scenario recorded in its header (the header's protocol alone when that
// cannot be read).
func (r *run) leaderGoal() protocol.Goal {
	var params protocol.Params
	if r.hasRunFile {
		if sc, err := r.scenario(); err == nil {
			params = sc.Protocol.Params
		}
	}
	return protocol.GoalFor(LeaderProtocol(r.header.Protocol, params), params)
}

// hasLeaderNotes reports whether any node notes a leader.
func (r *run) hasLeaderNotes() bool {
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			if p.evs[i].typ == tLeader {
				return true
			}
		}
	}
	return false
}

// noLeaderToJudge is a leader property of a mutual exclusion run without
// leader notes: vacuously valid, nothing checked, the reason saying so.
func noLeaderToJudge(name string) Property {
	return Property{Name: name, Verdict: Valid,
		Reason: "not applicable: no leader notes (a mutual exclusion protocol that composes no election)"}
}

// nothingToJudge is a leadership property of a protocol that elects
// nothing (protocol.GoalNone: a traffic generator).
func nothingToJudge(name string) Property {
	return Property{Name: name, Verdict: Valid, Reason: "not applicable: the protocol elects nothing (a traffic generator)"}
}

// checkGranted is the liveness property requests-granted: valid when
// every request was granted (or abandoned by its node's crash); unknown
// when some are still waiting at the end, since a finite trace cannot
// prove that they never would be. The witness is the oldest request still
// waiting.
func checkGranted(r *run, final func() string) Property {
	p := Property{Name: PropGranted}
	mr := collectSections(r)
	p.Checked = len(mr.reqs)
	granted, abandoned := 0, 0
	var waiting []mxRequest
	for _, q := range mr.reqs {
		switch {
		case q.granted:
			granted++
		case q.abandoned:
			abandoned++
		default:
			waiting = append(waiting, q)
		}
	}
	if len(mr.reqs) == 0 {
		p.Verdict, p.Reason = Valid, "no requests"
		return p
	}
	if len(waiting) == 0 {
		p.Verdict = Valid
		p.Reason = fmt.Sprintf("%d requests: %d granted, %d abandoned by their node's crash", len(mr.reqs), granted, abandoned)
		return p
	}
	oldest := waiting[0]
	for _, q := range waiting[1:] {
		if q.t < oldest.t || q.t == oldest.t && q.node < oldest.node {
			oldest = q
		}
	}
	end := r.end()
	e := &r.procs[oldest.at.p].evs[oldest.at.i]
	p.Witnesses = []Witness{{Text: fmt.Sprintf("node %d requested at %.3fs and had not entered when the run ended at %.3fs", oldest.node, seconds(oldest.t), seconds(end)),
		Events: []WitnessEvent{r.witnessEvent(e, "oldest request still waiting")}}}
	why := final()
	if why == "" {
		// The run ended in a final state: nothing will ever grant them.
		p.Verdict, p.Violations = Invalid, len(waiting)
		p.Reason = fmt.Sprintf("%d of %d requests never granted; the oldest is node %d's of %.3fs; %s",
			len(waiting), len(mr.reqs), oldest.node, seconds(oldest.t), judge.QuietWitness(r.quiet(), seconds(end)))
		p.Witnesses[0].Text += "; " + judge.QuietWitness(r.quiet(), seconds(end)) + ", so it never will"
		return p
	}
	p.Verdict = Unknown
	p.Reason = fmt.Sprintf("%d of %d requests still waiting at the end (%.3fs); the oldest is node %d's of %.3fs, waiting %.3fs; a finite trace cannot prove starvation (%s)",
		len(waiting), len(mr.reqs), seconds(end), oldest.node, seconds(oldest.t), seconds(end-oldest.t), why)
	return p
}

// neverGranted is the summary's account of requests waiting at the end
// of r when why (judge.Final) is empty: the run ended in a final state,
// so they are never granted; "" otherwise.
func neverGranted(r *run, why string) string {
	if why != "" {
		return ""
	}
	p := checkGranted(r, func() string { return why })
	if p.Verdict != Invalid {
		return ""
	}
	return p.Reason
}
