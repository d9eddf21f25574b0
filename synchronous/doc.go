// Package synchronous holds the synchronous algorithms of seeds 000 and
// 001, written against the round contract of protocol/rounds: each is a
// rounds.Family (TimeSlice, SlowFast, BFS; Families lists them) that the
// synchronizers (simple, alpha, beta, abd, none) turn into an ordinary
// protocol, registered as sync/timeslice, sync/slow-fast and sync/bfs.
// The algorithms see rounds only: no time, acknowledgements or loss; every
// figure here is in rounds and algorithm messages, the same over every
// synchronizer and in rounds.RunLockstep, the reference the tests use.
//
// # Algorithms
//
// sync/timeslice — TimeSlice (seed 001), on the logical ring. n is known;
// phases of n rounds; the node with ID k starts the only token in phase k
// (phases numbered from 0 as in the seed, or from 1 with first_phase: 1);
// the smallest ID wins (protocol.GoalLowestID): exactly n messages and
// exactly (m+1)·n rounds for the smallest ID m (m·n from phase 1).
//
// sync/slow-fast — the variable-speeds algorithm (seed 001), on the
// logical ring, uniform, with wake-ups at different rounds: active nodes
// send their ID fast; a message read by an active node turns slow, one
// edge every 2^ID rounds; relays never compete; the smallest active ID
// wins (SlowFastActive lists the active nodes), then announces itself once
// round the ring so that every node halts. Rounds exact (SlowFastTheory);
// election messages at most 5n (seed 001), plus n announcements.
//
// sync/bfs — the BFS tree (seed 000), on the radio graph at the start:
// invitations from the root (protocol.params.root, the lowest member by
// default); a node adopts its first inviter and invites its other
// neighbours. Parent notes carry "depth D" (DepthText), which the checker's
// bfs-depth property compares with hop distances. Exact counts from the
// graph: BFSTheory.
//
// # Parameters (protocol.params, beside the synchronizer's own)
//
//   - first_phase (TimeSlice): 0 (default, seed 001's numbering) or 1.
//   - root (BFS): a member; default the lowest.
//
// The ring (ring), the wake rounds (wake) and the synchronizer's keys are
// the framework's. Every algorithm treats an unknown or damaged message as
// absent, and a message type of another algorithm likewise.
//
// # Message kinds
//
// token (TimeSlice); fast, slow (slow-fast's election) and elected (its
// announcement); invite (BFS). One struct, Msg, carries them all.
//
// # Message bounds (Theory's Messages: ExactIf, WorstIf)
//
// M_S, the algorithm's messages as the round notes count them, does not
// depend on how the synchronizer carries them: round by round the
// algorithm runs as on a synchronous network, so only a crash or a
// recovery (protocol.NoFaults) changes it. TimeSlice: the token goes
// once round the ring, exactly n. Slow-fast: exactly 2n with one active
// node (its ID once round, the announcement once round), at most 5n + n
// (seed 001) in any case. BFS: every invited node invites its neighbours
// but its parent, exactly 2|E|-(n-1) on the graph the sync notes give,
// as long as no node moves (the graph of the start stays the graph); at
// most (n-1)² on any graph (the root n-1, every other node n-2). The
// judge (trace/judge) holds M_S to them.
//
// The package imports only protocol and protocol/rounds.
package synchronous
