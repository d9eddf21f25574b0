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
	CrossNoTrace = "no-trace" // members of the scenario that left no usable trace
	CrossRefused = "refused"  // a node whose frames other nodes refused
	// nodes at an address whose frames (failing the HMAC check, or
	// claiming other nodes) other nodes refused
	CrossRefusedAddr = "refused-address"
	CrossLate        = "late-start" // nodes whose first event came after LateStart
	CrossScenario    = "scenario"   // nodes that ran another resolved scenario
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
	starved := 0
	for _, p := range r.procs[1:] {
		if len(p.evs) == 0 {
			continue
		}
		if e := &p.evs[0]; e.t > int64(LateStart) {
			late = append(late, p.id)
			fig := r.lateStart(p)
			if fig != "" {
				starved++
				fig = "; " + fig
			}
			if len(lateAt) < 12 {
				lateAt = append(lateAt, fmt.Sprintf("node %d at %.3fs (%s%s)", p.id, seconds(e.t), r.src(e), fig))
			}
		}
	}
	if len(late) > 0 {
		more := ""
		if len(late) > len(lateAt) {
			more = fmt.Sprintf(" and %d more", len(late)-len(lateAt))
		}
		// The readiness handshake gave every process the start after all
		// were ready: a process that got it late was not run in time by
		// its machine (the load figures say so); one that got it in time
		// and still began late stalled, or its clock is behind.
		why := "their clocks are behind, or their processes stalled after the start"
		switch {
		case starved == len(late):
			why = "they were ready before the start, but their machines ran them late (overloaded: the load at the start is given), not their clocks"
		case starved > 0:
			why = fmt.Sprintf("%d of them were ready but their machines ran them late (overloaded: the load at the start is given); the others' clocks are behind, or they stalled after the start", starved)
		}
		out = append(out, CrossHost{Kind: CrossLate, Nodes: late,
			Text: fmt.Sprintf("%s started more than %v after the run's start (their first event): %s%s; %s",
				nodeCount(len(late)), LateStart, strings.Join(lateAt, ", "), more, why)})
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

// lateStart says, from p's stats, how late the start reached its
// process and the machine's load then (trace.StatsLateStart), or "".
func (r *run) lateStart(p *proc) string {
	for i := range p.evs {
		e := &p.evs[i]
		if e.typ != tStats {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Fields(r.strs.Strs[e.text]) {
			if k, v, ok := strings.Cut(f, "="); ok {
				kv[k] = v
			}
		}
		ms, err := strconv.ParseUint(kv[trace.StatsLateStart], 10, 63)
		if err != nil {
			continue
		}
		text := fmt.Sprintf("the start reached its process %s late", (time.Duration(ms) * time.Millisecond).String())
		if l, n := kv[trace.StatsStartLoad], kv[trace.StatsStartRunnable]; l != "" && n != "" {
			text += fmt.Sprintf(", load average %s, %s runnable", l, n)
		}
		return text
	}
	return ""
}

// refusedProblems names every node whose frames others refused, from the
// stats events, and every address whose frames were refused without
// proving a sender. A frame is a node's only when it proves it: in a
// keyed run the frames failing the HMAC check prove no sender and count
// by the address they came from (refused-REASON-at-ADDR); the others,
// and every frame of a run without a key, count for the node they claim
// only when they came from the address that node's own frames leave
// from (its stats' addr=), else for that address
// (refused-REASON-from-ID-at-ADDR). An address some node of the run
// sends from is a cross-host problem of the nodes there (a process there
// runs without the key, or with another); any other address is a note,
// r.unauth, no node's problem. Stats of older traces, without addresses,
// name the claimed node by reason (refused-REASON-from-ID), or by the
// refused-from-ID totals.
func (r *run) refusedProblems() []CrossHost {
	type refusal struct {
		by      map[protocol.NodeID]bool
		reasons map[string]uint64
		claimed map[protocol.NodeID]bool // by address: the IDs its frames claimed
	}
	newRefusal := func() *refusal {
		return &refusal{by: map[protocol.NodeID]bool{}, reasons: map[string]uint64{}, claimed: map[protocol.NodeID]bool{}}
	}
	refused := map[protocol.NodeID]*refusal{}
	byAddr := map[string]*refusal{}
	// The nodes of one process (--ids) share its counters and write the
	// same stats line: its counts are added once, its nodes all named.
	counted := map[int32]bool{}
	type count struct {
		by, from protocol.NodeID
		reason   string
		addr     string
		n        uint64
		add      bool
	}
	var counts []count
	own := map[protocol.NodeID]string{}    // each node's own address
	hostOf := map[protocol.NodeID]string{} // and its machine's name, when given
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			if e.typ != tStats {
				continue
			}
			add := !counted[e.text]
			counted[e.text] = true
			byReason := false
			totals := map[protocol.NodeID]uint64{}
			for _, f := range strings.Fields(r.strs.Strs[e.text]) {
				k, v, ok := strings.Cut(f, "=")
				if ok && k == trace.StatsAddr {
					own[p.id] = v
					continue
				}
				if ok && k == trace.StatsHost {
					hostOf[p.id] = v
					continue
				}
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
				if !ok {
					continue
				}
				c := count{by: p.id, n: n, add: add}
				if i := strings.LastIndex(rest, "-at-"); i > 0 {
					rest, c.addr = rest[:i], rest[i+len("-at-"):]
				}
				if i := strings.LastIndex(rest, "-from-"); i > 0 {
					from, err := strconv.ParseUint(rest[i+len("-from-"):], 10, 32)
					if err != nil {
						continue
					}
					rest, c.from = rest[:i], protocol.NodeID(from)
				} else if c.addr == "" {
					continue
				}
				if c.from == p.id || rest == "" {
					continue
				}
				c.reason = rest
				byReason = true
				counts = append(counts, c)
			}
			if !byReason {
				for from, n := range totals {
					if from != p.id {
						counts = append(counts, count{by: p.id, from: from, reason: "refused", n: n, add: add})
					}
				}
			}
		}
	}
	for _, c := range counts {
		var f *refusal
		if c.from != 0 && (c.addr == "" || own[c.from] == "" || own[c.from] == c.addr) {
			if f = refused[c.from]; f == nil {
				f = newRefusal()
				refused[c.from] = f
			}
		} else {
			if f = byAddr[c.addr]; f == nil {
				f = newRefusal()
				byAddr[c.addr] = f
			}
			if c.from != 0 {
				f.claimed[c.from] = true
			}
		}
		f.by[c.by] = true
		if c.add {
			f.reasons[c.reason] += c.n
		}
	}
	whyOf := func(f *refusal) string {
		var why []string
		for _, reason := range slices.Sorted(maps.Keys(f.reasons)) {
			text := refusedWhy[reason]
			if text == "" {
				text = "for a reason the radio model does not decide"
			}
			why = append(why, fmt.Sprintf("%d %s: %s", f.reasons[reason], reason, text))
		}
		return strings.Join(why, "; ")
	}
	var out []CrossHost
	for _, from := range slices.Sorted(maps.Keys(refused)) {
		if !r.screen.Member(from) {
			continue // the node counts members only: a forged line
		}
		f := refused[from]
		by := slices.Sorted(maps.Keys(f.by))
		out = append(out, CrossHost{Kind: CrossRefused, Nodes: []protocol.NodeID{from},
			Text: fmt.Sprintf("node %d's frames were refused by %s (%s): a one-way partition the radio model does not know of (refused by %s)",
				from, nodeCount(len(by)), whyOf(f), idsText(by))})
	}
	at := map[string][]protocol.NodeID{} // the nodes sending from each address
	for _, id := range slices.Sorted(maps.Keys(own)) {
		at[own[id]] = append(at[own[id]], id)
	}
	// named is an address with the hosts of its nodes, when named.
	named := func(addr string) string {
		var hs []string
		for _, id := range at[addr] {
			if h := hostOf[id]; h != "" && !slices.Contains(hs, h) {
				hs = append(hs, h)
			}
		}
		if len(hs) == 0 {
			return addr
		}
		return addr + " (host " + strings.Join(hs, ", ") + ")"
	}
	r.unauth = nil
	for _, addr := range slices.Sorted(maps.Keys(byAddr)) {
		f := byAddr[addr]
		by := slices.Sorted(maps.Keys(f.by))
		var total uint64
		for _, n := range f.reasons {
			total += n
		}
		claims := "proving no sender"
		if c := slices.Sorted(maps.Keys(f.claimed)); len(c) == 1 {
			claims = "claiming node " + idsText(c)
		} else if len(c) > 1 {
			claims = "claiming nodes " + idsText(c)
		}
		if nodes := at[addr]; len(nodes) > 0 {
			// Refused the other way too: the nodes there refused frames
			// from other addresses (two keys, not a keyless process).
			var back []string
			for _, a := range slices.Sorted(maps.Keys(byAddr)) {
				for _, id := range nodes {
					if a != addr && byAddr[a].by[id] {
						back = append(back, named(a))
						break
					}
				}
			}
			why := ": a process at that address runs without the run's key, or something else sends from it"
			if len(back) > 0 {
				why = fmt.Sprintf("; the nodes there refused those from %s in turn: the two sides hold different keys", strings.Join(back, ", "))
			}
			out = append(out, CrossHost{Kind: CrossRefusedAddr, Nodes: nodes,
				Text: fmt.Sprintf("frames from %s, the address of %s (%s), %s, were refused by %s (%s)%s (refused by %s)",
					named(addr), nodeCount(len(nodes)), idsText(nodes), claims, nodeCount(len(by)), whyOf(f), why, idsText(by))})
			continue
		}
		where := addr
		if where == "" {
			where = "an address not recorded"
		}
		r.unauth = append(r.unauth, fmt.Sprintf("%d unauthenticated frames from %s, which no node of the run sends from (%s), were refused by %s (%s): no node's problem",
			total, where, claims, nodeCount(len(by)), whyOf(f)))
	}
	return out
}

// UnauthenticatedText formats the notes of refused frames from
// addresses no node of the run sends from, one a line, "note: TEXT",
// after the cross-host problems.
func UnauthenticatedText(notes []string) string {
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
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
