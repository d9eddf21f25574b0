package analysis

import (
	"fmt"
	"io"
	"sort"
	"time"

	"manetlab/trace/judge"
)

// shownProblems bounds the problems text reports print.
const shownProblems = 10

func writeProblems(w io.Writer, ps []string) {
	for i, p := range ps {
		if i == shownProblems {
			fmt.Fprintf(w, "  ... %d more trace problems (see --json)\n", len(ps)-shownProblems)
			break
		}
		fmt.Fprintf(w, "trace problem: %s\n", p)
	}
}

// WriteText prints the merge report for people.
func (m *MergeReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "merged run %s: %d events from %d files; %d receives matched, %d without a send; %d duplicates dropped; %d receives placed after their send against the clocks; %d cycles broken\n",
		m.Run, m.Events, m.Files, m.Matched, m.Unmatched, m.Duplicates, m.Repaired, m.CyclesBroken)
	for _, set := range [][]Offset{m.HostOffsets, m.Offsets} {
		for _, o := range set {
			name := o.Host
			if name == "" {
				name = fmt.Sprintf("node %d", o.Node)
			}
			if !o.Known {
				fmt.Fprintf(w, "clock %s: offset unknown (no frames both ways)\n", name)
				continue
			}
			fmt.Fprintf(w, "clock %s: %+v ±%v against %s (%d pairs)\n", name, time.Duration(o.Offset), time.Duration(o.Uncertainty), o.Reference, o.Pairs)
		}
	}
	writeProblems(w, m.Problems)
}

// WriteText prints the verdicts and witnesses for people.
func (c *CheckReport) WriteText(w io.Writer) {
	fmt.Fprintln(w, judge.Line(c.Verdict()))
	fmt.Fprintf(w, "run %s (%s)\n", c.Run, c.Protocol)
	io.WriteString(w, CrossHostText(c.CrossHost))
	io.WriteString(w, UnauthenticatedText(c.Unauthenticated))
	for _, p := range c.Properties {
		fmt.Fprintf(w, "%-22s %s", p.Name, p.Verdict)
		if p.Violations > 0 {
			fmt.Fprintf(w, " (%d violation%s)", p.Violations, pluralS(p.Violations))
		}
		if p.Reason != "" {
			fmt.Fprintf(w, ": %s", p.Reason)
		}
		fmt.Fprintln(w)
		for _, wi := range p.Witnesses {
			fmt.Fprintf(w, "  - %s\n", wi.Text)
			for _, e := range wi.Events {
				what := ""
				if e.What != "" {
					what = " (" + e.What + ")"
				}
				fmt.Fprintf(w, "      %s: node %d %s at %.3fs%s\n", e.Src, e.Node, e.Ev, e.T, what)
			}
		}
	}
	writeProblems(w, c.Problems)
}

// fmtOpt formats an optional figure.
func fmtOpt(v *float64, format string) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf(format, *v)
}

// WriteText prints the metrics for people.
func (m *MetricsReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "run %s: %s, %d node%s, %.1fs\n", m.Run, m.Protocol, m.Nodes, pluralS(m.Nodes), m.Duration)
	io.WriteString(w, CrossHostText(m.CrossHost))
	io.WriteString(w, UnauthenticatedText(m.Unauthenticated))
	fmt.Fprintf(w, "F (share of live time in an election)    %s\n", fmtOpt(m.F, MetricFormats["F"]))
	fmt.Fprintf(w, "R (elections per node per minute)        %s\n", fmtOpt(m.R, MetricFormats["R"]))
	fmt.Fprintf(w, "T (mean election time, s)                %s\n", fmtOpt(m.T, MetricFormats["T"]))
	fmt.Fprintf(w, "M (per node per election)                %s broadcasts, %s unicasts\n", fmtOpt(m.MBcast, MetricFormats["M_bcast"]), fmtOpt(m.MUcast, MetricFormats["M_ucast"]))
	if m.WrongOrUnknown == nil {
		fmt.Fprintln(w, "wrong or unknown leader (share)          n/a")
	} else {
		// Beside a valid verdict, a share of a tenth reads as a
		// contradiction: say what it measures.
		fmt.Fprintf(w, "wrong or unknown leader (share)          "+MetricFormats["wrong_or_unknown"]+" of live node-time, elections and changes included (a measure: the verdict judges settled components)\n", *m.WrongOrUnknown)
	}
	if m.Note != "" {
		fmt.Fprintf(w, "note: %s\n", m.Note)
	}
	if m.Complexity != nil {
		m.Complexity.WriteText(w)
	}
	if m.Mutex != nil {
		m.Mutex.WriteText(w)
	}
	kinds := make([]string, 0, len(m.Messages))
	for k := range m.Messages {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprintln(w, "frames by kind (every transmission, relays included): broadcast unicast bytes")
	for _, k := range kinds {
		c := m.Messages[k]
		fmt.Fprintf(w, "  %-18s %9d %9d %12d\n", k, c.Broadcast, c.Unicast, c.Bytes)
	}
	if rt := m.Routing; rt != nil {
		rt.WriteText(w)
	}
	if l := m.Link; l.Acks+l.Retx > 0 && m.Routing == nil {
		fmt.Fprintf(w, "link frames (counted apart): %d acknowledgements, %d retransmissions (%d bytes)\n", l.Acks, l.Retx, l.RetxBytes)
	}
	const most = 20
	changes := 0
	for _, n := range m.PerNode {
		changes += n.LeaderChanges
	}
	fmt.Fprintf(w, "leader changes: %d (notes naming another leader than the node followed; the run summary's count)\n", changes)
	fmt.Fprintln(w, "per node: sent bytes leader-changes no-leader(s) in-election(s) live(s)")
	for i, n := range m.PerNode {
		if i == most {
			fmt.Fprintf(w, "  ... %d more node%s (see --json)\n", len(m.PerNode)-most, pluralS(len(m.PerNode)-most))
			break
		}
		fmt.Fprintf(w, "  %6d %8d %10d %6d %10.1f %10.1f %8.1f\n", n.Node, n.Sent, n.Bytes, n.LeaderChanges, n.NoLeader, n.InElection, n.Live)
	}
	if len(m.Elections) > 0 {
		fmt.Fprintln(w, "elections (by their first initiator and start): initiator start(s) end(s) participants messages")
		for i, e := range m.Elections {
			if i == most {
				fmt.Fprintf(w, "  ... %d more elections (see --json, which gives each epoch)\n", len(m.Elections)-most)
				break
			}
			fmt.Fprintf(w, "  node %-4d %9.3f %9s %5d %8d\n", e.Initiator, e.Start, fmtOpt(e.End, "%.3f"), e.Participants, e.Messages)
		}
	}
	writeProblems(w, m.Problems)
}
