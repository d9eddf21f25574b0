package analysis

import (
	"fmt"
	"slices"

	"manetlab/protocol"
	"manetlab/trace"
)

// ref names an event: its process's index in run.procs and its index there.
type ref struct{ p, i int32 }

var noRef = ref{-1, -1}

// msgKey identifies a frame: its sender and sequence number, or a
// multi-hop message's originator and originator sequence.
type msgKey struct {
	node protocol.NodeID
	seq  uint64
}

// graph is the causal graph of a run: process order (implicit in each
// proc's event order) plus one edge from each send to each of its
// receives.
type graph struct {
	r *run
	// pred is, for every event, its send when it is a matched receive.
	pred      [][]ref
	matched   int
	unmatched int
	// byClock holds, for every candidate list of more than one send
	// (keyed by its first element), the sends ascending by clock, only
	// the first of equal clocks: latest searches it.
	byClock map[*ref][]ref
}

// isReceive reports whether an event is the receiving end of a frame.
func isReceive(e *event) bool { return e.typ == tRecv || e.typ == tDrop }

// isSend reports whether an event puts a frame on the air.
func isSend(e *event) bool { return e.typ == tSend || e.typ == tRelay }

// clock is the ordering key of an event: its hybrid logical clock when it
// has one (which already respects causality), else its wall clock, else
// the driver's time (one global virtual clock in sim).
func clock(e *event) (int64, uint32) {
	switch {
	case e.hasHLC:
		return e.hlcW, e.hlcL
	case e.wall != 0:
		return e.wall, 0
	}
	return e.t, 0
}

// before reports whether event a's clock is below b's.
func before(a, b *event) bool {
	aw, al := clock(a)
	bw, bl := clock(b)
	return aw < bw || aw == bw && al < bl
}

// maxProblems bounds how many problems of one sort are listed; the rest
// are counted.
const maxProblems = 20

// buildGraph matches every receive to its send by (from, seq), falling
// back to (origin, oseq). A sequence number used twice by one sender (a
// restarted process) is resolved to the latest send whose clock is not
// after the receive's.
func buildGraph(r *run) *graph {
	g := &graph{r: r, pred: make([][]ref, len(r.procs))}
	sends := map[msgKey][]ref{}
	origins := map[msgKey][]ref{}
	type use struct {
		life int // starts before the send in its process
		at   ref
	}
	lastUse := map[msgKey]use{}
	reused := 0
	for p, pr := range r.procs {
		life := 0
		for i := range pr.evs {
			e := &pr.evs[i]
			if e.typ == tStart {
				life++
			}
			if !isSend(e) {
				continue
			}
			k := msgKey{e.node, e.seq}
			x := ref{int32(p), int32(i)}
			// A restarted process numbers its frames afresh; within one
			// process life a sequence number used twice is damage.
			if u, ok := lastUse[k]; ok && u.life == life && u.at.p == x.p {
				if reused++; reused <= maxProblems {
					r.problems = append(r.problems, trace.Problem{File: r.files[e.file], Line: int(e.line),
						Msg: fmt.Sprintf("node %d uses seq %d again (first at %s) without a restart; receives go to the latest send before them", e.node, e.seq, r.src(g.ev(u.at)))})
				}
			}
			lastUse[k] = use{life, x}
			sends[k] = append(sends[k], x)
			if e.typ == tSend && e.origin == e.node && e.oseq != 0 {
				origins[msgKey{e.origin, e.oseq}] = append(origins[msgKey{e.origin, e.oseq}], x)
			}
		}
	}
	if reused > maxProblems {
		r.problems = append(r.problems, trace.Problem{File: r.dirs[0], Msg: fmt.Sprintf("%d more sequence numbers used again without a restart", reused-maxProblems)})
	}
	g.byClock = map[*ref][]ref{}
	for _, m := range []map[msgKey][]ref{sends, origins} {
		for _, cands := range m {
			if len(cands) > 1 {
				g.byClock[&cands[0]] = g.sortByClock(cands)
			}
		}
	}
	listed := 0
	for p, pr := range r.procs {
		g.pred[p] = make([]ref, len(pr.evs))
		for i := range pr.evs {
			g.pred[p][i] = noRef
			e := &pr.evs[i]
			if e.typ == tRelay && e.origin != e.node && e.origin != protocol.None {
				// A relay forwards a multi-hop message it received, which
				// its trace does not record as a receive: it happened
				// after the originator's send. Without this edge the
				// chain send, relay, receive breaks at the relay.
				if cands := origins[msgKey{e.origin, e.oseq}]; len(cands) > 0 {
					g.pred[p][i] = g.latest(cands, e)
				}
				continue
			}
			if !isReceive(e) || e.from == e.node || e.from == protocol.None && e.origin == protocol.None {
				continue
			}
			// A frame relayed across several hops is matched with its
			// originator's send: relaying nodes log a relay, not a
			// receive, so the last hop's relay carries none of the
			// originator's history, and the happened-before edge that
			// the message makes runs from the originator.
			var cands []ref
			if e.origin != protocol.None && e.origin != e.from {
				cands = origins[msgKey{e.origin, e.oseq}]
			}
			if len(cands) == 0 {
				cands = sends[msgKey{e.from, e.seq}]
			}
			if len(cands) == 0 && e.origin != protocol.None {
				cands = origins[msgKey{e.origin, e.oseq}]
			}
			if len(cands) == 0 {
				g.unmatched++
				if listed < maxProblems {
					listed++
					r.problems = append(r.problems, trace.Problem{File: r.files[e.file], Line: int(e.line),
						Msg: fmt.Sprintf("%s from node %d seq %d has no matching send (sender's trace lost?)", evName(e), e.from, e.seq)})
				}
				continue
			}
			g.pred[p][i] = g.latest(cands, e)
			g.matched++
		}
	}
	if g.unmatched > listed {
		r.problems = append(r.problems, trace.Problem{File: r.dirs[0], Msg: fmt.Sprintf("%d more receives without a matching send", g.unmatched-listed)})
	}
	return g
}

// latest picks among the sends of one key (a sequence number used again
// by a restarted process) the latest whose clock is not after e's, the
// first listed among equal clocks; the first listed when its own clock is
// after e's. A binary search, so that a sender reusing one number for
// every frame costs no more than a clean one.
func (g *graph) latest(cands []ref, e *event) ref {
	if len(cands) == 1 || before(e, g.ev(cands[0])) {
		return cands[0]
	}
	sorted := g.byClock[&cands[0]]
	// The first whose clock is after e's; the one before it is the latest
	// not after (cands[0] is not after, so k > 0).
	k, _ := slices.BinarySearchFunc(sorted, e, func(x ref, e *event) int {
		if before(e, g.ev(x)) {
			return 1
		}
		return -1
	})
	return sorted[k-1]
}

// sortByClock sorts a copy of cands by clock, stably, keeping only the
// first of each clock.
func (g *graph) sortByClock(cands []ref) []ref {
	sorted := slices.Clone(cands)
	slices.SortStableFunc(sorted, func(a, b ref) int {
		switch {
		case before(g.ev(a), g.ev(b)):
			return -1
		case before(g.ev(b), g.ev(a)):
			return 1
		}
		return 0
	})
	return slices.CompactFunc(sorted, func(a, b ref) bool {
		return !before(g.ev(a), g.ev(b)) && !before(g.ev(b), g.ev(a))
	})
}

// ev returns the event at x.
func (g *graph) ev(x ref) *event { return &g.r.procs[x.p].evs[x.i] }

// evName is an event type's trace name.
func evName(e *event) string {
	for name, t := range evTypes {
		if t == e.typ {
			return name
		}
	}
	return "event"
}

// orderStats says how much the clocks alone got wrong.
type orderStats struct {
	// Repaired counts receives whose clock is below their send's: the
	// topological pass put them after it.
	Repaired int
	// Broken counts receive edges ignored to break a cycle, which only
	// damaged traces contain.
	Broken int
}

// headItem is a process whose next event is ready to be emitted, in the
// in-memory merge (order) and the streaming one (stream.go).
type headItem struct {
	w  int64
	l  uint32
	id protocol.NodeID
	p  int32
	at uint64 // parked heads only: the event's index (order), its position in its process (stream.go)
}

// headHeap is a min-heap of heads, typed: container/heap's algorithm
// (the same order for equal heads) without boxing every head in an
// interface (a twentieth of a merge's CPU).
type headHeap []headItem

func (h headHeap) Len() int { return len(h) }
func (h headHeap) less(a, b int) bool {
	x, y := &h[a], &h[b]
	if x.w != y.w {
		return x.w < y.w
	}
	if x.l != y.l {
		return x.l < y.l
	}
	if x.id != y.id {
		return x.id < y.id
	}
	return x.p < y.p
}

// push adds it, as heap.Push.
func (h *headHeap) push(it headItem) {
	*h = append(*h, it)
	q := *h
	for j := len(q) - 1; ; {
		i := (j - 1) / 2 // parent
		if i == j || !q.less(j, i) {
			break
		}
		q[i], q[j] = q[j], q[i]
		j = i
	}
}

// pop removes and returns the smallest head, as heap.Pop.
func (h *headHeap) pop() headItem {
	q := *h
	n := len(q) - 1
	q[0], q[n] = q[n], q[0]
	for i := 0; ; {
		j := 2*i + 1
		if j >= n || j < 0 {
			break
		}
		if j2 := j + 1; j2 < n && q.less(j2, j) {
			j = j2
		}
		if !q.less(j, i) {
			break
		}
		q[i], q[j] = q[j], q[i]
		i = j
	}
	it := q[n]
	*h = q[:n]
	return it
}

// order calls fn for every event in an order that keeps each process's
// order and puts every receive after its send: Kahn's algorithm over
// process order and send-to-receive edges, choosing among ready events
// the smallest clock (then node ID), so the output is deterministic and
// follows the clocks wherever they respect causality.
func (g *graph) order(fn func(x ref)) orderStats {
	var st orderStats
	procs := g.r.procs
	next := make([]int32, len(procs))
	waiting := map[ref][]ref{} // send -> receives at their process's head
	h := &headHeap{}
	// parked holds the heads parked on their send by clock, for
	// breakCycle; entries whose process moved on are stale and skipped.
	parked := &headHeap{}
	// offer puts process p's head on the heap when it is ready, else
	// parks it until its send is emitted.
	offer := func(p int32) {
		i := next[p]
		if int(i) >= len(procs[p].evs) {
			return
		}
		if s := g.pred[p][i]; s != noRef && next[s.p] <= s.i {
			waiting[s] = append(waiting[s], ref{p, i})
			w, l := clock(&procs[p].evs[i])
			parked.push(headItem{w, l, procs[p].id, p, uint64(i)})
			return
		}
		w, l := clock(&procs[p].evs[i])
		h.push(headItem{w, l, procs[p].id, p, 0})
	}
	for p := range procs {
		offer(int32(p))
	}
	left := 0
	for _, pr := range procs {
		left += len(pr.evs)
	}
	for left > 0 {
		if h.Len() == 0 {
			g.breakCycle(next, h, parked, &st)
		}
		it := h.pop()
		x := ref{it.p, next[it.p]}
		e := g.ev(x)
		if s := g.pred[x.p][x.i]; s != noRef && before(e, g.ev(s)) {
			st.Repaired++
		}
		fn(x)
		left--
		next[x.p]++
		offer(x.p)
		if ws, ok := waiting[x]; ok {
			delete(waiting, x)
			for _, w := range ws {
				if next[w.p] == w.i { // still parked on this send
					ev := g.ev(w)
					ww, wl := clock(ev)
					h.push(headItem{ww, wl, procs[w.p].id, w.p, 0})
				}
			}
		}
	}
	return st
}

// breakCycle handles a stall: every remaining head waits for a send that
// cannot come first, which only a damaged trace produces. The head with
// the smallest clock (then node ID) is released without its edge, and
// reported. It is found on the heap of parked heads, so that a trace full
// of cycles costs a logarithm per cycle, not a pass over every process.
func (g *graph) breakCycle(next []int32, h, parked *headHeap, st *orderStats) {
	best := noRef
	for parked.Len() > 0 {
		it := parked.pop()
		if next[it.p] == int32(it.at) { // still this process's head, hence parked
			best = ref{it.p, int32(it.at)}
			break
		}
	}
	st.Broken++
	e := g.ev(best)
	s := g.ev(g.pred[best.p][best.i])
	if st.Broken <= maxProblems {
		g.r.problems = append(g.r.problems, trace.Problem{File: g.r.files[e.file], Line: int(e.line),
			Msg: fmt.Sprintf("causal cycle: this receive cannot follow its send %s; placed by its clock", g.r.src(s))})
	}
	g.pred[best.p][best.i] = noRef
	w, l := clock(e)
	h.push(headItem{w, l, g.r.procs[best.p].id, best.p, 0})
}
