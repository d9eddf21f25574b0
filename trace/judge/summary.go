package judge

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"manetlab/protocol"
)

// The run summary's verdict (docs/analysis.md, "Run summary"): the
// components of the ground truth at the end (End), then the rest of the
// run (Summary): its assumptions, its critical sections, its rounds and
// its counts. trace/report builds the inputs from what the analysis
// measured and prints the result.

// Component states in the run summary.
const (
	Settled  = "settled"
	CutShort = "cut short"
	NoTraces = "no traces"
)

// Component is what End weighs of one component at the end.
type Component struct {
	Nodes []protocol.NodeID
	// State is Settled, Unsettled, CutShort or NoTraces.
	State string
	// Valid: it follows an acceptable leader; Final: judged because the
	// run ended in a final state, though not settled.
	Valid, Final bool
	// Changed is the seconds since its last change.
	Changed float64
	// Follows says whom its members follow ("3 (x2), none (x1)");
	// Expected whom they should ("4").
	Follows, Expected string
	// Cut names the members whose traces stop early ("node 3 at
	// 5.000s"); NoTrace those without a trace.
	Cut     []string
	NoTrace []protocol.NodeID
}

// End judges the components at the end: invalid when a settled one is
// wrong, else unknown when a member's trace stops before the end or is
// missing (its leader at the end is unknown: nothing is said valid about
// an instant no trace covers), else unsettled when one that is not
// settled is not right yet, or when leaders are judged (leaders) and none
// is settled (nothing judged), else valid; with the reason in one line.
func End(comps []Component, delay float64, leaders bool) (string, string) {
	var wrong, early, cutComps, blindComps []string
	var cut []string
	var blind []protocol.NodeID
	settled := 0
	for _, c := range comps {
		if c.State == Settled {
			settled++
		}
		if c.State == NoTraces {
			blindComps = append(blindComps, "{"+IDList(c.Nodes)+"}")
			blind = append(blind, c.NoTrace...)
			continue
		}
		if c.State == CutShort {
			cutComps = append(cutComps, "{"+IDList(c.Nodes)+"}")
			cut = append(cut, c.Cut...)
			continue
		}
		if c.Valid {
			continue
		}
		switch {
		case c.State == Settled && c.Final:
			wrong = append(wrong, fmt.Sprintf("component {%s} (unchanged for %.1fs, in the run's final state: quiescent, so it never changes) follows %s, expected %s",
				IDList(c.Nodes), c.Changed, c.Follows, c.Expected))
		case c.State == Settled:
			wrong = append(wrong, fmt.Sprintf("component {%s} (unchanged for %.1fs) follows %s, expected %s",
				IDList(c.Nodes), c.Changed, c.Follows, c.Expected))
		default:
			early = append(early, fmt.Sprintf("{%s} changed %.1fs before the end", IDList(c.Nodes), c.Changed))
		}
	}
	switch {
	case len(wrong) > 0:
		return Invalid, "settled with a wrong leader: " + FirstAndMore(wrong)
	case len(cut) > 0:
		return Unknown, fmt.Sprintf("traces that stop without an end event: %s; %s with them not judged at the end: %s",
			FirstAndMore(cut), plural(len(cutComps), "the component", "the components"), FirstAndMore(cutComps))
	case len(blind) > 0:
		slices.Sort(blind)
		return Unknown, fmt.Sprintf("members without a trace: %s; %s with them not judged at the end: %s",
			IDList(blind), plural(len(blindComps), "the component", "the components"), FirstAndMore(blindComps))
	case len(early) > 0:
		return Unsettled, fmt.Sprintf("%s not settled and not yet following %s best node (delay %.1fs): %s",
			plural(len(early), "1 component", fmt.Sprintf("%d components", len(early))), plural(len(early), "its", "their"), delay, FirstAndMore(early))
	}
	if leaders && settled == 0 && len(comps) > 0 {
		// Nothing was settled long enough to judge: not valid.
		return Unsettled, fmt.Sprintf(NothingJudged+": no component stayed unchanged for the %.1fs delay (0 of %d settled), though every one follows its best node at the end", delay, len(comps))
	}
	return Valid, fmt.Sprintf("every component follows its best node (%d of %d settled for the %.1fs delay)", settled, len(comps), delay)
}

// NothingJudged begins the reason of an unsettled summary whose end
// judged nothing: no component settled (End).
const NothingJudged = "nothing judged"

// ValidOrNothingJudged reports whether a summary's verdict is valid, or
// unsettled because nothing was settled to judge (a run shorter than the
// stabilisation delay): in neither is anything wrong.
func ValidOrNothingJudged(verdict, reason string) bool {
	return verdict == Valid || verdict == Unsettled && strings.HasPrefix(reason, NothingJudged+":")
}

// Run is what the summary's verdict weighs besides the components.
type Run struct {
	// Outside says why the run lies outside its protocol's assumptions
	// (a crash for one that assumes none): "" inside.
	Outside string
	// NoLeaders: a protocol with no leaders to judge (mutual exclusion
	// without an election, a traffic generator).
	NoLeaders bool
	// Sections, for runs with critical sections.
	Sections *Sections
	// Stalled says where a round protocol's synchronizer stopped.
	Stalled string
	// Counts are the message counts judged against their bounds.
	Counts []*Count
	// Duration of the run in seconds.
	Duration float64
}

// Sections is what the summary weighs of a run's critical sections.
type Sections struct {
	Entries, Requests int
	// Violations: pairs of sections not ordered by happened-before.
	Violations int
	// Waiting at the end; Recent of them made within RecentWindow of it.
	Waiting, Recent int
	RecentWindow    float64
	// Oldest still waiting: its node and time; zero node: none.
	OldestNode protocol.NodeID
	OldestT    float64
	// Never: the run ended in a final state, and why the requests
	// waiting are never granted ("" otherwise).
	Never string
}

// Summary is the run's verdict: end, the components' (End), weighed with
// the rest of the run. Outside its assumptions an invalid end is unknown;
// overlapping sections are invalid, requests waiting in a final state
// invalid, requests waiting longer than any granted one waited unknown; a
// stalled synchronizer is stalled; a count over its bound invalid,
// whatever else.
func Summary(verdict, reason string, r Run) (string, string) {
	if verdict == Invalid && r.Outside != "" {
		verdict, reason = Unknown, r.Outside
	}
	if s := r.Sections; s != nil {
		switch {
		case s.Violations > 0:
			verdict = Invalid
			reason = fmt.Sprintf("mutual exclusion violated: %d pairs of critical sections at different nodes not ordered by happened-before (trace check shows witnesses)", s.Violations)
		case s.Never != "" && verdict != Invalid:
			// The run ended in a final state: the requests still waiting
			// are never granted (trace check's requests-granted).
			verdict, reason = Invalid, "requests never granted: "+s.Never
		case s.Waiting > s.Recent && verdict == Valid:
			// As trace check's requests-granted: requests still waiting
			// longer than any granted one waited (a crash storm starving
			// them) may never be granted, and a finite trace cannot tell;
			// the run is not called valid. Requests made within that wait
			// of the end (a saturated workload always has some) could
			// still be granted in the normal course.
			verdict = Unknown
			reason = fmt.Sprintf("%d of %d requests still waiting at the end (%.3fs), %d of them longer than any granted request waited (%.3fs)",
				s.Waiting, s.Requests, r.Duration, s.Waiting-s.Recent, s.RecentWindow)
			if s.OldestNode != protocol.None {
				reason += fmt.Sprintf("; the oldest is node %d's of %.3fs, waiting %.3fs", s.OldestNode, s.OldestT, r.Duration-s.OldestT)
			}
			reason += fmt.Sprintf("; a finite trace cannot prove starvation (%s, no two concurrent)", many(s.Entries, "critical section", "critical sections"))
		case r.NoLeaders && verdict == Valid:
			reason = fmt.Sprintf("%s, no two concurrent; no leaders to judge", many(s.Entries, "critical section", "critical sections"))
		}
	}
	if r.Stalled != "" {
		// A round protocol's synchronizer stopped: say where, rather than
		// judging the leaders of an algorithm that never finished.
		verdict, reason = Stalled, r.Stalled
	}
	// A count over the bound the protocol guarantees in this run is a
	// violation, whatever the leaders (trace check's message-bound).
	for _, c := range r.Counts {
		if c != nil && c.Verdict == Invalid && verdict != Invalid {
			verdict, reason = Invalid, "message count over its bound: "+c.Reason
		}
	}
	return verdict, reason
}

// IDList lists up to a dozen IDs.
func IDList(ids []protocol.NodeID) string {
	var b []byte
	for i, id := range ids {
		if i == 12 {
			b = fmt.Appendf(b, ",... (%d nodes)", len(ids))
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(id), 10)
	}
	return string(b)
}

// FirstAndMore joins the first three items and counts the rest.
func FirstAndMore(items []string) string {
	out := ""
	for i, it := range items {
		if i == 3 {
			return out + fmt.Sprintf("; and %d more", len(items)-3)
		}
		if i > 0 {
			out += "; "
		}
		out += it
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func many(n int, one, more string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, more)
}
