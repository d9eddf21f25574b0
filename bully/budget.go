package bully

import (
	"fmt"
	"math"

	"manetlab/protocol"
)

// split returns the members below and above id.
func split(id protocol.NodeID, members []protocol.NodeID) (lower, higher []protocol.NodeID) {
	for _, m := range members {
		switch {
		case m < id:
			lower = append(lower, m)
		case m > id:
			higher = append(higher, m)
		}
	}
	return lower, higher
}

// per is "k per cause × c causes".
func per(k int, cause string, c int) string {
	return fmt.Sprintf("%d per %s × %d", k, cause, c)
}

// TextbookBudget is the textbook's per-node message budget (doc.go,
// "Message bounds"): node i with lower IDs L and higher IDs H sends
//
//	election:    only to H; at most |H| per election start it notes, in a run without faults or loss
//	ok:          only to L; at most one per election received
//	coordinator: at most |L| per epoch it leads, and one per election or check received
//	outdated:    at most one per coordinator or check received
//
// (check is the failure detector's period: not bounded).
var TextbookBudget = &protocol.Budget{
	Formula: "election to higher IDs only, ≤ |higher|·starts without faults or loss; ok to lower IDs only, ≤ elections received; " +
		"coordinator ≤ |lower|·epochs led + elections and checks received; outdated ≤ coordinators and checks received",
	Allow: func(id protocol.NodeID, members []protocol.NodeID, _ protocol.Params, s protocol.Seen) []protocol.Allowance {
		lower, higher := split(id, members)
		return []protocol.Allowance{
			{Kinds: []string{KindElection}, Most: math.MaxInt, Only: higher, Why: "to higher IDs only"},
			{Kinds: []string{KindElection}, Most: len(higher) * s.Starts, PerPeer: max(s.Starts, 1),
				Why: per(len(higher), "election start", s.Starts), If: protocol.Faultless},
			{Kinds: []string{KindOK}, Most: s.Got(KindElection), Only: lower, Why: "one per election received"},
			{Kinds: []string{KindCoordinator}, Most: len(lower)*s.Leads + s.Got(KindElection, KindCheck),
				Why: per(len(lower), "epoch led", s.Leads) + " + one per election or check received"},
			{Kinds: []string{KindOutdated}, Most: s.Got(KindCoordinator, KindCheck), Why: "one per coordinator or check received"},
		}
	},
}

// GarciaMolinaBudget is Garcia-Molina's per-node message budget (doc.go,
// "Message bounds"): node i with lower IDs L and higher IDs H sends
//
//	are-you-there: only to H; at most |H| for its first election and for each are-you-there, halt or not-normal received, in a run without faults or loss
//	halt:          only to L; at most |L| per epoch it leads, per halt received (a higher halt calls its own off), per life before the last (a crash may cut one) and for one under way while its notes leave it in an election, as many to any one node
//	new-coordinator, ready: only to L; at most |L| each per epoch it leads
//	not-normal:    at most one per are-you-normal or probe received
//
// (are-you-normal and probe are the failure detectors' periods: not
// bounded).
var GarciaMolinaBudget = &protocol.Budget{
	Formula: "are-you-there to higher IDs only, ≤ |higher|·(1 + are-you-there, halt and not-normal received) without faults or loss; " +
		"halt, new-coordinator, ready to lower IDs only, halt ≤ |lower|·(epochs led + halts received + recoveries + 1 while in an election), new-coordinator and ready ≤ |lower|·epochs led each; " +
		"not-normal ≤ are-you-normal and probes received",
	Allow: func(id protocol.NodeID, members []protocol.NodeID, _ protocol.Params, s protocol.Seen) []protocol.Allowance {
		lower, higher := split(id, members)
		causes := 1 + s.Got(KindAreYouThere, KindHalt, KindNotNormal)
		// Every round of halts (halt()) ends in an epoch led, or is
		// called off by a higher node's halt, or cut by a crash (a
		// recovery follows, or the trace ends in it); the one under way
		// is within an election by the node's notes (halt() notes its
		// start, and only normal() or a Ready ends it, neither of which
		// comes in the halt phase).
		halts := s.Leads + s.Got(KindHalt) + s.Recoveries
		if s.Open {
			halts++
		}
		return []protocol.Allowance{
			{Kinds: []string{KindAreYouThere}, Most: math.MaxInt, Only: higher, Why: "to higher IDs only"},
			{Kinds: []string{KindAreYouThere}, Most: len(higher) * causes,
				Why: per(len(higher), "first election or are-you-there, halt, not-normal received", causes), If: protocol.Faultless},
			{Kinds: []string{KindHalt}, Most: len(lower) * halts, PerPeer: halts, Only: lower,
				Why: per(len(lower), "epoch led, halt received, recovery or round under way", halts)},
			{Kinds: []string{KindNewCoordinator}, Most: len(lower) * s.Leads, Only: lower, Why: per(len(lower), "epoch led", s.Leads)},
			{Kinds: []string{KindReady}, Most: len(lower) * s.Leads, Only: lower, Why: per(len(lower), "epoch led", s.Leads)},
			{Kinds: []string{KindNotNormal}, Most: s.Got(KindAreYouNormal, KindProbe), Why: "one per are-you-normal or probe received"},
		}
	},
}
