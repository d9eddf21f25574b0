package launch

import (
	"manetlab/node"
	"manetlab/scenario"
	"manetlab/trace"
)

// WriteRunFile writes run.jsonl into dir for run of scenario s whose nodes
// were started by hand (on several machines, say): the run lasted the
// scenario's duration and the fault schedule is recorded as scheduled, so
// whoever ran it must have applied it at those times (or run without
// faults).
func WriteRunFile(dir, run string, s *scenario.Scenario) error {
	var events []trace.Event
	for _, f := range s.Faults {
		for _, id := range f.Crash {
			events = append(events, trace.Event{T: int64(f.At), Node: id, Ev: trace.EvCrash})
		}
		for _, id := range f.Recover {
			events = append(events, trace.Event{T: int64(f.At), Node: id, Ev: trace.EvRecover})
		}
	}
	return node.WriteRunFile(dir, s, run, events, 0)
}
