package mutex

import (
	"fmt"

	"manetlab/protocol"
)

// The per-request algorithms' per-node budgets (Spec.Budget; doc.go,
// "Message bounds"): beside the run's total against PerEntry's most ×
// requests, each node's sends against its own requests and what it
// received, so that an extra send names the node. In every run: a node
// starts each request it notes once (the client notes every request
// command, queued or not, and ask runs once per request), sending one
// request to each other member (Suzuki-Kasami: none when it holds the
// token); it answers each request received with one reply, now or on
// release (Ricart-Agrawala, Lamport); Lamport's release goes to each
// other member once per request; Suzuki-Kasami's token leaves a node once
// for each time it came, and once more from the first member, which
// creates it.

// perRequest is the budget of an algorithm that sends kinds to every
// other member once per request, and answers each request received with
// one reply (reply "": none).
func perRequest(formula, reply string, kinds ...string) *protocol.Budget {
	return &protocol.Budget{
		Formula: formula,
		Allow: func(_ protocol.NodeID, members []protocol.NodeID, _ protocol.Params, s protocol.Seen) []protocol.Allowance {
			n := len(members)
			var out []protocol.Allowance
			for _, k := range kinds {
				out = append(out, protocol.Allowance{Kinds: []string{k}, Most: (n - 1) * s.Requests, PerPeer: max(s.Requests, 1),
					Why: fmt.Sprintf("%d per request × %d requests, one to each member per request", n-1, s.Requests)})
			}
			if reply != "" {
				out = append(out, protocol.Allowance{Kinds: []string{reply}, Most: s.Got("request"), Why: "one per request received"})
			}
			return out
		},
	}
}

var (
	raBudget      = perRequest("request ≤ (n-1)·requests (one to each member per request); reply ≤ requests received", "reply", "request")
	lamportBudget = perRequest("request and release ≤ (n-1)·requests each (one to each member per request); reply ≤ requests received", "reply", "request", "release")
	skBudget      = &protocol.Budget{
		Formula: "request ≤ (n-1)·requests (one to each member per request); token ≤ tokens received + 1 (the first member creates it)",
		Allow: func(id protocol.NodeID, members []protocol.NodeID, p protocol.Params, s protocol.Seen) []protocol.Allowance {
			out := perRequest("", "", "request").Allow(id, members, p, s)
			return append(out, protocol.Allowance{Kinds: []string{"token"}, Most: s.Got("token") + 1,
				Why: "one per token received, and the first"})
		},
	}
)
