package mutex

// Lost-token detection and regeneration (protocol.params.regenerate).
//
// A node that has not seen the token for token_timeout suspects it lost.
// With regenerate false (the default, as in seed 002) it notes so once and
// the ring stays without a token. With regenerate true it becomes a
// candidate, if it is not one yet, and starts a Chang-Roberts election
// over the ring: its ID and its candidacy's stamp (when the candidacy
// began) go from successor to successor; a candidate swallows a smaller
// ID, every other node forwards it, raising the generation it carries to
// the highest it has seen; a node that holds the token (waiting to pass
// it, or in the section) swallows every election, the token being alive.
// A candidacy ends when the token reaches the node, or when the node
// hears that the token went past it (passed-over, below). The candidate
// whose election comes back during the candidacy that sent it creates a
// token one generation above every one seen; an election of an earlier
// candidacy comes back stale and dies. Nodes learn generations from
// elections as from tokens, and discard a token older than the newest
// generation they know: a holder that learns of a newer one drops its
// token unless it is in the section.
//
// A node that sends the token past other nodes of the ring tells them
// (passed-over): a node it skips as dead, when it is back (the first
// message it receives from it), and one it goes past only because the
// token keeps to the node it went to last (downstream), at once.
//
// Why a regenerated token never coexists with a live older one.
//
// The assumption: a node that another skips holds no token, never passed
// on one that it did not acknowledge, and never passed the token over a
// live node that has not had its notice yet. The channel gives up only on
// a node that crashed (before acting on what it did not acknowledge), and
// nobody passes a token to a skipped node until it has rejoined. The ring
// needs most of this without regeneration: a live node given up on keeps
// the token that its predecessor sends on to the next, two tokens of one
// generation that no generation number tells apart; and no election can
// do without it, a live node that does not answer looking like a crashed
// one. The token's pass count (tokenMsg.Pass) narrows "never passed on
// one that it did not acknowledge": a node that crashed after passing on
// a token whose acknowledgement was lost leaves a copy in its
// predecessor's channel; the predecessor drops it on the give-up if a
// later pass has come back to it, and a node that has seen a later pass
// discards it (the property scenario with flooding on the DCF medium,
// seed 200: TestTokenRingAckLostBeforeCrash). Under it:
//
//  1. One stream per node. A node sends the token and elections into one
//     FIFO stream: to the node they went to last while it has not
//     acknowledged them all (downstream), and on a give-up what it did not
//     acknowledge goes on, in order, to the next live successor. A
//     message sent after the token goes to the token's next node behind
//     it, or, the token having been acknowledged there already, to the
//     next node that the sender does not skip.
//  2. Let candidate C send election E at time t, and T be a token alive at
//     t (not at C). Measure positions on the ring from C. T is ahead of E,
//     and stays so: when E reaches a node, T is there (E is swallowed),
//     or waits ahead of E in the node's stream, or was delivered farther
//     on; the nodes that the node skips hold no token (the assumption),
//     so E's next node is not beyond T's, and E reaches it after T did.
//     So T reaches C before E does, ending the candidacy that sent E
//     (acquire), or dies with a crashed node, or goes past C: then the
//     node P that sent it past C tells C (passed-over), ending the
//     candidacy, before anything else of P's reaches C. E comes back to C
//     from P, behind the notice, or from a node that skips P, and then C
//     had had the notice (the assumption). In every case but the death, E
//     comes back stale. (Before the notice a recovered node, still
//     skipped by its predecessor, which had not had its rejoin yet,
//     regenerated while the token went round past it and behind its
//     election: TestTokenRingPassedOverRecovered.)
//  3. A token another candidate C' regenerates while E is on its way is
//     created ahead of E, and 2 applies to it. If E had passed C'
//     already, C' forwarded it: either C' was no candidate then, and its
//     elections leave after E and follow it (2, with E in the token's
//     place), so none is back before E; or C' < C, and its elections die
//     at C, a candidate until E is back (Chang-Roberts: a candidate
//     swallows smaller IDs).
//
// So an election that comes back during the candidacy that sent it proves
// that every token alive when it left has died: the regenerated token is
// the only one. The old rule, "regenerate when the own ID comes back and
// still a candidate", took an election of an earlier candidacy for a
// proof: node 6's election waited in node 2's channel to the crashed node
// 4; the token overtook it by going round (it was in node 3's channel to
// the crashed node 5), passed node 6, which became a candidate again
// later, and queued behind it at node 2; on the give-up both went on to
// node 3 in order, the election came back to node 6, which regenerated
// generation 2 and entered, and the generation-1 token let node 3 in
// behind it (the property scenario with AODV, seed 56).
//
// Liveness: once the token has died with a crashed node, no candidacy
// ends but by a passed-over notice (one per node skipped and back), a
// candidacy's elections keep its stamp however many timeouts it waits,
// and the election of the largest candidate goes round (after a give-up
// for each crashed node on its way), so the token comes back.

import (
	"time"

	"manetlab/protocol"
)

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
	if n.recreate {
		n.info("token not seen for %v: recreated at once (generation %d, no election)", n.set.timeout.Round(time.Millisecond), n.gen)
		n.acquire()
		return
	}
	if !n.candidate {
		// A new candidacy: elections of an earlier one, overtaken by the
		// token since, must not come back as proofs of its loss.
		n.candidate = true
		n.since = uint64(n.env.Now())
	}
	n.info("token not seen for %v: election to regenerate it (generation %d seen last)", n.set.timeout.Round(time.Millisecond), n.gen)
	n.forward(tokenMsg{Type: tokenElection, Gen: n.gen, ID: n.id, Stamp: n.since})
}

// election handles a regeneration election's message.
func (n *tokenRing) election(m tokenMsg) {
	if n.has && !n.c.holds() && m.Gen > n.gen {
		// A newer generation exists: the token held here is a stale one.
		n.info("token of generation %d dropped: the election of %d carries generation %d", n.gen, m.ID, m.Gen)
		n.cancelPass()
		n.has = false
	}
	if !n.has && m.Gen > n.gen {
		n.gen, n.passes = m.Gen, 0
	}
	switch {
	case n.has || n.c.holds():
		n.env.Logf("election of %d: the token is here (generation %d), swallowed", m.ID, n.gen)
	case m.ID == n.id:
		if !n.candidate || m.Stamp != n.since {
			// The token came here, or went past, since it left: it
			// lives, or an election of the current candidacy will tell.
			n.info("own election of %v back after its candidacy ended: dropped", time.Duration(m.Stamp))
			return
		}
		n.gen++
		n.passes = 0
		n.info("token regenerated (generation %d): the election went round without meeting a token", n.gen)
		n.acquire()
	case m.ID < n.id && n.candidate:
		// This node's own election, with a larger ID, is going round.
	default:
		m.Gen = n.gen
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

// sendToken sends the token to next, accounting for the nodes it goes
// past with regeneration on: a skipped one is told when it is back, one
// it goes past only because it keeps to the node it went to last is told
// now (tokenPassedOver; step 2 of the argument above).
func (n *tokenRing) sendToken(next protocol.NodeID, m tokenMsg) {
	if n.set.regenerate {
		for x := n.set.ring.Successor(n.id); x != next && x != n.id && x != protocol.None; x = n.set.ring.Successor(x) {
			if n.dead[x] {
				n.passed[x] = true
			} else {
				n.tellPassedOver(x)
			}
		}
	}
	n.send(next, m)
}

func (n *tokenRing) tellPassedOver(x protocol.NodeID) {
	n.send(x, tokenMsg{Type: tokenPassedOver})
}

// passedOver handles the notice that the token went past this node: a
// candidacy ends as if the token had come, so that an election of it,
// which the token may have lapped, comes back stale.
func (n *tokenRing) passedOver(from protocol.NodeID) {
	if n.candidate {
		n.candidate = false
		n.info("node %d passed the token over this node: candidacy of %v ended", from, time.Duration(n.since))
	}
}
