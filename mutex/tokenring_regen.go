package mutex

// Lost-token detection and regeneration (protocol.params.regenerate).
//
// A node that has not seen the token for token_timeout suspects it lost.
// With regenerate false (the default, as in seed 002) it notes so once and
// the ring stays without a token. With regenerate true it starts a
// Chang-Roberts election over the ring: its ID goes from successor to
// successor; a candidate swallows a smaller ID, every other node forwards
// it, raising the generation it carries to the highest it has seen; a node
// that holds the token (waiting to pass it, or in the section) swallows
// every election, the token being alive. The candidate whose ID returns
// creates a token one generation above every one seen.
//
// Why this never makes a second token: elections and the token travel the
// same successor channels, which are FIFO (also when a dead successor is
// skipped: what it did not acknowledge goes on to the next in order), so
// an election never overtakes the token. Going all the way round, it
// either meets the token at a node that holds it, and dies there, or the
// token is ahead of it and reaches the candidate first, which then is no
// candidate any more and drops its returning election. An election comes
// back to a candidate only if no token was on its way: it was lost with a
// crashed node.

import "time"

// watchFired handles token_timeout without the token: a rejoin to the
// predecessor, then the loss noted or an election.
func (n *tokenRing) watchFired() {
	n.armWatch(n.set.timeout)
	if n.has {
		return
	}
	// The token may be going round without this node: its predecessor
	// skips it after giving up on it (a burst of loss, or a crash whose
	// recovery's rejoin arrived before the give-up). Telling the
	// predecessor again puts it back on the ring; one that does not skip
	// it ignores the rejoin.
	n.send(n.predecessor(), tokenMsg{Type: tokenRejoin})
	if !n.set.regenerate {
		if !n.missed {
			n.missed = true
			n.info("token not seen for %v: lost? regeneration is off (protocol.params.regenerate: false), so the ring stays without a token until it turns up",
				n.set.timeout.Round(time.Millisecond))
		}
		return
	}
	n.candidate = true
	n.info("token not seen for %v: election to regenerate it (generation %d seen last)", n.set.timeout.Round(time.Millisecond), n.gen)
	n.forward(tokenMsg{Type: tokenElection, Gen: n.gen, ID: n.id})
}

// election handles a regeneration election's message.
func (n *tokenRing) election(m tokenMsg) {
	switch {
	case n.has || n.c.holds():
		n.env.Logf("election of %d: the token is here (generation %d), swallowed", m.ID, n.gen)
	case m.ID == n.id:
		if !n.candidate {
			return // the token passed here since: it lives
		}
		n.gen = max(n.gen, m.Gen) + 1
		n.info("token regenerated (generation %d): the election went round without meeting a token", n.gen)
		n.acquire()
	case m.ID < n.id && n.candidate:
		// This node's own election, with a larger ID, is going round.
	default:
		m.Gen = max(m.Gen, n.gen)
		n.forward(m)
	}
}

// forward sends an election to the next live successor; alone on the
// ring, this node's own has come back, and another's ends here.
func (n *tokenRing) forward(m tokenMsg) {
	if next := n.downstream(); next != n.id {
		n.send(next, m)
		return
	}
	if m.ID == n.id {
		n.election(m)
	}
}
