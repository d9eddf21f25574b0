// Package brokentest registers deliberately broken variants of correct
// algorithms, for tests only: each changes one rule of the real code
// (through the seam its package offers for it) so that a check, or a
// search of every order (package explore), has a real bug to find. Their
// names start with "test/"; only tests import this package, so no
// scenario outside a test can name them.
//
// Each variant's own test (a plain simulator run, or a sequence of chosen
// deliveries on a sim.Controller) shows its violation through the checks
// of `trace check` (analysis.Check), and the correct algorithm on the same
// scenario passing them.
package brokentest

import (
	"manetlab/adhoc"
	"manetlab/bully"
	"manetlab/mutex"
	"manetlab/protocol"
	"manetlab/ring"
)

// The registered names of the broken variants.
const (
	// ChangRobertsForwardsSmaller forwards every token but its own: a
	// smaller one too, so every initiator's token comes back and every
	// initiator is elected in one epoch.
	ChangRobertsForwardsSmaller = "test/chang-roberts-forwards-smaller"
	// BullyNoOKWait is the textbook bully whose election declares its node
	// coordinator at once, without asking the higher IDs and waiting for
	// their OK: a lower node that holds an election while a higher one
	// leads takes over the nodes below it for good.
	BullyNoOKWait = "test/bully-no-ok-wait"
	// TokenRingRegenNoGen regenerates a token it has missed for
	// token_timeout at once, as a token like the old one: no election
	// proves the old one dead and no generation tells the two apart, so a
	// section held longer than the timeout lets a second node in.
	TokenRingRegenNoGen = "test/token-ring-regen-no-generation"
	// VasudevanLowerIndex joins any computation but the one it is in or
	// the highest it joined: a lower-indexed one too.
	VasudevanLowerIndex = "test/vasudevan-lower-index"
	// RAEarly is the Ricart-Agrawala that replies to a request at once
	// even while it holds the section, so a requester enters beside it.
	RAEarly = "test/ra-early"
	// HSRelaysPast is the Hirschberg-Sinclair whose probes go one hop past
	// their phase's distance (relayed while hops <= 2^k) before they turn
	// into replies: the right leader, more messages than the algorithm
	// sends (a count-only bug).
	HSRelaysPast = "test/hs-relays-one-hop-past"
	// LamportOneShort is Lamport's mutual exclusion entering with one reply
	// short: a member whose request heads its queue enters while the
	// earlier request of the member that has not replied is still on its
	// way.
	LamportOneShort = "test/lamport-one-reply-short"
	// SKNoLN is the Suzuki-Kasami whose holder never records its request
	// as served in the token's last-served array (LN): the token goes back
	// to members that no longer want it, who refuse it, and the requests
	// after it starve.
	SKNoLN = "test/suzuki-kasami-no-ln-update"
	// BullyKeepsLead is the textbook bully whose leader ignores a higher
	// node's coordinator message: the higher node and the nodes that follow
	// it, and the lower leader, keep two leaders in one component.
	BullyKeepsLead = "test/bully-ignores-higher-coordinator"
	// VasudevanLowerLeader is the tree election whose nodes rank their
	// subtree's best upside down: the computation elects the lowest value.
	VasudevanLowerLeader = "test/vasudevan-lower-leader"
	// RATiesYield is the Ricart-Agrawala that breaks ties of timestamps
	// wrongly: each member takes the other's request of the same timestamp
	// for the earlier one and replies, so both enter.
	RATiesYield = "test/ra-ties-yield"
)

func init() {
	variant(ring.ChangRoberts, ChangRobertsForwardsSmaller,
		"test only: a Chang-Roberts that forwards smaller tokens",
		func(cfg protocol.Config) (protocol.Process, error) {
			return ring.NewChangRobertsRule(cfg, func(self, token protocol.NodeID) bool { return token != self })
		})
	variant(bully.Textbook, BullyNoOKWait,
		"test only: a textbook bully that declares itself coordinator without waiting for an OK",
		func(cfg protocol.Config) (protocol.Process, error) { return bully.NewTextbookRule(cfg, false) })
	variant(mutex.TokenRing, TokenRingRegenNoGen,
		"test only: a token ring that regenerates its token on a timeout, without an election or generations",
		func(cfg protocol.Config) (protocol.Process, error) { return mutex.NewTokenRingRule(cfg, true) })
	variant(adhoc.Name, VasudevanLowerIndex,
		"test only: a Vasudevan-Kurose-Towsley election that joins a lower-indexed computation",
		func(cfg protocol.Config) (protocol.Process, error) {
			return adhoc.NewRule(cfg, func(last, cur, idx adhoc.Index) bool { return idx != last && idx != cur })
		})
	variant(mutex.RicartAgrawala, RAEarly,
		"test only: a Ricart-Agrawala that replies while it holds the section",
		func(cfg protocol.Config) (protocol.Process, error) {
			return mutex.NewRicartAgrawalaRule(cfg, func(holds, earlier bool) bool { return earlier })
		})
	variant(ring.HirschbergSinclair, HSRelaysPast,
		"test only: a Hirschberg-Sinclair that relays a probe one hop past its phase's distance",
		func(cfg protocol.Config) (protocol.Process, error) {
			return ring.NewHirschbergSinclairRule(cfg, func(hops uint32, phase uint8) bool { return uint64(hops) <= 1<<phase })
		})
	variant(mutex.Lamport, LamportOneShort,
		"test only: a Lamport mutual exclusion that enters one reply short",
		func(cfg protocol.Config) (protocol.Process, error) {
			return mutex.NewLamportRule(cfg, func(replies, others int) bool { return replies >= others-1 })
		})
	variant(mutex.SuzukiKasami, SKNoLN,
		"test only: a Suzuki-Kasami that never updates the token's last-served array",
		func(cfg protocol.Config) (protocol.Process, error) { return mutex.NewSuzukiKasamiRule(cfg, false) })
	variant(bully.Textbook, BullyKeepsLead,
		"test only: a textbook bully whose leader ignores a higher coordinator",
		bully.NewTextbookKeepsLead)
	variant(adhoc.Name, VasudevanLowerLeader,
		"test only: a Vasudevan-Kurose-Towsley election that adopts the lower-valued leader",
		func(cfg protocol.Config) (protocol.Process, error) {
			return adhoc.NewRanking(cfg, func(a protocol.NodeID, av float64, b protocol.NodeID, bv float64) bool {
				return protocol.Better(b, bv, a, av)
			})
		})
	variant(mutex.RicartAgrawala, RATiesYield,
		"test only: a Ricart-Agrawala that yields every tie of timestamps",
		func(cfg protocol.Config) (protocol.Process, error) {
			return mutex.NewRicartAgrawalaTies(cfg, func(a, b protocol.NodeID) bool { return false })
		})
}

// variant registers name as the protocol of the registered real one
// (its messages, goal, theory) built by build.
func variant(real, name, summary string, build func(protocol.Config) (protocol.Process, error)) {
	spec, err := protocol.Lookup(real)
	if err != nil {
		panic(err)
	}
	spec.Name, spec.Summary, spec.New = name, summary, build
	protocol.Register(spec)
}
