package invitation

import (
	"fmt"

	"manetlab/protocol"
)

// Budget is the invitation election's per-node message budget (doc.go,
// "Message bounds"), in every run: with n members, a node sends
//
//	invitation:   at most n-1 per election it starts (a Merge invites the coordinators found and its members; a coordinator that accepts passes the invitation on to its members), at most one to any node per start
//	accept:       at most one per invitation received
//	ready:        at most n-1 per group it leads (its Reorganization), at most one to any node per group
//	replies:      coordinator-reply, there-reply and accept-reply at most one per are-you-coordinator, are-you-there and accept received
//
// (are-you-coordinator and are-you-there follow the Check and probe
// periods: not bounded).
var Budget = &protocol.Budget{
	Formula: "invitation ≤ (n-1)·election starts, accept ≤ invitations received, ready ≤ (n-1)·groups led, each reply ≤ its question received",
	Allow: func(_ protocol.NodeID, members []protocol.NodeID, _ protocol.Params, s protocol.Seen) []protocol.Allowance {
		n := len(members)
		return []protocol.Allowance{
			{Kinds: []string{KindInvitation}, Most: (n - 1) * s.Starts, PerPeer: max(s.Starts, 1),
				Why: fmt.Sprintf("%d per election start × %d", n-1, s.Starts)},
			{Kinds: []string{KindAccept}, Most: s.Got(KindInvitation), Why: "one per invitation received"},
			{Kinds: []string{KindReady}, Most: (n - 1) * s.Leads, PerPeer: max(s.Leads, 1),
				Why: fmt.Sprintf("%d per group led × %d", n-1, s.Leads)},
			{Kinds: []string{KindCoordinatorReply}, Most: s.Got(KindAreYouCoordinator), Why: "one per are-you-coordinator received"},
			{Kinds: []string{KindThereReply}, Most: s.Got(KindAreYouThere), Why: "one per are-you-there received"},
			{Kinds: []string{KindAcceptReply}, Most: s.Got(KindAccept), Why: "one per accept received"},
		}
	},
}
