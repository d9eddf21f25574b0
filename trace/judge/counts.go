package judge

import (
	"fmt"
	"strings"

	"manetlab/protocol"
)

// Facts are what a run's trace shows about the conditions under which a
// protocol's message bound holds (protocol.Conditions). Each is stated
// as the trace shows it, so that an explanation names a cause the run
// had, never one it might have had.
type Facts struct {
	// Fault is the first crash or recovery ("node 7 crashed at
	// 10.000s"); empty when the run had none.
	Fault string
	// Moving names the mobility model when nodes move; empty when static.
	Moving string
	// Lost is the first message of the protocol the network gave up
	// ("node 3's election to 4 dropped at 2.100s: no-ack"); empty
	// when none was.
	Lost string
	// Real: processes of a real run, each starting at its own time, so
	// that initiators may start late.
	Real bool
}

// Unmet lists the conditions of c that the run does not meet, each with
// its cause as the trace shows it; empty when it meets them all.
func (f Facts) Unmet(c protocol.Conditions) []string {
	var out []string
	if c.NoFaults && f.Fault != "" {
		out = append(out, "a fault: "+f.Fault)
	}
	if c.Static && f.Moving != "" {
		out = append(out, "nodes move ("+f.Moving+")")
	}
	if c.Lossless && f.Lost != "" {
		out = append(out, "loss: "+f.Lost)
	}
	if c.Together && f.Real {
		out = append(out, "real processes, whose initiators start at their own times")
	}
	return out
}

// Count is the judgement of a measured message count against the bound
// its protocol guarantees: invalid when a run that meets the bound's
// conditions counts more, naming the bound, the count and what exceeded
// it; valid when it meets them and counts no more; unknown when it does
// not meet them, the reason naming the causes the trace shows.
type Count struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// Counts judges measured, the algorithm messages of what (the run's
// elections: "2 elections (epochs 7.1, 7.2)"), against b. Nil when b
// guarantees nothing (neither ExactIf nor WorstIf).
func Counts(what string, measured uint64, b protocol.Bound, f Facts) *Count {
	type limit struct {
		name  string
		value int
		cond  *protocol.Conditions
	}
	var limits []limit
	if b.Exact != nil && b.ExactIf != nil {
		limits = append(limits, limit{"the exact count", *b.Exact, b.ExactIf})
	}
	if b.Worst != nil && b.WorstIf != nil {
		limits = append(limits, limit{"the worst case", *b.Worst, b.WorstIf})
	}
	if len(limits) == 0 {
		return nil
	}
	var within, unmet []string
	for _, l := range limits {
		if u := f.Unmet(*l.cond); len(u) > 0 {
			unmet = append(unmet, fmt.Sprintf("%s %d not judged: the run had %s", l.name, l.value, strings.Join(u, "; ")))
			continue
		}
		if measured > uint64(l.value) {
			return &Count{Invalid, fmt.Sprintf("%d algorithm messages in %s, over %s %d (%s), which holds in this run (%s)",
				measured, what, l.name, l.value, b.Name, describe(*l.cond))}
		}
		within = append(within, fmt.Sprintf("%s %d", l.name, l.value))
	}
	if len(within) > 0 {
		r := fmt.Sprintf("%d algorithm messages in %s, within %s", measured, what, strings.Join(within, " and "))
		if len(unmet) > 0 {
			r += "; " + strings.Join(unmet, "; ")
		}
		return &Count{Valid, r}
	}
	return &Count{Unknown, fmt.Sprintf("%d algorithm messages in %s; %s", measured, what, strings.Join(unmet, "; "))}
}

// PerRequest judges a mutual exclusion run's messages against most per
// request (protocol.MutexCost: PerEntry's most under HiIf): every
// request, granted, still waiting at the end or abandoned by a crash,
// costs at most most messages. Nil when the protocol guarantees no most
// (hi infinite, or no HiIf).
func PerRequest(messages uint64, requests int, most float64, formula string, cond *protocol.Conditions, f Facts) *Count {
	if cond == nil || most < 0 || most != most || most > 1e18 {
		return nil
	}
	bound := uint64(most) * uint64(requests)
	if u := f.Unmet(*cond); len(u) > 0 {
		return &Count{Unknown, fmt.Sprintf("%d messages for %d requests; the bound of %s per request not judged: the run had %s",
			messages, requests, formula, strings.Join(u, "; "))}
	}
	if messages > bound {
		return &Count{Invalid, fmt.Sprintf("%d messages for %d requests, over %s = %g per request (%d in all), which holds in this run (%s)",
			messages, requests, formula, most, bound, describe(*cond))}
	}
	return &Count{Valid, fmt.Sprintf("%d messages for %d requests, within %s = %g per request (%d in all)", messages, requests, formula, most, bound)}
}

// describe says what c requires, as the run met it.
func describe(c protocol.Conditions) string {
	var s []string
	if c.NoFaults {
		s = append(s, "no crash or recovery")
	}
	if c.Static {
		s = append(s, "no node moves")
	}
	if c.Lossless {
		s = append(s, "no message lost")
	}
	if c.Together {
		s = append(s, "the initiators start together")
	}
	if len(s) == 0 {
		return "in every run"
	}
	return strings.Join(s, ", ")
}
