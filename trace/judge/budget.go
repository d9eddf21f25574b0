package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"manetlab/protocol"
)

// NodeSends is what one node's trace shows for a protocol.Budget: the
// causes it saw and what it sent, by kind and destination.
type NodeSends struct {
	ID   protocol.NodeID
	Seen protocol.Seen
	Sent map[string]map[protocol.NodeID]int
}

// Prefix is the part of a run before its first fault and before the
// first transmission of the first message it lost: a prefix of a run
// without faults or loss, in which the allowances that need no more
// hold too (each pays for a send with causes that come before it).
type Prefix struct {
	Until float64 // seconds: what happened before
	Nodes []NodeSends
}

// Budget judges every node's messages against the allowances b gives it
// for what its trace shows (protocol.Budget): invalid at the first node
// that sends more of some kinds than its allowance, naming the node, the
// kinds, the count and where the allowance comes from; valid when every
// allowance whose conditions the run meets holds; unknown when the run
// meets none. An allowance whose conditions the whole run does not meet
// is judged on pre, when given, as far as they are faults and loss. Nil
// when b is nil.
func Budget(b *protocol.Budget, members []protocol.NodeID, params protocol.Params, nodes []NodeSends, f Facts, pre *Prefix) *Count {
	if b == nil || b.Allow == nil {
		return nil
	}
	var unmet []string
	seenUnmet := map[string]bool{}
	whole := func(a protocol.Allowance) bool {
		if a.If == nil {
			return true
		}
		u := f.Unmet(*a.If)
		if len(u) == 0 {
			return true
		}
		why := fmt.Sprintf("%s not judged: the run had %s", strings.Join(a.Kinds, "+"), strings.Join(u, "; "))
		if pre != nil && len(f.Unmet(protocol.Conditions{Static: a.If.Static, Together: a.If.Together})) == 0 {
			why = fmt.Sprintf("%s judged before %.3fs only: the run had %s", strings.Join(a.Kinds, "+"), pre.Until, strings.Join(u, "; "))
		}
		if !seenUnmet[why] {
			seenUnmet[why] = true
			unmet = append(unmet, why)
		}
		return false
	}
	judged, total, bad := budget(b, members, params, nodes, whole, "")
	if bad != nil {
		return bad
	}
	if pre != nil {
		before := func(a protocol.Allowance) bool {
			return a.If != nil && len(f.Unmet(*a.If)) > 0 && len(f.Unmet(protocol.Conditions{Static: a.If.Static, Together: a.If.Together})) == 0
		}
		j, _, bad := budget(b, members, params, pre.Nodes, before, fmt.Sprintf(" before %.3fs (the run's first fault or lost message)", pre.Until))
		if bad != nil {
			return bad
		}
		judged += j
	}
	if judged == 0 {
		if len(unmet) == 0 {
			return nil
		}
		return &Count{Unknown, "the per-node message budget (" + b.Formula + "): " + strings.Join(unmet, "; ")}
	}
	r := fmt.Sprintf("every node's messages within its budget (%s): %d messages judged", b.Formula, total)
	if len(unmet) > 0 {
		r += "; " + strings.Join(unmet, "; ")
	}
	return &Count{Valid, r}
}

// budget judges nodes against the allowances of b that take says to
// judge; when returns the number judged, the messages they count, and
// the first node over its allowance (when names the part of the run).
func budget(b *protocol.Budget, members []protocol.NodeID, params protocol.Params, nodes []NodeSends, take func(protocol.Allowance) bool, when string) (judged int, total uint64, bad *Count) {
	for _, n := range nodes {
		counted := map[string]bool{}
		for _, a := range b.Allow(n.ID, members, params, n.Seen) {
			if !take(a) {
				continue
			}
			judged++
			sent := 0
			per := map[protocol.NodeID]int{}
			for _, k := range a.Kinds {
				to := n.Sent[k]
				for _, d := range slices.Sorted(maps.Keys(to)) {
					c := to[d]
					sent += c
					per[d] += c
					if !counted[k] {
						total += uint64(c)
					}
					if a.Only != nil && !slices.Contains(a.Only, d) {
						return judged, total, &Count{Invalid, fmt.Sprintf("node %d sent %s to %d%s, which its budget never allows (only to %s; %s)",
							n.ID, k, d, when, ids(a.Only), b.Formula)}
					}
				}
				counted[k] = true
			}
			kinds := strings.Join(a.Kinds, "+")
			if sent > a.Most {
				return judged, total, &Count{Invalid, fmt.Sprintf("node %d sent %d %s messages%s, over its budget of %d (%s), which holds in this run (%s); the budget: %s",
					n.ID, sent, kinds, when, a.Most, a.Why, conds(a.If), b.Formula)}
			}
			if a.PerPeer <= 0 {
				continue
			}
			for _, d := range slices.Sorted(maps.Keys(per)) {
				if per[d] > a.PerPeer {
					return judged, total, &Count{Invalid, fmt.Sprintf("node %d sent %d %s messages to %d%s, over its budget of %d to any one node (%s), which holds in this run (%s); the budget: %s",
						n.ID, per[d], kinds, d, when, a.PerPeer, a.Why, conds(a.If), b.Formula)}
				}
			}
		}
	}
	return judged, total, nil
}

// conds is describe of c, nil meaning every run.
func conds(c *protocol.Conditions) string {
	if c == nil {
		return "in every run"
	}
	return describe(*c)
}

func ids(l []protocol.NodeID) string {
	if len(l) == 0 {
		return "no node"
	}
	s := make([]string, len(l))
	for i, id := range l {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// Worse returns the more damning of two judgements of one run's counts:
// invalid over valid or unknown, valid over unknown (a bound judged); on
// a tie a, but b when both are invalid (b is the per-node budget, which
// names the node); nil only when both are.
func Worse(a, b *Count) *Count {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case b.Verdict == Invalid:
		return b
	case a.Verdict == Unknown && b.Verdict == Valid:
		return b
	}
	return a
}
