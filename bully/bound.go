package bully

import (
	"fmt"
	"slices"

	"manetlab/protocol"
)

// Counts are the messages of one election that follows the failure of the
// highest member, by class.
type Counts struct {
	Election int // textbook: election and ok; Garcia-Molina: are-you-there and halt
	Announce int // textbook: coordinator; Garcia-Molina: new-coordinator and ready
}

// DetectionCounts is the theory of one detection of the highest member's
// failure among n members (IDs ranked 1..n, node n down, every other node
// up, reachable and following n or nobody), when the first node to start
// an election has rank r (1 the lowest, n-1 the second highest) and no
// other node starts one on its own. Let m = n-r, the nodes from r up to
// n-1. Every one of them holds one election: node r because it detected,
// the others because an election of a lower node reached them before the
// new coordinator was known (they all receive r's), and none twice, since
// an electing or waiting node only answers. Node i sends one election
// message (are-you-there) to each of the n-i higher IDs, n among them:
// m(m+1)/2 in all. Textbook: every election message to a live node gets an
// OK, m(m-1)/2; node n-1 gets none, and after timeout sends coordinator to
// the n-2 lower IDs. Garcia-Molina: the answers are the channel's
// acknowledgements (transport); node n-1 halts the n-2 lower IDs, and
// sends new-coordinator and then ready to the n-2 that answered. So
//
//	textbook:      m² election messages (m(m+1)/2 election + m(m-1)/2 ok), n-2 coordinator
//	Garcia-Molina: m(m+1)/2 + n-2 election messages (are-you-there + halt), 2(n-2) announcement
//
// Best case, the second highest detects (m = 1): 1 election message (to
// the dead highest; the textbook's "n-2 messages" counts the coordinator
// messages only) and n-2 coordinator; Garcia-Molina n-1 and 2(n-2). Worst
// case, the lowest detects (m = n-1): textbook (n-1)² = n(n-1)/2 election +
// (n-1)(n-2)/2 ok, Garcia-Molina n(n-1)/2 + n-2. The counts do not depend
// on timing as long as timeout exceeds the time an election message takes
// to reach the higher IDs and the cascade to run (milliseconds): then
// node n-1 is still waiting for the dead node's answer when the last
// election message reaches it. Failure-detector traffic (check, outdated;
// are-you-normal, not-normal, probe) is control, and acknowledgements and
// retransmissions are transport: neither is counted here.
func DetectionCounts(form string, n, r int) Counts {
	if n < 2 || r < 1 || r >= n {
		return Counts{}
	}
	m := n - r
	if form == Textbook {
		return Counts{Election: m * m, Announce: n - 2}
	}
	return Counts{Election: m*(m+1)/2 + n - 2, Announce: 2 * (n - 2)}
}

// boundFunc is the Complexity.Bound of a form: the theory of one detection
// of the highest member's failure, whose detector is the lowest initiator
// (the scenario: the highest member is down before the initiators start,
// and the initiators, "one" the lowest, play the detectors). The value and
// the worst case are the lowest's detection, the best the second
// highest's; Exact is for this run's lowest initiator. A run whose highest
// member lives, or that crashes it later, or adds crashes, recoveries or
// partitions, holds other elections and differs.
func boundFunc(form string) func([]protocol.NodeID, protocol.Params, uint64) (protocol.Bound, error) {
	return func(members []protocol.NodeID, params protocol.Params, _ uint64) (protocol.Bound, error) {
		s, err := parse(form, params, members)
		if err != nil {
			return protocol.Bound{}, err
		}
		n := len(members)
		r := 1
		if len(s.initiators) > 0 {
			i, _ := slices.BinarySearch(members, s.initiators[0])
			r = i + 1
		}
		b := protocol.Bound{}
		worst, best := DetectionCounts(form, n, 1), DetectionCounts(form, n, n-1)
		if form == Textbook {
			b.Formula = "(n-1)^2"
			b.Name = "textbook bully, one election after the highest ID failed: (n-r)² election and ok messages when the node of rank r detects it " +
				"(and n-2 coordinator); best 1 (the second highest), worst (n-1)² (the lowest)"
		} else {
			b.Formula = "n(n-1)/2+n-2"
			b.Name = "Garcia-Molina bully, one election after the highest ID failed: (n-r)(n-r+1)/2 are-you-there + n-2 halt when the node of rank r detects it " +
				"(and 2(n-2) new-coordinator and ready); best n-1 (the second highest), worst n(n-1)/2+n-2 (the lowest)"
		}
		b.Value = float64(worst.Election)
		b.Best, b.Worst = intp(best.Election), intp(worst.Election)
		if r < n {
			b.Exact = intp(DetectionCounts(form, n, r).Election)
			b.Name += fmt.Sprintf("; this run: node %d (rank %d of %d) detects", members[r-1], r, n)
		} else {
			b.Name += fmt.Sprintf("; this run's first initiator is the highest ID %d: no detection to count", members[r-1])
		}
		return b, nil
	}
}

func intp(v int) *int { return &v }
