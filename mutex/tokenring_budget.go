package mutex

import "manetlab/protocol"

// tokenBudget is the token ring's per-node message budget (doc.go,
// "Message bounds"). The token's messages per entry are unbounded (with
// no request it keeps going round), so the bound is per cause: in a run
// without faults or loss (no channel gives up, so no node is skipped) a
// node sends
//
//	token:       at most one per token or election received (it passes each token it takes on once, and a regenerated token follows its own election's return), and one more for the token the ring's first member creates
//	passed-over: none (it goes only to nodes skipped, or passed over while the token keeps to a skipped node's stream)
//
// (elections and rejoins follow the token timeout's periods: not
// bounded).
var tokenBudget = &protocol.Budget{
	Formula: "token ≤ tokens and elections received + 1 (the first token), passed-over none, without faults or loss",
	Allow: func(_ protocol.NodeID, _ []protocol.NodeID, _ protocol.Params, s protocol.Seen) []protocol.Allowance {
		return []protocol.Allowance{
			{Kinds: []string{tokenKindToken}, Most: s.Got(tokenKindToken, tokenKindElection) + 1,
				Why: "one per token or election received, and the first token", If: protocol.Faultless},
			{Kinds: []string{tokenKindPassed}, Most: 0, Why: "no node skipped", If: protocol.Faultless},
		}
	},
}
