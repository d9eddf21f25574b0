package brokentest

import (
	"manetlab/mutex"
	"manetlab/protocol"
	"manetlab/ring"
)

// More one-line bugs of issue 39's classes, written after the first
// ones, to check that the judge's rules (not a list of known bugs) catch
// them: a lower-valued leader on the ring, a starvation by an inverted
// priority, and the count-only sends of the per-request mutual
// exclusion algorithms.
const (
	// ChangRobertsElectsSmallest compares the wrong way: a node forwards
	// the tokens smaller than its own ID, so the smallest is elected.
	ChangRobertsElectsSmallest = "test/chang-roberts-elects-smallest"
	// RAInvertedPriority defers a request unless its own is the earlier
	// one (holds || !earlier): a member that does not want the section
	// defers every request and answers none until it enters itself.
	RAInvertedPriority = "test/ra-inverted-priority"
	// RAReplyTwice, LamportReleaseTwice and SKRequestTwice send every
	// message of one kind twice (count-only).
	RAReplyTwice        = "test/ra-reply-twice"
	LamportReleaseTwice = "test/lamport-release-twice"
	SKRequestTwice      = "test/suzuki-kasami-request-twice"
)

func init() {
	variant(ring.ChangRoberts, ChangRobertsElectsSmallest,
		"test only: a Chang-Roberts that forwards the tokens smaller than its ID",
		func(cfg protocol.Config) (protocol.Process, error) {
			return ring.NewChangRobertsRule(cfg, func(self, token protocol.NodeID) bool { return token < self })
		})
	variant(mutex.RicartAgrawala, RAInvertedPriority,
		"test only: a Ricart-Agrawala that defers every request unless its own is earlier",
		func(cfg protocol.Config) (protocol.Process, error) {
			return mutex.NewRicartAgrawalaRule(cfg, func(holds, earlier bool) bool { return holds || !earlier })
		})
	for _, v := range []struct{ real, name, kind string }{
		{mutex.RicartAgrawala, RAReplyTwice, "reply"},
		{mutex.Lamport, LamportReleaseTwice, "release"},
		{mutex.SuzukiKasami, SKRequestTwice, "request"},
	} {
		sendsTwice(v.real, v.name, v.kind)
	}
}
