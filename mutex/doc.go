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
package mutex
