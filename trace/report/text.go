package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"manetlab/protocol"
	"manetlab/trace/analysis"
	verdicts "manetlab/trace/judge"
)

// WriteText prints the summary for people.
func (s *Summary) WriteText(w io.Writer) {
	fmt.Fprintln(w, verdicts.Line(s.Verdict, s.Reason))
	fmt.Fprintf(w, "run %s: %s, %s driver, seed %d, %s (%d alive at the end), %.1fs\n",
		s.Run, s.Protocol, s.Driver, s.Seed, nodes(s.Nodes), s.Alive, s.Duration)
	io.WriteString(w, analysis.CrossHostText(s.CrossHost))
	io.WriteString(w, analysis.UnauthenticatedText(s.Unauthenticated))
	shown := s.Components
	if s.Mutex != nil && s.LeaderChanges == 0 && noLeaderJudged(s.Components) {
		fmt.Fprintf(w, "  %d component(s); no leaders to judge (a mutual exclusion protocol without leader notes)\n", len(s.Components))
		shown = nil
	}
	const most = 20
	if len(shown) > most {
		shown = shown[:most]
	}
	for i, c := range shown {
		mark := "ok"
		switch {
		case c.State == CutShort:
			cut := make([]string, len(c.Cut))
			for k, x := range c.Cut {
				cut[k] = x.String()
			}
			mark = "not judged: traces stop without an end event (" + verdicts.FirstAndMore(cut) + ")"
		case c.State == NoTraces:
			mark = "not judged: members without a trace (" + verdicts.IDList(c.NoTrace) + ")"
		case c.Valid && c.State != Settled && c.State != "":
			mark = fmt.Sprintf("ok (%s)", c.State)
		case c.Valid:
		case c.State == Unsettled:
			mark = fmt.Sprintf("not settled yet (changed %.1fs before the end)", c.Changed)
		case s.Verdict == Unknown:
			// The run is outside the protocol's assumptions: a leader
			// other than the expected one is reported, not judged.
			mark = "not the expected leader; not judged (outside the assumptions)"
		default:
			mark = "WRONG"
		}
		fmt.Fprintf(w, "  component %d (%s): expected leader %d, members follow %s  %s\n",
			i+1, nodes(len(c.Nodes)), c.ExpectedLeader, followed(c.Leaders), mark)
	}
	if len(shown) == most && len(s.Components) > most {
		fmt.Fprintf(w, "  ... %s more (see --json)\n", count(len(s.Components)-most, "component", "components"))
	}
	fmt.Fprintf(w, "messages (sent by the protocol, relays apart): %d (%d bytes)", s.Messages.Total, s.Messages.Bytes)
	kinds := make([]string, 0, len(s.Messages.ByKind))
	for k := range s.Messages.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if !protocol.IsTransport(k) {
			fmt.Fprintf(w, ", %s %d", k, s.Messages.ByKind[k])
		}
	}
	fmt.Fprintln(w)
	if s.Messages.Transport > 0 {
		fmt.Fprintf(w, "transport messages (reliable channel, counted apart): %d (%d bytes)", s.Messages.Transport, s.Messages.TransportBytes)
		for _, k := range kinds {
			if protocol.IsTransport(k) {
				fmt.Fprintf(w, ", %s %d", strings.TrimPrefix(k, protocol.TransportPrefix), s.Messages.ByKind[k])
			}
		}
		fmt.Fprintln(w)
	}
	if s.Messages.LinkAcks+s.Messages.LinkRetx > 0 {
		fmt.Fprintf(w, "link frames (one-hop unicasts, counted apart): %d acknowledgements, %d retransmissions\n",
			s.Messages.LinkAcks, s.Messages.LinkRetx)
	}
	if s.Complexity != nil {
		s.Complexity.WriteText(w)
	}
	if s.Mutex != nil {
		s.Mutex.WriteText(w)
	}
	writeTimeline(w, s.Timeline)
	fmt.Fprintf(w, "leader changes: %d (%.1f per node); the last at %.3fs\n", s.LeaderChanges,
		float64(s.LeaderChanges)/float64(max(s.Nodes, 1)), s.ElectionTime)
	for i, p := range s.Problems {
		if i == 10 {
			fmt.Fprintf(w, "  ... %s more\n", count(len(s.Problems)-10, "trace problem", "trace problems"))
			break
		}
		fmt.Fprintf(w, "trace problem: %s\n", p)
	}
}

func followed(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmpKeys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (x%d)", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// noLeaderJudged reports whether no component expects a leader.
func noLeaderJudged(cs []Component) bool {
	for _, c := range cs {
		if c.ExpectedLeader != protocol.None {
			return false
		}
	}
	return true
}
