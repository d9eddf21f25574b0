package analysis

import (
	"fmt"

	"manetlab/protocol"
)

// OutsideAssumptions says why a run lies outside the failure model its
// protocol assumes, or "" when it does not: a crash (node crashed at t ns)
// in a run of a protocol whose Complexity assumes no failures (for the
// run's params: protocol/ext takes its assumptions from them). Verdicts on
// such runs are unknown rather than invalid: a wrong leader there is the
// algorithm's known limit, not a bug.
func OutsideAssumptions(name string, params protocol.Params, crashed protocol.NodeID, t int64) string {
	s, err := protocol.LookupFor(name, params)
	if err != nil || s.Complexity == nil || s.Complexity.Assumes == "" {
		return ""
	}
	return fmt.Sprintf("outside the algorithm's assumptions: %s assumes %s, and node %d crashed at %.1fs",
		name, s.Complexity.Assumes, crashed, seconds(t))
}

// outsideAssumptions applies OutsideAssumptions to r's first crash, and
// otherwise the protocol's topology assumptions (Spec.Outside) to the
// scenario recorded in the header.
func (r *run) outsideAssumptions() string {
	for _, e := range r.procs[0].evs {
		if e.typ == tCrash {
			return OutsideAssumptions(r.header.Protocol, r.params(), e.node, e.t)
		}
	}
	if sc, err := r.scenario(); err == nil {
		return sc.OutsideAssumptions()
	}
	return ""
}

// judgeOutside turns an invalid verdict into unknown on a run outside its
// protocol's assumptions, keeping the witnesses and counts so the reader
// sees what happened; a property that held anyway stays valid, with the
// reason noted.
func judgeOutside(p Property, why string) Property {
	switch {
	case why == "":
	case p.Verdict == Invalid:
		p.Verdict = Unknown
		p.Reason = why + "; not judged (the witnesses show what happened)"
	case p.Reason == "":
		p.Reason = why + "; it held anyway"
	default:
		p.Reason += "; " + why + "; it held anyway"
	}
	return p
}
