// Package bully holds the bully elections: two registered protocols in
// which the highest live ID bullies the others into following it
// (protocol.GoalHighestID: once faults stop, every live node of a
// connected component follows the highest live ID of that component).
//
// Both forms know every member (protocol.Config.Members) and send any to
// any over one reliable FIFO channel per node (package protocol/reliable
// over Env.Deliver, multi-hop), so loss is repaired, and acknowledgements
// and retransmissions are counted apart as transport kinds. Failures are
// detected by timeouts: the channel reports a peer unreachable when it
// stops acknowledging (rto·(2^(retries+1)-1), 12.6 s with the defaults),
// and the algorithms' own timers bound the waits for answers. A member
// whose peer is unreachable skips it, so in a partitioned network each
// component elects its own highest ID, and when components meet the
// lower coordinator's probe (textbook) or Check (Garcia-Molina) reaches a
// higher node, which takes over.
//
// Epochs. Every coordinator numbers its epoch above every election number
// it has seen (messages carry them), and keeps the highest in stable
// storage (protocol.Config.Store), so its numbers never repeat, even
// across crashes. Leader notes carry the epoch as "leader.number" (the
// invitation algorithm's "coordinator.counter"): the checker's rule, at
// most one leader per epoch, holds by construction. A node's epochs grow
// (by number, ties to the higher leader) with every election it takes
// part in, except under Garcia-Molina when a coordinator that has not
// heard of a later number halts it (the halt decides, not the number).
// The package imports only protocol, protocol/reliable and the standard
// library, and iterates no map to decide what to send.
//
// # bully/textbook (seeds 000, 002, 004; the guarded commands of seed 000)
//
// States: idle (following a leader, or none yet), wait_reply (electing:
// elections sent, waiting for an OK), wait_leader (an OK came, waiting for
// the coordinator). Messages: election (to every higher ID), ok (the
// answer of a live higher node; "reply" in seed 000), coordinator (to
// every lower ID), and for failure detection check and outdated.
//
// A node that starts an election (an initiator at start, a detector that
// lost its leader, a recovered node, an elect command) sends election to
// every higher ID and waits timeout. A live higher node answers OK and
// holds its own election, unless it is electing or waiting already (then
// it only answers). An OK, or the channel's acknowledgement of the
// election (the node received it, so it lives), makes the sender wait
// leader-timeout for the coordinator, and start again if none comes
// (guarded command 6). With no answer in time the node is the coordinator:
// it numbers the epoch and sends coordinator to every lower ID. A
// recovered node (a fresh process; stable storage tells it from a first
// boot) starts an election at once, so a recovered higher node bullies its
// way back. Detectors check their coordinator every check period; the
// channel's acknowledgement is the answer, and an unreachable coordinator
// is suspected (an info note; the leader note stands until an election
// names another, as L(i) in seed 000) and an election follows.
//
// # bully/garcia-molina (seed 003, Garcia-Molina 1982)
//
// States (S.s): Down (booted and not yet in a group, or recovered: the
// state vector in stable storage says it ran before, so it knows it was
// down, Assumption 4), Election (halted by S.h, or halting as the
// candidate), Reorganization (the coordinator S.c known, the task not yet
// given), Normal. The state vector (s, c, h, the epoch's number d — the
// task Ready distributes —, the counter, Up) is read at Start and written
// on every state change (StateKey). Messages: are-you-there (to every
// higher ID), halt (to every lower ID), new-coordinator and ready (to Up),
// and for failure detection are-you-normal (the coordinator's Check),
// not-normal (the answer "no") and probe (a member's Timeout asking its
// coordinator AreYouThere). A call's answer is the channel's
// acknowledgement (Assumption 8: no acknowledgement in time means the
// node failed).
//
// Election: AreYouThere to the higher IDs; if one answers within timeout
// the node gives up (a higher one takes over); otherwise it halts the
// lower IDs, takes those that answered within timeout as Up, numbers the
// epoch, becomes Reorganization as coordinator, sends NewCoordinator to Up
// and, once all answered, Ready, and once all answered again, goes Normal.
// A node of Up that never answers (the channel gives up) makes it start
// the election again. A halted node takes NewCoordinator only from S.h and
// Ready only from S.c. Check: the coordinator in Normal asks every other
// member AreYouNormal every check period, and one that is not Normal in
// its epoch makes it start an election. Timeout: a member that heard
// nothing from its coordinator for leader-timeout probes it (a detector);
// an unreachable coordinator, or one that answers not-normal, makes it
// start an election; a node left halted, Down, or waiting for a higher
// node that answered, that long starts one too. Recovery: a recovered node
// starts an election.
//
// # Counts (Spec.Complexity, DetectionCounts)
//
// Classes: textbook — election messages election and ok, announcement
// coordinator, control check and outdated; Garcia-Molina — election
// messages are-you-there and halt, announcement new-coordinator and ready,
// control are-you-normal, not-normal and probe. The theory is one
// election after the highest of n members failed, first noticed by the
// node of rank r (1 the lowest); with m = n-r, every node from r to n-1
// holds one election (the detector, and the others because a lower one's
// election reached them first), and node i sends n-i election messages:
//
//	textbook:      m² = m(m+1)/2 election + m(m-1)/2 ok; n-2 coordinator
//	Garcia-Molina: m(m+1)/2 are-you-there + n-2 halt;   2(n-2) new-coordinator and ready
//
// Best case, the second highest notices (m = 1): textbook 1 election (to
// the dead highest) and n-2 coordinator, the seeds' "n-2 messages" being
// the coordinator messages; Garcia-Molina n-1 and 2(n-2). Worst case, the
// lowest notices (m = n-1): textbook (n-1)² = n(n-1)/2 election +
// (n-1)(n-2)/2 ok, Garcia-Molina n(n-1)/2 + n-2. The counts do not depend
// on timing as long as timeout exceeds the few milliseconds the cascade of
// elections takes (node n-1 still waits for the dead node's answer when
// the last election reaches it). The Bound (its Name says so) is this
// theory with the run's lowest initiator as the detector: Value and Worst
// the lowest's, Best the second highest's, Exact this run's — exact for
// the scenario "the highest member is down before the first election, the
// initiators notice it" (check 0 or not: checks are control). A run whose
// highest member lives, or that adds crashes, recoveries, partitions or
// false suspicions (loss beyond what the timeouts absorb), holds other
// elections and differs; seed 000's O(n³) worst case is successive
// coordinators-elect failing, each failure costing another such election.
//
// # Message bounds
//
// The Bound describes one detection, a scenario, and guarantees nothing
// of a run as a formula of n (ExactIf and WorstIf nil): how many
// elections a run holds depends on its faults, on the detectors and on
// timing (textbook, fault-free and static: 12-14 election messages at
// n=4, 186-340 at n=12, against n(n-1) = 132). The guarantee is per cause
// instead (Spec.Budget, budget.go: TextbookBudget, GarciaMolinaBudget;
// docs/analysis.md, "Message bounds"), each node's sends against what its
// own trace shows, causes before effects, so that the budget holds at
// every instant of a run:
//
//   - textbook election: elect sends one election to each higher ID and
//     notes an election start unless one is noted already; it is called
//     again within one noted election only when the wait for the
//     coordinator times out after an OK, which a run without faults or
//     loss does not see (the coordinator's message follows the OK). So
//     election ≤ |higher|·starts there, never to a lower ID in any run.
//   - textbook ok answers each election received, from a lower ID;
//     coordinator goes to the lower IDs once per epoch led (a new number,
//     a leader note each time), and again to one sender per election or
//     check received; outdated answers one coordinator or check.
//   - Garcia-Molina are-you-there goes to the higher IDs when the
//     election starts at boot and after an are-you-there, halt or
//     not-normal received, in a run without faults or loss (the other
//     causes, the channel's give-up and the Timeout of a node that a
//     higher one answered, need one or the other). halt goes to the lower
//     IDs once per halt procedure, which ends in an epoch led, is called
//     off by a higher node's halt, or is cut by a crash (a recovery
//     follows, or the trace ends); the one under way is inside an
//     election by the node's own notes (halt notes the start; only the
//     end of the epoch's setup or a Ready ends it, neither in the halt
//     phase), so a node judged when its notes say no election is under
//     way has none in hand; new-coordinator and ready go once per epoch led
//     to the nodes below that answered; not-normal answers one
//     are-you-normal or probe.
//
// The failure detectors' checks (check, are-you-normal, probe) follow
// the check period and are not bounded. A received message counts for a
// peer no more often than the peer's trace shows it sent one (a
// retransmission may carry any kind). A leader that ignores a higher
// coordinator is caught by the leader properties, not by the counts.
//
// # Parameters (protocol.params)
//
//   - initiators: all (default), one (the lowest ID) or a list of member
//     IDs: who starts the first election, start after Start. A member no
//     election reached by start + leader-timeout starts one itself.
//   - detectors: all (default), one or a list: who watches its coordinator
//     (textbook: a check every check period; Garcia-Molina: the Timeout's
//     probe). A coordinator that is not the highest member probes the
//     higher IDs (textbook) and checks every member (Garcia-Molina)
//     whatever this says.
//   - start: 1s, so that every process of a real run is up.
//   - timeout: how long an election waits for answers from higher IDs (and
//     Garcia-Molina's halt for answers from lower ones): 10·rto plus the
//     wait for a route (protocol.Config.RouteDelay: 2 s under flooding,
//     3.92 s under AODV at its defaults), at least 2·rto. On a lossy
//     multi-hop network a shorter one takes a live node's answer, delayed
//     by retransmissions or a route discovery, for silence, and a lower
//     node wins for a while; one below the route delay plus rto draws a
//     warning.
//   - leader-timeout: textbook, how long a node waits for the coordinator
//     after an OK, 3·timeout (6 s under flooding, 11.76 s under AODV);
//     Garcia-Molina, the Timeout procedure, 2·check + timeout (6 s, 7.92
//     s; 3·timeout with check 0); longer than timeout.
//   - check: the failure detectors' period, 2s; 0 turns failure detection
//     off (only elect commands, recoveries and initiators start elections).
//   - rto, retries: the reliable channel (reliable.ParamsConfig: 200ms
//     doubling, 5 retries). rto must exceed a round trip, 2·hops·radio.delay
//     plus up to 1 ms of relay jitter per hop (2 ms per hop by default: 200
//     ms covers the 32-hop limit); a protocol cannot see radio.delay, so
//     this is not checked, but timeout ≥ 2·rto is.
//
// Unknown parameters and bad values are refused with the field's name.
// The elect command starts an election at the node that receives it.
//
// # Departures from the seeds
//
//   - Announcements go to the lower IDs only (the brief, the seeds' n-2
//     best case); seed 000's guarded command 4 sends the leader message to
//     every higher ID (its prose, seeds 002 and 004: to all).
//   - A node answers an election in every state (seeds 002, 004); seed
//     000's guarded command 2 answers only when idle.
//   - Textbook: a coordinator answers a lower node's election with OK and,
//     when the sender needs it, its coordinator message again, rather than
//     holding an election that it would win at once; every election it
//     receives would otherwise cost n-1 announcements.
//   - Textbook, for lossy, partitioned networks: the channel's
//     acknowledgement of an election counts as the OK; a coordinator
//     message of an epoch not after the one followed is answered outdated
//     (the coordinator announces again, above it); a coordinator from a
//     lower ID makes the receiver hold an election; a coordinator that is
//     not the highest member probes the higher IDs every check period, and
//     a higher node that receives a probe takes over; a check of a node
//     that no longer leads is answered outdated.
//   - Garcia-Molina: AreYouThere from a lower node's election makes the
//     receiver hold its own election (unless it is electing, halted by a
//     higher node, or gave up for one), as the textbook does; in the seed
//     the receiver only answers and the higher nodes wait for their own
//     Timeout. It makes one detection enough and the worst case the
//     textbook's. A Halt from a lower ID is refused and answered with an
//     election. NewCoordinator goes to all of Up, then Ready to all, as the
//     seed's prose has it (its listing interleaves them node by node).
//     AreYouNormal's "yes" is the acknowledgement, its "no" a message that
//     names the epoch asked about, so that a stale Check is not answered.
//   - Both: a suspected coordinator stays the noted leader until an
//     election names another (a false suspicion costs no leader change);
//     a node's answer timeout is a parameter with a default scaled to the
//     channel, not a fixed bound on message delay (the seeds assume a
//     synchronous system: seed 004, "safety is broken if too tight
//     deadline").
package bully
