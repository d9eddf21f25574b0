package judge

import (
	"fmt"
	"strings"
)

// Quiet is the simulator's quiescence record (trace event "quiet"): from
// At, in seconds from the start, to the end of the run no protocol took a
// step, and nothing was left to happen: no protocol message in flight or
// queued, no protocol timer armed, no fault or command scheduled later.
type Quiet struct {
	At float64 `json:"at"`
}

// Final says why the state a run ends in cannot be taken as final: ""
// when it can. It is final when the run ended quiescent (q) and nothing
// but the algorithm could have changed it since: no node moves (the
// hellos would report new links), no message was lost for good, and no
// crash or recovery unless the algorithm tolerates them (faultsOK), and
// whatever else the caller found (extra: a partition, uncertain links).
// A request still waiting in a final state is never granted, a component
// that follows the wrong leader in one never follows the right one: the
// verdict is then invalid, with the quiescence as witness.
func Final(q *Quiet, f Facts, faultsOK bool, extra ...string) string {
	if q == nil {
		if f.Real {
			return "a real run: nothing records that no message or timer was left to change it"
		}
		return "the run did not end quiescent (messages, timers or faults still to come)"
	}
	var why []string
	if f.Moving != "" {
		why = append(why, "nodes move ("+f.Moving+")")
	}
	if f.Lost != "" {
		why = append(why, "loss: "+f.Lost)
	}
	if !faultsOK && f.Fault != "" {
		why = append(why, "a fault: "+f.Fault)
	}
	for _, e := range extra {
		if e != "" {
			why = append(why, e)
		}
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("quiescent from %.3fs, but %s", q.At, strings.Join(why, "; "))
}

// QuietWitness is the text that shows a final state.
func QuietWitness(q *Quiet, end float64) string {
	return fmt.Sprintf("the run was quiescent from %.3fs to its end at %.3fs: no protocol message in flight or queued, no protocol timer armed, no fault or command to come",
		q.At, end)
}
