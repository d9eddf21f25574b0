package analysis

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"manetlab/protocol"
	"manetlab/trace"
)

// PropSafety is the property that the nodes' states (their state notes)
// satisfy the safety predicate their protocol declares (Spec.Safety) at
// every instant.
const PropSafety = "safety-predicate"

// checkSafety judges r's state notes against its protocol's safety
// predicate, in the order of their times (the simulator's order; in a
// run of real processes, the nodes' clocks); ok false when the protocol
// declares none. A crash forgets the node's state.
func checkSafety(r *run) (Property, bool) {
	spec, err := r.spec()
	if err != nil || spec.Safety == "" {
		return Property{}, false
	}
	p := Property{Name: PropSafety}
	pred, err := protocol.ParsePredicate(spec.Safety)
	if err != nil || len(r.dirs) != 1 {
		p.Verdict, p.Reason = Unknown, "the safety predicate is checked in one run directory"
		if err != nil {
			p.Reason = err.Error()
		}
		return p, true
	}
	type step struct {
		e     trace.Event
		order int
	}
	var steps []step
	keep := func(ev string) bool {
		return ev == string(protocol.NoteState) || ev == trace.EvCrash || ev == trace.EvStart
	}
	if _, err := WalkDir(r.dirs[0], keep, func(_ protocol.NodeID, e *trace.Event) {
		steps = append(steps, step{*e, len(steps)})
	}); err != nil {
		p.Verdict, p.Reason = Unknown, err.Error()
		return p, true
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		if a.e.T != b.e.T {
			return cmp.Compare(a.e.T, b.e.T)
		}
		return cmp.Compare(a.order, b.order)
	})
	states := map[protocol.NodeID]json.RawMessage{}
	for _, s := range steps {
		e := s.e
		if e.Ev != string(protocol.NoteState) {
			delete(states, e.Node) // a crash or a new incarnation: no state yet
			continue
		}
		states[e.Node] = json.RawMessage(e.Text)
		p.Checked++
		if why := pred.Violated(states); why != "" {
			p.Violations++
			if len(p.Witnesses) < 3 {
				p.Witnesses = append(p.Witnesses, Witness{Text: fmt.Sprintf("after node %d's state at %.3fs: %s", e.Node, seconds(e.T), why),
					Events: []WitnessEvent{{Node: e.Node, T: seconds(e.T), Ev: e.Ev, What: e.Text}}})
			}
		}
	}
	p.Verdict = Valid
	if p.Violations > 0 {
		p.Verdict = Invalid
	}
	return p, true
}
