package analysis

import (
	"fmt"

	"manetlab/protocol"
)

// section is one stay of a node in the critical section: from cs-enter to
// the next cs-exit or crash (exit noRef: never left before its trace ends).
type section struct {
	node  protocol.NodeID
	enter ref
	exit  ref
	down  ref     // the node's first crash at or after exit (noRef: none)
	vc    []int32 // vector clock at enter, over the nodes that enter
}

// checkMutexOf is checkMutex of the run of l, of which r is a lean load
// (loadOptions.lean): when nodes' sections must be ordered by
// happened-before, the run is loaded again with its receives (readCausal),
// and the problems the causal graph finds join r's.
func checkMutexOf(r *run, l *loader) (Property, error) {
	entering := map[protocol.NodeID]bool{}
	for _, pr := range r.procs[1:] {
		for i := range pr.evs {
			if pr.evs[i].typ == tCSEnter {
				entering[pr.id] = true
				break
			}
		}
	}
	if len(entering) < 2 {
		return checkMutex(r), nil
	}
	full, err := l.run(readCausal)
	if err != nil {
		return Property{}, err
	}
	n := len(full.problems)
	p := checkMutex(full)
	r.problems = append(r.problems, full.problems[n:]...)
	return p, nil
}

// checkMutex decides mutual exclusion causally: two sections at different
// nodes conflict unless one's exit happened before the other's enter, by
// process order and send-to-receive edges, whatever the clocks say.
// Vector clocks are kept only over the nodes that ever enter, and a
// send's clock only until its last receive is processed, so memory stays
// bounded by nodes × entering nodes plus frames in flight.
func checkMutex(r *run) Property {
	p := Property{Name: PropMutex}
	var secs []*section
	dim := map[int32]int{} // proc index -> vector index
	for pi, pr := range r.procs {
		if pi == 0 {
			continue
		}
		var open *section
		var left []*section // sections left, before the node's next crash
		for i := range pr.evs {
			e := &pr.evs[i]
			switch {
			case e.typ == tCSEnter && open == nil:
				open = &section{node: pr.id, enter: ref{int32(pi), int32(i)}, exit: noRef, down: noRef}
				secs = append(secs, open)
				if _, ok := dim[int32(pi)]; !ok {
					dim[int32(pi)] = len(dim)
				}
			case (e.typ == tCSExit || e.typ == tCrash) && open != nil:
				open.exit = ref{int32(pi), int32(i)}
				left = append(left, open)
				open = nil
			}
			if e.typ == tCrash {
				for _, s := range left {
					s.down = ref{int32(pi), int32(i)}
				}
				left = left[:0]
			}
		}
	}
	if len(secs) == 0 {
		p.Verdict, p.Reason = Valid, "no critical sections"
		return p
	}
	if len(dim) > 1 {
		vectorClocks(r, secs, dim)
	}
	hb := func(x ref, s *section) bool { // x happened before s's enter
		if x == noRef {
			return false
		}
		if x.p == s.enter.p {
			return x.i < s.enter.i
		}
		return s.vc[dim[x.p]] > x.i
	}
	for a := range secs {
		for b := a + 1; b < len(secs); b++ {
			sa, sb := secs[a], secs[b]
			if sa.node == sb.node {
				continue
			}
			p.Checked++
			if hb(sa.exit, sb) || hb(sb.exit, sa) || crashedBefore(r, sa, sb) || crashedBefore(r, sb, sa) {
				continue
			}
			p.Violations++
			if len(p.Witnesses) < maxWitnesses {
				p.Witnesses = append(p.Witnesses, mutexWitness(r, sa, sb))
			}
		}
	}
	p.Verdict = Valid
	if p.Violations > 0 {
		p.Verdict = Invalid
	}
	p.Reason = fmt.Sprintf("%d sections at %d nodes; %d pairs at different nodes checked", len(secs), len(dim), p.Checked)
	return p
}

// crashedBefore reports whether a's node crashed, in a's section or after
// it, at or before b's enter by the run's clock. A crash sends no message,
// so happened-before cannot order it; the algorithm learns of it by a
// timeout (a coordinator reclaiming a crashed holder's section, a token
// ring regenerating a token that died in the crashed node's channel after
// its section), and a section entered after the crash does not overlap a
// section that the crash, or an exit before it, ended.
func crashedBefore(r *run, a, b *section) bool {
	if a.down == noRef {
		return false
	}
	return r.procs[a.down.p].evs[a.down.i].t <= r.procs[b.enter.p].evs[b.enter.i].t
}

// vectorClocks fills each section's clock at enter by replaying the run
// in causal order.
func vectorClocks(r *run, secs []*section, dim map[int32]int) {
	g := buildGraph(r)
	k := len(dim)
	pending := map[ref]int32{} // send -> receives still to process
	for p := range g.pred {
		for _, s := range g.pred[p] {
			if s != noRef {
				pending[s]++
			}
		}
	}
	atEnter := map[ref]*section{}
	for _, s := range secs {
		atEnter[s.enter] = s
	}
	cur := make([][]int32, len(r.procs))
	snaps := map[ref][]int32{}
	g.order(func(x ref) {
		v := cur[x.p]
		if v == nil {
			v = make([]int32, k)
			cur[x.p] = v
		}
		e := g.ev(x)
		if s := g.pred[x.p][x.i]; s != noRef {
			// A drop delivers nothing to the process, so it creates no
			// happened-before edge; its snapshot is released all the same.
			// A relay received the message it forwards.
			if sv := snaps[s]; sv != nil && (e.typ == tRecv || e.typ == tRelay) {
				for j := range v {
					v[j] = max(v[j], sv[j])
				}
			}
			if pending[s]--; pending[s] == 0 {
				delete(snaps, s)
				delete(pending, s)
			}
		}
		if d, ok := dim[x.p]; ok {
			v[d] = x.i + 1
		}
		if isSend(e) && pending[x] > 0 {
			snaps[x] = append([]int32(nil), v...)
		}
		if s := atEnter[x]; s != nil {
			s.vc = append([]int32(nil), v...)
		}
	})
}

// mutexWitness names the two sections and their events.
func mutexWitness(r *run, a, b *section) Witness {
	w := Witness{Text: fmt.Sprintf("nodes %d and %d in the critical section concurrently: neither left before the other entered (by happened-before)", a.node, b.node)}
	for _, s := range []*section{a, b} {
		w.Events = append(w.Events, r.witnessEvent(&r.procs[s.enter.p].evs[s.enter.i], "enter"))
		if s.exit != noRef {
			w.Events = append(w.Events, r.witnessEvent(&r.procs[s.exit.p].evs[s.exit.i], "exit"))
		}
	}
	return w
}
