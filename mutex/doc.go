// Package mutex holds the mutual exclusion algorithms of seed 002 and the
// course of seed 004: centralized (a coordinator chosen by an election the
// protocol embeds), Ricart-Agrawala, token ring, Lamport and Suzuki-Kasami,
// registered as mutex/<name>.
//
// Every algorithm takes the workload's Request and Release commands
// through the client bookkeeping in client.go, which notes cs-request,
// cs-enter and cs-exit in the trace the same way for all of them, so that
// the checker and the metrics compare like with like.
//
// It is a protocol family: it imports protocol and the protocol-side
// pieces beneath it (protocol/reliable, protocol/logicalring) and, for the
// centralized algorithm's coordinator, the election families it embeds.
//
// # Message bounds (Spec.Mutex: PerEntry's most under HiIf)
//
// Without faults and with nothing lost (protocol.Faultless), every
// request costs at most PerEntry's most, whatever the order of events:
// Ricart-Agrawala sends n-1 requests and gets n-1 replies, one per
// member, deferred or not: 2(n-1); Lamport adds a release to each: 3(n-1);
// Suzuki-Kasami sends n-1 requests and receives the token once, or
// nothing when it holds the token: n or 0; the centralized algorithm a
// request, a grant and a release: 3 (0 at the coordinator), its liveness
// checks of a long hold apart (MutexCost.Unbounded). A request waiting at
// the end has sent at most as much. The judge (trace/judge) holds a run's
// messages to most × requests (granted, waiting or abandoned); over is
// invalid. The token ring declares no most per request: its token
// circulates whether or not anyone asks. Its bound is per cause
// (Spec.Budget, tokenring_budget.go; docs/analysis.md, "Message bounds"):
// without faults or loss no channel gives up, so no node is skipped, and
// a node passes on each token it takes once (acquire, then passOn, which
// clears has), a token being taken only on a token received, on its own
// election's return (a regeneration) or, at the ring's first member, at
// the start: token ≤ tokens and elections received + 1; passed-over goes
// only to skipped nodes or past them: none.
package mutex
