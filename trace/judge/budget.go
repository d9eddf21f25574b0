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

// Budget judges every node's messages against the allowances b gives it
// for what its trace shows (protocol.Budget): invalid at the first node
// that sends more of some kinds than its allowance, naming the node, the
// kinds, the count and where the allowance comes from; valid when every
// allowance whose conditions the run meets holds; unknown when the run
// meets none. Nil when b is nil.
func Budget(b *protocol.Budget, members []protocol.NodeID, params protocol.Params, nodes []NodeSends, f Facts) *Count {
	if b == nil || b.Allow == nil {
		return nil
	}
	judged, total := 0, 0
	var unmet []string
	seenUnmet := map[string]bool{}
	for _, n := range nodes {
		counted := map[string]bool{}
		for _, a := range b.Allow(n.ID, members, params, n.Seen) {
			if a.If != nil {
				if u := f.Unmet(*a.If); len(u) > 0 {
					why := fmt.Sprintf("%s not judged: the run had %s", strings.Join(a.Kinds, "+"), strings.Join(u, "; "))
					if !seenUnmet[why] {
						seenUnmet[why] = true
						unmet = append(unmet, why)
					}
					continue
				}
			}
			judged++
			sent, peer, most := 0, protocol.None, 0
			for _, k := range a.Kinds {
				to := n.Sent[k]
				for _, d := range slices.Sorted(maps.Keys(to)) {
					c := to[d]
					sent += c
					if !counted[k] {
						total += c
					}
					if a.Only != nil && !slices.Contains(a.Only, d) {
						return &Count{Invalid, fmt.Sprintf("node %d sent %s to %d, which its budget never allows (only to %s; %s)",
							n.ID, k, d, ids(a.Only), b.Formula)}
					}
				}
			}
			if a.PerPeer > 0 {
				per := map[protocol.NodeID]int{}
				for _, k := range a.Kinds {
					for d, c := range n.Sent[k] {
						per[d] += c
					}
				}
				for _, d := range slices.Sorted(maps.Keys(per)) {
					if per[d] > most {
						peer, most = d, per[d]
					}
				}
			}
			for _, k := range a.Kinds {
				counted[k] = true
			}
			kinds := strings.Join(a.Kinds, "+")
			if sent > a.Most {
				return &Count{Invalid, fmt.Sprintf("node %d sent %d %s messages, over its budget of %d (%s), which holds in this run (%s); the budget: %s",
					n.ID, sent, kinds, a.Most, a.Why, conds(a.If), b.Formula)}
			}
			if a.PerPeer > 0 && most > a.PerPeer {
				return &Count{Invalid, fmt.Sprintf("node %d sent %d %s messages to %d, over its budget of %d to any one node (%s), which holds in this run (%s); the budget: %s",
					n.ID, most, kinds, peer, a.PerPeer, a.Why, conds(a.If), b.Formula)}
			}
		}
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
// invalid over valid or unknown, valid over unknown (a bound judged),
// a over b on a tie; nil only when both are.
func Worse(a, b *Count) *Count {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case b.Verdict == Invalid && a.Verdict != Invalid:
		return b
	case a.Verdict == Unknown && b.Verdict == Valid:
		return b
	}
	return a
}
