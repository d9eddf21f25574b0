package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// LateStart is how long after the run's start a real node's first event
// may come: later, the node started late (its process was started after
// the common start time, or its clock is behind the others'), and
// missed the beginning of the run. A node that starts on time writes its
// first event within milliseconds of the start (a second on a machine
// loaded enough to stall a process that long: hence 2 s); a recovered
// node's first event is its boot's.
const LateStart = 2 * time.Second

// Kinds of cross-host problems.
const (
	CrossNoTrace  = "no-trace"   // members of the scenario that left no usable trace
	CrossRefused  = "refused"    // a node whose frames other nodes refused
	CrossLate     = "late-start" // nodes whose first event came after LateStart
	CrossScenario = "scenario"   // nodes that ran another resolved scenario
)

// CrossHost is a problem of a run of real processes that no protocol
// causes and the verdicts cannot see through: traces missing, frames a
// node sent that the others refused (a key, a run name, a clock, a
// build that differ), nodes started late, nodes that ran another
// scenario. The reports print them before the verdicts, and the commands
// exit with status 3 when there is any (docs/analysis.md, "Cross-host
// problems").
type CrossHost struct {
	Kind  string            `json:"kind"`
	Nodes []protocol.NodeID `json:"nodes"`
	Text  string            `json:"text"`
}

// refusedWhy explains a refusal reason of the stats line (node.Reasons)
// as what the refused node does differently.
var refusedWhy = map[string]string{
	"no-hmac": "unsigned: it runs without the key the others have",
	"hmac":    "a bad signature: it signs with another key than theirs",
	"run":     "of another run: it was started with another --run name or --start time",
	"clock":   "stamped too far ahead: its clock is ahead of theirs by more than --max-offset",
	"air":     "another medium: its radio.mac is not theirs",
	"code":    "a message they cannot decode: another build or scenario",
	"body":    "a message they cannot decode: another build or scenario",
	"length":  "a message they cannot decode: another build or scenario",
	"field":   "a message they cannot decode: another build or scenario",
	"value":   "a value outside their scenario's: another scenario",
	"member":  "a node outside their scenario: another scenario",
}

// crossHost finds the cross-host problems of r: none for a simulated run,
// whose nodes share one process, clock and scenario.
func (r *run) crossHost() []CrossHost {
	if r.header.Driver != "node" || !r.hasRunFile {
		return nil
	}
	var out []CrossHost
	if sc, err := r.scenario(); err == nil {
		var missing []protocol.NodeID
		for _, id := range sc.MemberIDs() {
			if r.byID[id] == nil {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			out = append(out, CrossHost{Kind: CrossNoTrace, Nodes: missing,
				Text: fmt.Sprintf("%s of the scenario left no usable trace in %s: %s (a host's traces not gathered, or its nodes never started); the verdicts cannot see them",
					nodeCount(len(missing)), r.dirs[0], idsText(missing))})
		}
	}
	out = append(out, r.refusedProblems()...)
	var late []protocol.NodeID
	var lateAt []string
	for _, p := range r.procs[1:] {
		if len(p.evs) == 0 {
			continue
		}
		if e := &p.evs[0]; e.t > int64(LateStart) {
			late = append(late, p.id)
			if len(lateAt) < 12 {
				lateAt = append(lateAt, fmt.Sprintf("node %d at %.3fs (%s)", p.id, seconds(e.t), r.src(e)))
			}
		}
	}
	if len(late) > 0 {
		more := ""
		if len(late) > len(lateAt) {
			more = fmt.Sprintf(" and %d more", len(late)-len(lateAt))
		}
		out = append(out, CrossHost{Kind: CrossLate, Nodes: late,
			Text: fmt.Sprintf("%s started more than %v after the run's start (their first event): %s%s; their processes started late, or their clocks are behind",
				nodeCount(len(late)), LateStart, strings.Join(lateAt, ", "), more)})
	}
	if want := r.header.ScenarioHash; want != "" {
		byHash := map[string][]protocol.NodeID{}
		for _, id := range slices.Sorted(maps.Keys(r.hashes)) {
			if h := r.hashes[id]; h != want && r.byID[id] != nil {
				byHash[h] = append(byHash[h], id)
			}
		}
		for _, h := range slices.Sorted(maps.Keys(byHash)) {
			ids := byHash[h]
			out = append(out, CrossHost{Kind: CrossScenario, Nodes: ids,
				Text: fmt.Sprintf("%s ran another scenario than %s records (scenario hash %s, not %s): %s; another scenario file, --set or --seed",
					nodeCount(len(ids)), r.headerFile, h, want, idsText(ids))})
		}
	}
	return out
}

// refusedProblems names every node whose frames others refused, from the
// stats events: by reason where the stats say it (refused-REASON-from-ID),
// else by the refused-from-ID totals of older traces.
func (r *run) refusedProblems() []CrossHost {
	type refusal struct {
		by      map[protocol.NodeID]bool
		reasons map[string]uint64
	}
	refused := map[protocol.NodeID]*refusal{}
	// The nodes of one process (--ids) share its counters and write the
	// same stats line: its counts are added once, its nodes all named.
	counted := map[int32]bool{}
	var count bool
	note := func(from, by protocol.NodeID, reason string, n uint64) {
		f := refused[from]
		if f == nil {
			f = &refusal{by: map[protocol.NodeID]bool{}, reasons: map[string]uint64{}}
			refused[from] = f
		}
		f.by[by] = true
		if count {
			f.reasons[reason] += n
		}
	}
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			if e.typ != tStats {
				continue
			}
			count = !counted[e.text]
			counted[e.text] = true
			byReason := false
			totals := map[protocol.NodeID]uint64{}
			for _, f := range strings.Fields(r.strs.Strs[e.text]) {
				k, v, ok := strings.Cut(f, "=")
				n, err := strconv.ParseUint(v, 10, 64)
				if !ok || err != nil || n == 0 {
					continue
				}
				if id, ok := strings.CutPrefix(k, trace.StatsRefusedFrom); ok {
					if from, err := strconv.ParseUint(id, 10, 32); err == nil {
						totals[protocol.NodeID(from)] += n
					}
					continue
				}
				rest, ok := strings.CutPrefix(k, trace.StatsRefusedPrefix)
				i := strings.LastIndex(rest, "-from-")
				if !ok || i <= 0 {
					continue
				}
				from, err := strconv.ParseUint(rest[i+len("-from-"):], 10, 32)
				if err != nil || from == uint64(p.id) {
					continue
				}
				byReason = true
				note(protocol.NodeID(from), p.id, rest[:i], n)
			}
			if !byReason {
				for from, n := range totals {
					if from != p.id {
						note(from, p.id, "refused", n)
					}
				}
			}
		}
	}
	var out []CrossHost
	for _, from := range slices.Sorted(maps.Keys(refused)) {
		if !r.screen.Member(from) {
			continue // the node counts members only: a forged line
		}
		f := refused[from]
		var why []string
		for _, reason := range slices.Sorted(maps.Keys(f.reasons)) {
			text := refusedWhy[reason]
			if text == "" {
				text = "for a reason the radio model does not decide"
			}
			why = append(why, fmt.Sprintf("%d %s: %s", f.reasons[reason], reason, text))
		}
		by := slices.Sorted(maps.Keys(f.by))
		out = append(out, CrossHost{Kind: CrossRefused, Nodes: []protocol.NodeID{from},
			Text: fmt.Sprintf("node %d's frames were refused by %s (%s): a one-way partition the radio model does not know of (refused by %s)",
				from, nodeCount(len(by)), strings.Join(why, "; "), idsText(by))})
	}
	return out
}

// nodeCount is "1 node" or "N nodes".
func nodeCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

// idsText lists up to a dozen IDs, with how many more.
func idsText(ids []protocol.NodeID) string {
	var b []string
	for i, id := range ids {
		if i == 12 {
			b = append(b, fmt.Sprintf("and %d more", len(ids)-12))
			break
		}
		b = append(b, strconv.FormatUint(uint64(id), 10))
	}
	return strings.Join(b, ", ")
}

// CrossHostText formats problems one a line, "problem: TEXT", for the
// text reports, which print them before their verdicts.
func CrossHostText(ps []CrossHost) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "problem: %s\n", p.Text)
	}
	return b.String()
}
