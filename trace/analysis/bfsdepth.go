package analysis

import (
	"fmt"
	"strconv"
	"strings"

	"manetlab/protocol"
)

// PropBFSDepth is the property of a tree whose parent notes carry depths
// (sync/bfs: Text "depth D"): every node's depth is its hop distance from
// the root in the radio graph at the start, as a BFS tree's is.
const PropBFSDepth = "bfs-depth"

// appendBFSDepth adds the bfs-depth property to props when some parent
// note of the run in dir carries a depth, judged outside the protocol's
// assumptions as the tree property is (why).
func appendBFSDepth(l *loader, props []Property, why string, opt CheckOptions) []Property {
	if p, ok := checkBFSDepth(l, opt); ok {
		props = append(props, judgeOutside(p, why))
	}
	return props
}

// parseDepth reads "depth D" (the Text of sync/bfs's parent notes).
func parseDepth(text string) (int, bool) {
	s, found := strings.CutPrefix(text, "depth ")
	if !found {
		return 0, false
	}
	d, err := strconv.Atoi(s)
	return d, err == nil && d >= 0
}

// checkBFSDepth compares every member's latest depth (its latest parent
// note since its last start, at the end of the run) with its hop distance
// in the radio graph at time 0 from the root, the member whose latest
// parent note names none. Members the root does not reach at the start
// are not judged. ok is false when no parent note carries a depth: the
// property does not apply.
func checkBFSDepth(l *loader, opt CheckOptions) (p Property, ok bool) {
	p = Property{Name: PropBFSDepth}
	r, err := l.run(readTree)
	if err != nil {
		return p, false
	}
	type latest struct {
		e      *event
		depth  int
		parent protocol.NodeID
	}
	notes := map[protocol.NodeID]*latest{}
	found := false
	for _, pr := range r.procs[1:] {
		for k := range pr.evs {
			e := &pr.evs[k]
			switch e.typ {
			case tStart, tCrash:
				delete(notes, pr.id)
			case tOther: // a parent note: the only untyped event kept
				d, isDepth := parseDepth(r.strs.Strs[e.text])
				if !isDepth {
					delete(notes, pr.id)
					continue
				}
				found = true
				notes[pr.id] = &latest{e: e, depth: d, parent: e.leader}
			}
		}
	}
	if !found {
		return p, false
	}
	tr, err := newTruth(r, opt.Step)
	if err != nil {
		p.Verdict, p.Reason = Unknown, "no ground truth: "+err.Error()
		return p, true
	}
	var roots []protocol.NodeID
	for _, m := range tr.members {
		if l := notes[m.ID]; l != nil && l.parent == protocol.None {
			roots = append(roots, m.ID)
		}
	}
	if len(roots) != 1 {
		p.Verdict = Unknown
		p.Reason = fmt.Sprintf("%d members end as root (%v): no single root to measure distances from (the tree property says why)", len(roots), roots)
		return p, true
	}
	root := tr.index[roots[0]]
	// Hop distances at time 0 (breadth-first over Linked: n² tests, as the
	// tree's members are few).
	n := len(tr.members)
	dist := make([]int, n)
	for i := range dist {
		dist[i] = -1
	}
	dist[root] = 0
	queue := []int{root}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for j := range n {
			if dist[j] < 0 && tr.med.Linked(i, j, 0) {
				dist[j] = dist[i] + 1
				queue = append(queue, j)
			}
		}
	}
	for j, m := range tr.members {
		if dist[j] < 0 {
			continue
		}
		p.Checked++
		l := notes[m.ID]
		var text string
		var evs []WitnessEvent
		switch {
		case l == nil:
			text = fmt.Sprintf("node %d noted no depth; its hop distance from the root %d at the start is %d", m.ID, roots[0], dist[j])
		case l.depth != dist[j]:
			text = fmt.Sprintf("node %d is at depth %d (parent %d); its hop distance from the root %d at the start is %d", m.ID, l.depth, l.parent, roots[0], dist[j])
			evs = []WitnessEvent{r.witnessEvent(l.e, "latest parent note")}
		default:
			continue
		}
		p.Violations++
		if len(p.Witnesses) < maxWitnesses {
			p.Witnesses = append(p.Witnesses, Witness{Text: text, Events: evs})
		}
	}
	p.Verdict = Valid
	if p.Violations > 0 {
		p.Verdict = Invalid
		p.Reason = "not a BFS tree: expected without a synchronizer, a bug with one"
	}
	return p, true
}
