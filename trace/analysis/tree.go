package analysis

import (
	"fmt"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// PropTree is the property of protocols whose goal is protocol.GoalTree
// (IEEE 1394 tree identify): one spanning tree per component.
const PropTree = "tree"

// judgeTreeGoal adapts the properties of a run whose protocol's goal is
// protocol.GoalTree: stable-leader is not judged (the root is whichever
// node the tree identify makes root, not the best node), and the tree
// property is added, judged outside the protocol's assumptions as the
// leader properties are (why).
func judgeTreeGoal(l *loader, props []Property, why string, opt CheckOptions) []Property {
	for i, p := range props {
		if p.Name == PropStableLeader {
			// Not applicable, as the leader properties of a mutual
			// exclusion run without leaders: valid, so that the exit
			// status reflects the properties that apply.
			props[i] = Property{Name: p.Name, Verdict: Valid, Checked: p.Checked,
				Reason: "not applicable: the goal is a tree, whose root need not be the best node; the tree property judges the root and the leader every member follows"}
		}
	}
	return append(props, judgeOutside(checkTree(l, opt), why))
}

// treeEvents are the events the tree check reads: parent notes (the only
// events of no type of their own that it keeps, so tOther means a parent
// note there), leader notes, and what resets them.
func treeEvents(ev string) bool {
	switch ev {
	case string(protocol.NoteParent), string(protocol.NoteLeader), trace.EvStart, trace.EvCrash, trace.EvNbrUp, trace.EvNbrDown, trace.EvStats:
		return true
	}
	return false
}

// checkTree samples the ground truth and requires of every settled
// component (unchanged for the stabilisation delay): each member has
// noted a parent; exactly one member is root (its latest parent note
// names none); every other member's parent is a live radio neighbour (a
// link up or uncertain); the parent edges have no cycle, so every member
// reaches the root; and every member's latest leader note names the root.
// One witness per settled stretch of a component: its first failing
// instant.
func checkTree(l *loader, opt CheckOptions) Property {
	p := Property{Name: PropTree}
	r, err := l.run(readTree)
	if err != nil {
		p.Verdict, p.Reason = Unknown, err.Error()
		return p
	}
	tr, err := newTruth(r, opt.Step)
	if err != nil {
		p.Verdict, p.Reason = Unknown, "no ground truth: "+err.Error()
		return p
	}
	tf := newTreeFollower(r, tr)
	stableWindows(&p, tr, opt, tf.advance, nil, func(s *snapshot, _ int, c []int, since int64) (bool, bool, func() Witness) {
		w, bad := tf.judge(s, c)
		return true, bad, func() Witness {
			w.Text = fmt.Sprintf("at %.1fs (%.1fs after its last change) component {%s}: %s",
				seconds(s.t), seconds(s.t-since), compIDs(tr, c), w.Text)
			return w
		}
	}, ": one spanning tree per component, along radio links, every member following its root")
	return p
}

// treeFollower tracks each member's latest parent and leader notes,
// replaying its events in time order alongside the ground truth.
type treeFollower struct {
	r      *run
	tr     *truth
	procs  []*proc // per member index; nil without a trace
	next   []int
	parent []protocol.NodeID
	hasPar []bool // a parent note since the last start or crash
	lastP  []int  // index of the latest parent note, -1 none
	leader []protocol.NodeID
	lastL  []int // index of the latest leader note, -1 none
}

func newTreeFollower(r *run, tr *truth) *treeFollower {
	n := len(tr.members)
	f := &treeFollower{r: r, tr: tr, procs: make([]*proc, n), next: make([]int, n), parent: make([]protocol.NodeID, n),
		hasPar: make([]bool, n), lastP: make([]int, n), leader: make([]protocol.NodeID, n), lastL: make([]int, n)}
	for i, m := range tr.members {
		f.procs[i] = r.byID[m.ID]
		f.lastP[i], f.lastL[i] = -1, -1
	}
	return f
}

// advance applies every event with t <= until.
func (f *treeFollower) advance(until int64) {
	for i, p := range f.procs {
		if p == nil {
			continue
		}
		for f.next[i] < len(p.evs) && p.evs[f.next[i]].t <= until {
			k := f.next[i]
			switch e := &p.evs[k]; e.typ {
			case tStart, tCrash:
				f.parent[i], f.hasPar[i], f.lastP[i] = protocol.None, false, -1
				f.leader[i], f.lastL[i] = protocol.None, -1
			case tLeader:
				f.leader[i], f.lastL[i] = e.leader, k
			case tOther: // a parent note: the only untyped event kept
				f.parent[i], f.hasPar[i], f.lastP[i] = e.leader, true, k
			}
			f.next[i]++
		}
	}
}

// judge decides whether component comp (member indices) holds one
// spanning tree at s, and describes what is wrong.
func (f *treeFollower) judge(s *snapshot, comp []int) (Witness, bool) {
	tr := f.tr
	var problems []string
	var w Witness
	seen := map[[2]int]bool{} // (member, 0 parent / 1 leader) already a witness event
	cite := func(i int, leaderNote bool) {
		k, what, key := f.lastP[i], "latest parent note", [2]int{i, 0}
		if leaderNote {
			k, what, key = f.lastL[i], "latest leader note", [2]int{i, 1}
		}
		if k < 0 || seen[key] || len(w.Events) >= 8 {
			return
		}
		seen[key] = true
		w.Events = append(w.Events, f.r.witnessEvent(&f.procs[i].evs[k], what))
	}
	id := func(i int) protocol.NodeID { return tr.members[i].ID }
	var roots, unnoted []int
	valid := make(map[int]int, len(comp)) // member -> parent's member index, for edges that are radio links
	for _, i := range comp {
		switch {
		case !f.hasPar[i]:
			unnoted = append(unnoted, i)
		case f.parent[i] == protocol.None:
			roots = append(roots, i)
		default:
			pid := f.parent[i]
			j, member := tr.index[pid]
			switch {
			case !member:
				problems = append(problems, fmt.Sprintf("node %d's parent %d is not a member of the run", id(i), pid))
				cite(i, false)
			case !s.alive[j]:
				problems = append(problems, fmt.Sprintf("node %d's parent %d is down", id(i), pid))
				cite(i, false)
			case tr.med.LinkProbBetween(i, j, time.Duration(s.t)) <= LinkDown: // down; up or uncertain will do
				problems = append(problems, fmt.Sprintf("node %d's parent %d is not a radio neighbour", id(i), pid))
				cite(i, false)
			default:
				valid[i] = j
			}
		}
	}
	if len(unnoted) > 0 {
		problems = append(problems, fmt.Sprintf("%s noted no parent", nodesText(tr, unnoted)))
	}
	switch len(roots) {
	case 0:
		problems = append(problems, "no root (no member's latest parent note names none)")
	case 1:
	default:
		problems = append(problems, fmt.Sprintf("%d roots: %s", len(roots), nodesText(tr, roots)))
		for _, i := range roots {
			cite(i, false)
		}
	}
	// Cycles among the valid edges: walk each member's parents, colouring
	// the path (1) and the members finished (2).
	colour := make(map[int]int, len(comp))
	for _, start := range comp {
		var path []int
		i, cycle := start, false
		for {
			if colour[i] != 0 {
				cycle = colour[i] == 1
				break
			}
			colour[i] = 1
			path = append(path, i)
			j, ok := valid[i]
			if !ok {
				break
			}
			i = j
		}
		if cycle {
			// i is on the current path: the cycle runs from it to the end.
			k := len(path) - 1
			for path[k] != i {
				k--
			}
			var ids []string
			for _, c := range path[k:] {
				ids = append(ids, fmt.Sprint(id(c)))
				cite(c, false)
			}
			ids = append(ids, fmt.Sprint(id(i)))
			problems = append(problems, "the parent edges form a cycle "+strings.Join(ids, "→"))
		}
		for _, k := range path {
			colour[k] = 2
		}
	}
	if len(roots) == 1 {
		root := id(roots[0])
		var who []string
		for _, i := range comp {
			if f.leader[i] == root {
				continue
			}
			if len(who) == 3 {
				who = append(who, "...")
				break
			}
			if f.leader[i] == protocol.None {
				who = append(who, fmt.Sprintf("node %d has no leader", id(i)))
			} else {
				who = append(who, fmt.Sprintf("node %d follows %d", id(i), f.leader[i]))
			}
			cite(i, true)
		}
		if len(who) > 0 {
			problems = append(problems, fmt.Sprintf("not every member follows the root %d: %s", root, strings.Join(who, ", ")))
			cite(roots[0], false)
		}
	}
	if len(problems) == 0 {
		return w, false
	}
	if len(problems) > 4 {
		problems = append(problems[:4], fmt.Sprintf("and %d more", len(problems)-4))
	}
	w.Text = strings.Join(problems, "; ")
	return w, true
}

// nodesText names a few members: "node 3", "nodes 1, 4 and 2 more".
func nodesText(tr *truth, idx []int) string {
	var ids []string
	for k, i := range idx {
		if k == 5 {
			ids = append(ids, fmt.Sprintf("%d more", len(idx)-5))
			break
		}
		ids = append(ids, fmt.Sprint(tr.members[i].ID))
	}
	if len(idx) == 1 {
		return "node " + ids[0]
	}
	return "nodes " + strings.Join(ids, ", ")
}
