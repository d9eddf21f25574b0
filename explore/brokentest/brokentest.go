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
