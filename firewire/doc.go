// Package firewire holds IEEE 1394 (FireWire) tree identify with root
// contention over the radio (seed 003, "Leader election in the IEEE 1394
// Serial Bus"; the IEEE 1394 section of the project's notes on classic
// algorithms), registered as firewire/tree-identify. Its goal is protocol.GoalTree: one spanning
// tree per connected component, its root the leader, judged by the trace
// checker's tree property (trace/analysis, docs/analysis.md). The package
// imports only protocol and the standard library.
//
// # Algorithm
//
// The topology must be acyclic (a tree per connected component) and
// static. Every node learns its neighbours from neighbour discovery
// (NeighborUp and NeighborDown) during a settle period after Start; at its
// end the neighbours known are the topology, and tree identify starts
// (election-start note):
//
//   - A node that has received a parent request (Request, Env.Send: one
//     hop, acknowledged by the link layer) from every neighbour but one
//     sends its own request to that one. A leaf does at once.
//   - A request from a neighbour this node has not asked is acknowledged
//     at once (Ack, IEEE 1394's CHILD_NOTIFY): the sender is a child for
//     good, since a node only ever asks the one neighbour that has not
//     asked it. The child notes its parent (parent note, Leader = the
//     parent).
//   - A node with requests from every neighbour is root: it notes parent
//     none and itself as leader, and announces itself (Root) to its
//     children, who note the root as leader and pass it on to theirs. The
//     leader notes carry Epoch "tree-ROOT" (Epoch): every component is a
//     tree of its own with its own root.
//   - Root contention: a node that asked its last neighbour and then
//     receives that neighbour's request has crossed requests with it. Both
//     withdraw (no ack; "contention round k" note, k from 1) and wait the
//     short or the long time by a fair coin (Env.Rand). At the end of the
//     wait a node that has received the other's request meanwhile accepts
//     it and is root, the other its child (the seed: "check if there is an
//     incoming parent request and if so accept it and are elected root");
//     otherwise it sends its request again (Contention, round k). When the
//     coins differ, the short waiter asks again and the long waiter finds
//     that request at the end of its wait; when they agree the requests
//     cross again, round k+1. Rounds are geometric with p = 1/2: 2
//     expected (ContentionRounds), variance 2.
//
// The decision to ask or to be root is taken at the end of the gather
// delay after a node gets down to one missing neighbour, by default at the
// end of the current instant (a zero timer runs after the messages already
// due at that instant). IEEE 1394 signals are line states, so a node sees
// requests that arrive together at once; messages arrive one at a time,
// and a node deciding on the first would ask the sender of the second,
// which has asked it already. Without this, every run would end in a
// contention (in the message-passing tree algorithm exactly two
// neighbouring nodes decide: Tel, Introduction to Distributed Algorithms,
// the tree algorithm); with it, nodes that all start together with equal hop delays
// climb from the leaves at one pace, so a tree with one centre (even
// diameter) makes its centre root without contention, and one with two
// centres (odd diameter) makes them contend (configs/firewire.yaml and
// configs/firewire-contention.yaml). With real processes, skew and jitter
// make a contention possible on any tree.
//
// # Cycles
//
// On a cycle no node of it ever gets down to one missing neighbour: tree
// identify stalls. A process cannot see the topology, so it cannot refuse
// one; at stall after settle a node still missing two requests or more
// notes "cyclic topology: no tree identify possible (...)", and one still
// waiting for an ack or for the root notes "tree identify stalled: ...".
// The clear error belongs before the run: CheckAcyclic takes the members
// and the radio links at time 0 and names a cycle; a driver calls it
// before the run and prefixes the scenario file to the error.
//
// # Parameters (protocol.params)
//
//   - settle (3s): from Start to the start of tree identify; a few hello
//     periods (radio.hello.period, 1s by default), so that neighbour
//     discovery has heard every neighbour. A request from a node not yet
//     discovered adds it as a neighbour (one hop proves the link).
//   - gather (0): how long a node that is down to one missing neighbour
//     waits for more requests before it decides (0: the rest of the
//     instant). A larger gather makes contention rarer under jitter.
//   - short (100ms), long (300ms): the two contention waits. long must
//     exceed short, and should by more than two one-hop delays with their
//     link-layer retries (2ms per hop by default, up to 7 retries: 30ms;
//     the two contenders detect the crossing up to one delay apart), so
//     that the short waiter's request reaches the long waiter before its
//     wait ends; with less, differing coins can still cross, which costs
//     rounds, not correctness.
//   - stall (10s): after settle, when a node that has not learnt the root
//     says why (above).
//
// # Message kinds and counts
//
// request (one per node but the root, plus the root's own when it came
// out of a contention: n-1 or n), ack (n-1), root (the announcement, n-1)
// and contention (the requests sent again after a contention: 2R-1 for R
// rounds, 0 without contention). Spec.Complexity classes root as the
// announcement and request and ack as control, so complexity.messages
// counts the contention messages alone, the only count that depends on
// the coins; its bound is their expectation E[2R-1] = 2·2-1 = 3 ("root
// contention: expected 2 rounds with a fair coin, 2R-1 = 3 contention
// requests"). The rounds themselves are in the "contention round k" info
// notes (R = the largest k) and are (complexity.messages+1)/2 on a run
// with a contention, whose tree is the run's only one (a forest has at
// most one contention per tree: one pair of nodes decides in each).
//
// # Message bounds
//
// The contention count is random: R rounds are geometric, unbounded, so
// no count of the run is guaranteed (ExactIf and WorstIf nil). Each
// node's sends are, against what its own trace shows (Spec.Budget,
// budget.go; docs/analysis.md, "Message bounds"), in every run: one
// parent request per life (decide sends it once, in identifying, which a
// node enters once); a contention request per round, each round begun by
// a request or contention received from the parent; an ack to a
// neighbour once per life (asked is set as it goes, and the contention's
// winner acks its peer once, as it becomes root), each after a request or
// contention from it; the root announcement to each child once per life
// (learnRoot to the children known, and to a child asking later), each
// after that child's request.
//
// # Departures from the seed and from IEEE 1394
//
//   - Radio neighbours and a settle period stand for the bus's cabled
//     ports; the topology is frozen at settle. A neighbour that appears or
//     disappears later is noted ("topology changed after settle"), not
//     acted on: IEEE 1394 would reset the bus and identify again; here the
//     run lies outside the assumptions (static, acyclic, no failures:
//     Complexity.Assumes "no failures", so runs with crashes are judged
//     unknown).
//   - Requests and acks are messages, not line states; the gather delay
//     stands in for seeing simultaneous requests together (above).
//   - The waits are 100ms and 300ms rather than IEEE 1394's fractions of
//     a microsecond, to exceed radio hop delays.
//   - The root announcement (and leader notes) stand for what IEEE 1394
//     does next (self identify), so that every node knows the root.
//   - Seed and classic.md: classic.md says the contenders "wait a random
//     short or long time, and retry"; the seed says that after the wait
//     each checks for an incoming request and accepts it, being elected
//     root, and sends its own again only if there is none. This follows
//     the seed; the fair coin between short and long is classic.md's (the
//     seed says only "a random amount of time").
package firewire
