package analysis

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"manetlab/protocol"
	"manetlab/trace/judge"
)

// HelloKind is the message kind of the drivers' neighbour discovery,
// which mutual exclusion metrics leave out.
const HelloKind = "hello"

// MutexMetrics measures the critical sections of a run (docs/analysis.md,
// "Mutual exclusion metrics", defines every figure). A nil figure is one
// the run cannot give (no entry, no granted request, no handover).
type MutexMetrics struct {
	// Requests counts cs-request notes; Entries cs-enter notes.
	Requests int `json:"requests"`
	Entries  int `json:"entries"`
	// Granted counts requests paired with an entry: a node's k-th request
	// of one process life with its k-th entry.
	Granted int `json:"granted"`
	// Unrequested counts entries with no request to pair with.
	Unrequested int `json:"unrequested,omitempty"`
	// Abandoned counts requests whose node crashed or restarted before
	// they were granted.
	Abandoned int `json:"abandoned"`
	// Messages counts the algorithm's messages: send events whose kind is
	// neither transport (protocol.IsTransport) nor neighbour discovery
	// (HelloKind); relays of multi-hop frames are not counted.
	Messages uint64 `json:"messages"`
	// ByKind splits Messages by kind.
	ByKind map[string]uint64 `json:"by_kind"`
	// Transport counts the reliable channel's sends, apart.
	Transport uint64 `json:"transport,omitempty"`
	// Other counts the sends of kinds the protocol does not list as its
	// cost per entry (protocol.MutexCost.Kinds: the centralized
	// algorithm's embedded election and coordinator takeover), apart from
	// Messages; OtherByKind splits them.
	Other       uint64            `json:"other,omitempty"`
	OtherByKind map[string]uint64 `json:"other_by_kind,omitempty"`
	// MessagesPerEntry is Messages / Entries; PerEntryByKind the same by
	// kind.
	MessagesPerEntry *float64           `json:"messages_per_entry"`
	PerEntryByKind   map[string]float64 `json:"per_entry_by_kind,omitempty"`
	// Sync is the synchronisation delay over handovers.
	Sync SyncDelay `json:"sync_delay"`
	// WaitingMean and WaitingP95 are the seconds from request to entry
	// over granted requests: the mean and the 95th percentile (nearest
	// rank); WaitingMax the longest.
	WaitingMean *float64 `json:"waiting_mean"`
	WaitingP95  *float64 `json:"waiting_p95"`
	WaitingMax  *float64 `json:"waiting_max"`
	// Throughput is Entries per second of the run.
	Throughput *float64 `json:"throughput"`
	// Overtakes counts entries whose request was made after a request of
	// another node that was still waiting when they entered.
	Overtakes int `json:"overtakes"`
	// Jain is Jain's fairness index of the entries per requesting node:
	// (Σx)² / (k·Σx²) over the k nodes that requested at least once.
	Jain *float64 `json:"jain"`
	// WaitingAtEnd counts requests neither granted nor abandoned when the
	// run ended; Recent those of them made within RecentWindow seconds of
	// the end (the longest wait of a granted request: they could still be
	// granted in the normal course). Oldest is the oldest still waiting.
	WaitingAtEnd int          `json:"waiting_at_end"`
	Recent       int          `json:"waiting_at_end_recent"`
	RecentWindow float64      `json:"recent_window"`
	Oldest       *WaitingNote `json:"oldest_waiting,omitempty"`
	// Judged is the messages judged against the most per request the
	// protocol guarantees (trace/judge), nil when it guarantees none.
	Judged *judge.Count `json:"judged,omitempty"`
	// Final, when requests wait at the end, says whether the run ended in
	// a final state (judge.Final): "" when it cannot be told, else the
	// witness that they are never granted (requests-granted invalid).
	Final string `json:"never_granted,omitempty"`
	// Violations counts the pairs of sections at different nodes that
	// neither follows the other by happened-before: trace check's
	// mutual-exclusion property, counted here so that summaries and
	// sweeps can judge a run without a second pass.
	Violations int `json:"violations"`
	// PerNode is each node that requested or entered.
	PerNode []MutexNode `json:"per_node"`
	// Theory is the protocol's row of seed 002's table, for n members.
	Theory *MutexTheory `json:"theory,omitempty"`
}

// SyncDelay is measured over handovers: an exit followed, as the next
// entry of the run, by an entry at another node whose request was made no
// later than the exit.
type SyncDelay struct {
	Handovers int `json:"handovers"`
	// MeanTime and MaxTime are the seconds from exit to entry.
	MeanTime *float64 `json:"mean_time"`
	MaxTime  *float64 `json:"max_time"`
	// MeanMessages and MaxMessages are the length of the shortest causal
	// chain of messages (send→recv edges, joined by process order) from
	// the exit event to the entry event, over the handovers that have one.
	MeanMessages *float64 `json:"mean_messages"`
	MaxMessages  *int     `json:"max_messages"`
	// Unlinked counts handovers whose entry is not causally after the
	// exit (a violation of mutual exclusion, or a receive lost from the
	// traces).
	Unlinked int `json:"unlinked,omitempty"`
}

// WaitingNote names a request still waiting at the end.
type WaitingNote struct {
	Node protocol.NodeID `json:"node"`
	T    float64         `json:"t"` // seconds from the start of the run
}

// MutexNode is one node's share of the sections.
type MutexNode struct {
	Node     protocol.NodeID `json:"node"`
	Requests int             `json:"requests"`
	Entries  int             `json:"entries"`
	// WaitingMean is over the node's granted requests (nil: none).
	WaitingMean *float64 `json:"waiting_mean"`
}

// MutexTheory is protocol.MutexCost for this run's n.
type MutexTheory struct {
	N        int    `json:"n"`
	Messages string `json:"messages"` // formula per entry and exit
	// PerEntryLo and PerEntryHi are PerEntry(n); Hi is nil when unbounded.
	PerEntryLo *float64 `json:"per_entry_lo,omitempty"`
	PerEntryHi *float64 `json:"per_entry_hi,omitempty"`
	Delay      string   `json:"delay"` // formula of the delay, in message times
	Problems   string   `json:"problems,omitempty"`
}

// hasSections reports whether r notes any cs-request or cs-enter.
func (r *run) hasSections() bool {
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			if t := p.evs[i].typ; t == tCSRequest || t == tCSEnter {
				return true
			}
		}
	}
	return false
}

// mxRequest is one cs-request and its fate.
type mxRequest struct {
	at   ref
	t    int64
	node protocol.NodeID
	// end is when it stopped waiting: its entry or its abandonment;
	// math.MaxInt64 while waiting at the end.
	end       int64
	granted   bool
	abandoned bool
}

// mxEntry is one cs-enter; req indexes its request (-1: none).
type mxEntry struct {
	at  ref
	t   int64
	req int
}

// mxExit is one cs-exit.
type mxExit struct {
	at ref
	t  int64
}

// mxRun is a run's sections, requests and entries.
type mxRun struct {
	reqs    []mxRequest
	byNode  map[protocol.NodeID][]int // request indices, in order
	entries []mxEntry
	exits   []mxExit
}

// collectSections pairs every node's k-th request of a process life with
// its k-th entry; a crash or a start abandons the requests still waiting.
// Crashes come from the node's trace and from the run file (a real node
// killed by the launcher may not write its own).
func collectSections(r *run) *mxRun {
	m := &mxRun{byNode: map[protocol.NodeID][]int{}}
	runCrashes := map[protocol.NodeID][]int64{}
	for _, e := range r.procs[0].evs {
		if e.typ == tCrash {
			runCrashes[e.node] = append(runCrashes[e.node], e.t)
		}
	}
	for pi, pr := range r.procs {
		if pi == 0 {
			continue
		}
		var pending []int
		abandon := func(t int64) {
			for _, q := range pending {
				m.reqs[q].abandoned, m.reqs[q].end = true, t
			}
			pending = nil
		}
		crashes := runCrashes[pr.id]
		slices.Sort(crashes)
		ci := 0
		for i := range pr.evs {
			e := &pr.evs[i]
			for ci < len(crashes) && crashes[ci] < e.t {
				abandon(crashes[ci])
				ci++
			}
			switch e.typ {
			case tCSRequest:
				m.reqs = append(m.reqs, mxRequest{at: ref{int32(pi), int32(i)}, t: e.t, node: pr.id, end: math.MaxInt64})
				m.byNode[pr.id] = append(m.byNode[pr.id], len(m.reqs)-1)
				pending = append(pending, len(m.reqs)-1)
			case tCSEnter:
				en := mxEntry{at: ref{int32(pi), int32(i)}, t: e.t, req: -1}
				if len(pending) > 0 {
					en.req = pending[0]
					pending = pending[1:]
					q := &m.reqs[en.req]
					q.granted, q.end = true, e.t
				}
				m.entries = append(m.entries, en)
			case tCSExit:
				m.exits = append(m.exits, mxExit{at: ref{int32(pi), int32(i)}, t: e.t})
			case tCrash, tStart:
				abandon(e.t)
			}
		}
		for ; ci < len(crashes); ci++ {
			abandon(crashes[ci])
		}
	}
	byTime := func(a, b mxEntry) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.at.p, b.at.p), cmp.Compare(a.at.i, b.at.i))
	}
	slices.SortStableFunc(m.entries, byTime)
	slices.SortStableFunc(m.exits, func(a, b mxExit) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.at.p, b.at.p), cmp.Compare(a.at.i, b.at.i))
	})
	return m
}

// computeMutex measures the sections of r, which must hold receives (the
// synchronisation delay in messages follows the causal graph); n is the
// number of members theory is computed for.
func computeMutex(r *run, n int) *MutexMetrics {
	mr := collectSections(r)
	mm := &MutexMetrics{Requests: len(mr.reqs), Entries: len(mr.entries), ByKind: map[string]uint64{}}
	end := r.end()
	var own map[string]bool // nil: every kind
	if spec, err := r.spec(); err == nil && spec.Mutex != nil && len(spec.Mutex.Kinds) > 0 {
		own = map[string]bool{}
		for _, k := range spec.Mutex.Kinds {
			own[k] = true
		}
	}
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			if e.typ != tSend {
				continue
			}
			switch k := r.strs.Strs[e.kind]; {
			case k == HelloKind:
			case protocol.IsTransport(k):
				mm.Transport++
			case own != nil && !own[k]:
				if mm.OtherByKind == nil {
					mm.OtherByKind = map[string]uint64{}
				}
				mm.Other++
				mm.OtherByKind[k]++
			default:
				mm.Messages++
				mm.ByKind[k]++
			}
		}
	}
	if mm.Entries > 0 {
		mm.MessagesPerEntry = ptr(float64(mm.Messages) / float64(mm.Entries))
		mm.PerEntryByKind = map[string]float64{}
		for k, c := range mm.ByKind {
			mm.PerEntryByKind[k] = float64(c) / float64(mm.Entries)
		}
	}
	if end > 0 {
		mm.Throughput = ptr(float64(mm.Entries) / seconds(end))
	}

	// Waiting times, per node and overall.
	var waits []float64
	per := map[protocol.NodeID]*MutexNode{}
	perWait := map[protocol.NodeID][]float64{}
	node := func(id protocol.NodeID) *MutexNode {
		if per[id] == nil {
			per[id] = &MutexNode{Node: id}
		}
		return per[id]
	}
	for _, q := range mr.reqs {
		node(q.node).Requests++
		switch {
		case q.granted:
			mm.Granted++
			w := seconds(q.end - q.t)
			waits = append(waits, w)
			perWait[q.node] = append(perWait[q.node], w)
		case q.abandoned:
			mm.Abandoned++
		}
	}
	for _, en := range mr.entries {
		node(r.procs[en.at.p].id).Entries++
		if en.req < 0 {
			mm.Unrequested++
		}
	}
	if len(waits) > 0 {
		mm.WaitingMean = ptr(mean(waits))
		sorted := slices.Clone(waits)
		slices.Sort(sorted)
		mm.WaitingP95 = ptr(sorted[int(math.Ceil(0.95*float64(len(sorted))))-1])
		mm.WaitingMax = ptr(sorted[len(sorted)-1])
		mm.RecentWindow = *mm.WaitingMax
	}
	for _, q := range mr.reqs {
		if q.granted || q.abandoned {
			continue
		}
		mm.WaitingAtEnd++
		if seconds(end-q.t) <= mm.RecentWindow {
			mm.Recent++
		}
		if mm.Oldest == nil || seconds(q.t) < mm.Oldest.T {
			mm.Oldest = &WaitingNote{Node: q.node, T: seconds(q.t)}
		}
	}

	// Jain's index over the nodes that requested.
	var sum, sq float64
	k := 0
	for _, nm := range per {
		if nm.Requests == 0 {
			continue
		}
		k++
		x := float64(nm.Entries)
		sum += x
		sq += x * x
	}
	if k > 0 && sq > 0 {
		mm.Jain = ptr(sum * sum / (float64(k) * sq))
	}
	ids := make([]protocol.NodeID, 0, len(per))
	for id := range per {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		nm := per[id]
		if w := perWait[id]; len(w) > 0 {
			nm.WaitingMean = ptr(mean(w))
		}
		mm.PerNode = append(mm.PerNode, *nm)
	}

	mm.Overtakes = overtakes(r, mr, ids)
	mm.Sync = syncDelay(r, mr)
	mm.Violations = checkMutex(r).Violations
	mm.Theory = mutexTheory(r.header.Protocol, r.params(), n)
	return mm
}

// overtakes counts the entries whose request was made after a request of
// another node still waiting at the entry. Each node's requests end in
// order (granted first come first, abandoned together), so the oldest
// request of a node still waiting at t only moves forward as t does.
func overtakes(r *run, mr *mxRun, ids []protocol.NodeID) int {
	next := map[protocol.NodeID]int{}
	count := 0
	for _, en := range mr.entries {
		if en.req < 0 {
			continue
		}
		q := mr.reqs[en.req]
		for _, id := range ids {
			list := mr.byNode[id]
			k := next[id]
			for k < len(list) && mr.reqs[list[k]].end <= en.t {
				k++
			}
			next[id] = k
			if id == q.node || k == len(list) {
				continue
			}
			if mr.reqs[list[k]].t < q.t {
				count++
				break
			}
		}
	}
	return count
}

// handover is an exit and the next entry, at another node, whose request
// was already waiting at the exit.
type handover struct {
	exit, enter ref
	time        int64
	msgs        int32 // -1: no causal chain
}

// syncDelay finds the handovers and measures them in time and in
// messages.
func syncDelay(r *run, mr *mxRun) SyncDelay {
	var hs []handover
	for i, x := range mr.exits {
		k, _ := slices.BinarySearchFunc(mr.entries, x.t, func(e mxEntry, t int64) int { return cmp.Compare(e.t, t) })
		if k == len(mr.entries) {
			continue
		}
		en := mr.entries[k]
		if i+1 < len(mr.exits) && mr.exits[i+1].t <= en.t {
			continue // not the last exit before this entry
		}
		if en.at.p == x.at.p || en.req < 0 || mr.reqs[en.req].t > x.t {
			continue
		}
		hs = append(hs, handover{exit: x.at, enter: en.at, time: en.t - x.t, msgs: -1})
	}
	sd := SyncDelay{Handovers: len(hs)}
	if len(hs) == 0 {
		return sd
	}
	chainLengths(r, hs)
	var times, msgs []float64
	maxMsgs := -1
	for _, h := range hs {
		times = append(times, seconds(h.time))
		if h.msgs < 0 {
			sd.Unlinked++
			continue
		}
		msgs = append(msgs, float64(h.msgs))
		maxMsgs = max(maxMsgs, int(h.msgs))
	}
	sd.MeanTime = ptr(mean(times))
	sd.MaxTime = ptr(slices.Max(times))
	if len(msgs) > 0 {
		sd.MeanMessages = ptr(mean(msgs))
		sd.MaxMessages = &maxMsgs
	}
	return sd
}

// chainLengths sets each handover's msgs to the fewest send→recv edges on
// a causal path from its exit to its entry (process order edges cost
// nothing), by one pass over the run in causal order: every process keeps
// its distance from each open handover's exit, and a send carries its
// sender's distances to its receives.
func chainLengths(r *run, hs []handover) {
	g := buildGraph(r)
	pending := map[ref]int32{}
	for p := range g.pred {
		for _, s := range g.pred[p] {
			if s != noRef {
				pending[s]++
			}
		}
	}
	startAt, endAt := map[ref][]int{}, map[ref][]int{}
	for h := range hs {
		startAt[hs[h].exit] = append(startAt[hs[h].exit], h)
		endAt[hs[h].enter] = append(endAt[hs[h].enter], h)
	}
	done := make([]bool, len(hs))
	cur := make([]map[int]int32, len(r.procs))
	snaps := map[ref]map[int]int32{}
	g.order(func(x ref) {
		e := g.ev(x)
		c := cur[x.p]
		if s := g.pred[x.p][x.i]; s != noRef {
			if sv := snaps[s]; sv != nil && e.typ == tRecv {
				for h, d := range sv {
					if done[h] {
						continue
					}
					if c == nil {
						c = map[int]int32{}
						cur[x.p] = c
					}
					if old, ok := c[h]; !ok || d+1 < old {
						c[h] = d + 1
					}
				}
			}
			if pending[s]--; pending[s] == 0 {
				delete(snaps, s)
				delete(pending, s)
			}
		}
		for _, h := range startAt[x] {
			if done[h] {
				continue
			}
			if c == nil {
				c = map[int]int32{}
				cur[x.p] = c
			}
			c[h] = 0
		}
		for _, h := range endAt[x] {
			if d, ok := c[h]; ok {
				hs[h].msgs = d
			}
			done[h] = true
			for _, m := range cur {
				delete(m, h)
			}
		}
		if isSend(e) && pending[x] > 0 && len(c) > 0 {
			snap := make(map[int]int32, len(c))
			for h, d := range c {
				snap[h] = d
			}
			snaps[x] = snap
		}
	})
}

// mutexTheory is the named protocol's MutexCost for n members; nil when
// the protocol has none or is unknown to this binary.
func mutexTheory(name string, params protocol.Params, n int) *MutexTheory {
	s, err := protocol.LookupFor(name, params)
	if err != nil || s.Mutex == nil {
		return nil
	}
	c := s.Mutex
	th := &MutexTheory{N: n, Messages: c.Messages, Delay: c.Delay, Problems: c.Problems}
	if c.PerEntry != nil && n > 0 {
		lo, hi := c.PerEntry(n)
		if !math.IsInf(lo, 0) && !math.IsNaN(lo) {
			th.PerEntryLo = ptr(lo)
		}
		if !math.IsInf(hi, 0) && !math.IsNaN(hi) {
			th.PerEntryHi = ptr(hi)
		}
	}
	return th
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// WriteText prints the sections' figures as a compact block.
func (m *MutexMetrics) WriteText(w io.Writer) {
	fmt.Fprintf(w, "mutual exclusion: %d entries, %d requests (%d granted, %d abandoned by a crash, %d waiting at the end, %d of them within the last %.3fs); %d violations\n",
		m.Entries, m.Requests, m.Granted, m.Abandoned, m.WaitingAtEnd, m.Recent, m.RecentWindow, m.Violations)
	if m.Oldest != nil {
		fmt.Fprintf(w, "  oldest request still waiting: node %d's of %.3fs\n", m.Oldest.Node, m.Oldest.T)
	}
	if m.Final != "" {
		fmt.Fprintf(w, "  never granted: %s\n", m.Final)
	}
	if j := m.Judged; j != nil {
		fmt.Fprintf(w, "  message bound %s: %s\n", j.Verdict, j.Reason)
	}
	kinds := make([]string, 0, len(m.PerEntryByKind))
	for k := range m.PerEntryByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %.2f", k, m.PerEntryByKind[k])
	}
	fmt.Fprintf(w, "  messages per entry %s (%d messages", fmtOpt(m.MessagesPerEntry, "%.2f"), m.Messages)
	if len(parts) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprint(w, ")")
	if m.Transport > 0 {
		fmt.Fprintf(w, "; %d transport apart", m.Transport)
	}
	if m.Other > 0 {
		fmt.Fprintf(w, "; %d others apart (%s)", m.Other, kindCounts(m.OtherByKind))
	}
	fmt.Fprintln(w)
	s := m.Sync
	fmt.Fprintf(w, "  sync delay over %d handovers: mean %s, max %s; in messages mean %s, max %s",
		s.Handovers, fmtOpt(s.MeanTime, "%.3fs"), fmtOpt(s.MaxTime, "%.3fs"), fmtOpt(s.MeanMessages, "%.2f"), fmtInt(s.MaxMessages))
	if s.Unlinked > 0 {
		fmt.Fprintf(w, " (%d with no causal chain)", s.Unlinked)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  waiting: mean %s, p95 %s, max %s; throughput %s entries/s\n",
		fmtOpt(m.WaitingMean, "%.3fs"), fmtOpt(m.WaitingP95, "%.3fs"), fmtOpt(m.WaitingMax, "%.3fs"), fmtOpt(m.Throughput, "%.3f"))
	fmt.Fprintf(w, "  fairness: %d overtakes; Jain's index of entries per requesting node %s\n", m.Overtakes, fmtOpt(m.Jain, "%.3f"))
	if th := m.Theory; th != nil {
		fmt.Fprintf(w, "  theory (n=%d): %s messages per entry", th.N, th.Messages)
		if th.PerEntryLo != nil {
			hi := "∞"
			if th.PerEntryHi != nil {
				hi = fmt.Sprintf("%g", *th.PerEntryHi)
			}
			fmt.Fprintf(w, " (%g to %s)", *th.PerEntryLo, hi)
		}
		fmt.Fprintf(w, ", delay %s message times", th.Delay)
		if th.Problems != "" {
			fmt.Fprintf(w, "; problems: %s", th.Problems)
		}
		fmt.Fprintln(w)
	}
}

func fmtInt(v *int) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprint(*v)
}

// kindCounts prints counts by kind in kind order ("halt 13, probe 7").
func kindCounts(m map[string]uint64) string {
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
