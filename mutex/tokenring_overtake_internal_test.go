package mutex

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

// TestTokenRingElectionOvertakenByToken builds, on the ascending ring 1, 2,
// 3, 4, the interleaving of the property scenario with AODV, seed 56: node
// 4's election waits in node 2's channel to the crashed node 3; the live
// token goes round, passes node 4 and queues behind the election; node 4
// becomes a candidate again; on the give-up node 2 sends both on to node 4
// in order. The election that comes back belongs to a candidacy the token
// ended: node 4 drops it and enters with the token that follows, instead
// of regenerating generation 2 and entering beside it.
func TestTokenRingElectionOvertakenByToken(t *testing.T) {
	params := func() protocol.Params {
		return protocol.Params{"ring": "ascending", "regenerate": true, "retries": 0}
	}
	n2, env2 := newTokenNode(t, 2, params())
	n4, env4 := newTokenNode(t, 4, params())
	from1 := &coordDeliverer[tokenMsg]{from: 1}

	// Node 4 misses the token at 1s: its election goes to 1, which
	// forwards it to 2, which forwards it to 3 (crashed: no ack).
	env4.now = time.Second
	n4.watchFired()
	var e1 tokenMsg
	for _, s := range coordAlgorithm[tokenMsg](env4) {
		if m := s.m.(tokenMsg); m.Type == tokenElection {
			e1 = m
		}
	}
	if e1.ID != 4 || e1.Stamp != uint64(time.Second) {
		t.Fatalf("node 4's election %+v; want ID 4 stamped 1s", e1)
	}
	n2.Step(from1.data(e1))
	chanTo3 := env2.timer // the channel's retransmission timer for node 3
	if out := coordAlgorithm[tokenMsg](env2); len(out) != 1 || out[0].to != 3 || out[0].m.(tokenMsg) != e1 {
		t.Fatalf("node 2 sent %+v; want node 4's election to 3", out)
	}

	// The token, delayed elsewhere, reaches node 4 (the candidacy ends),
	// goes on to 1 and 2, and queues behind the election to 3.
	n4.Step((&coordDeliverer[tokenMsg]{from: 3}).data(tokenMsg{Type: tokenToken, Gen: 1, Pass: 3}))
	if !n4.has || n4.candidate {
		t.Fatalf("node 4 with the token: has %v, candidate %v", n4.has, n4.candidate)
	}
	n4.Step(protocol.Timeout{ID: n4.pass, Name: tokenTimerPass})
	coordAlgorithm[tokenMsg](env4)
	n2.Step(from1.data(tokenMsg{Type: tokenToken, Gen: 1, Pass: 5}))
	n2.Step(protocol.Timeout{ID: n2.pass, Name: tokenTimerPass})
	if out := coordAlgorithm[tokenMsg](env2); len(out) != 1 || out[0].to != 3 || out[0].m.(tokenMsg).Type != tokenToken {
		t.Fatalf("node 2 sent %+v; want the token to 3, behind the election", out)
	}

	// Node 4 misses the token again at 5s: a new candidacy. It wants the
	// section.
	env4.now = 5 * time.Second
	n4.watchFired()
	coordAlgorithm[tokenMsg](env4)
	if !n4.candidate || n4.since != uint64(5*time.Second) {
		t.Fatalf("node 4 candidate %v since %v; want a candidacy of 5s", n4.candidate, time.Duration(n4.since))
	}
	n4.Step(protocol.Command{Name: protocol.Request})

	// Node 2 gives up on 3: the election, then the token, go to 4.
	n2.Step(protocol.Timeout{ID: chanTo3, Name: tokenTimerChan, Arg: 3})
	out := coordAlgorithm[tokenMsg](env2)
	if len(out) != 2 || out[0].to != 4 || out[0].m.(tokenMsg) != e1 || out[1].to != 4 || out[1].m.(tokenMsg) != (tokenMsg{Type: tokenToken, Gen: 1, Pass: 6}) {
		t.Fatalf("node 2 after the give-up sent %+v; want node 4's election, then the token, to 4", out)
	}
	from2 := &coordDeliverer[tokenMsg]{from: 2}
	n4.Step(from2.data(out[0].m.(tokenMsg)))
	if n4.has || n4.gen != 1 || env4.count(protocol.NoteCSEnter) != 0 {
		t.Fatalf("node 4 regenerated on the election of its earlier candidacy: has %v, generation %d, entries %d", n4.has, n4.gen, env4.count(protocol.NoteCSEnter))
	}
	stale := false
	for _, x := range env4.notes {
		stale = stale || strings.Contains(x.Text, "own election of 1s back after its candidacy ended: dropped")
	}
	if !stale {
		t.Errorf("no note of the stale election: %+v", env4.notes)
	}
	n4.Step(from2.data(out[1].m.(tokenMsg)))
	if !n4.has || n4.gen != 1 || env4.count(protocol.NoteCSEnter) != 1 || n4.candidate {
		t.Fatalf("node 4 with the token that followed: has %v, generation %d, entries %d, candidate %v; want it in the section with generation 1",
			n4.has, n4.gen, env4.count(protocol.NoteCSEnter), n4.candidate)
	}
}

// TestTokenRingElectionTeachesGeneration: a node learns a newer
// generation from an election and discards an older token that turns up
// later; a holder waiting to pass an older token drops it, and forwards
// the election.
func TestTokenRingElectionTeachesGeneration(t *testing.T) {
	n, env := newTokenNode(t, 2, protocol.Params{"ring": "ascending", "regenerate": true})
	from1 := &coordDeliverer[tokenMsg]{from: 1}
	n.Step(from1.data(tokenMsg{Type: tokenElection, Gen: 3, ID: 4, Stamp: 7}))
	n.Step(from1.data(tokenMsg{Type: tokenToken, Gen: 2}))
	if n.has || n.gen != 3 {
		t.Fatalf("token of generation 2 after an election of generation 3: has %v, generation %d", n.has, n.gen)
	}
	coordAlgorithm[tokenMsg](env)

	m, env2 := newTokenNode(t, 2, protocol.Params{"ring": "ascending", "regenerate": true})
	from1b := &coordDeliverer[tokenMsg]{from: 1}
	m.Step(from1b.data(tokenMsg{Type: tokenToken, Gen: 2}))
	m.Step(from1b.data(tokenMsg{Type: tokenElection, Gen: 3, ID: 4, Stamp: 7}))
	out := coordAlgorithm[tokenMsg](env2)
	if m.has || m.gen != 3 || len(out) != 1 || out[0].to != 3 || out[0].m.(tokenMsg) != (tokenMsg{Type: tokenElection, Gen: 3, ID: 4, Stamp: 7}) {
		t.Fatalf("holder of generation 2 reached by an election of generation 3: has %v, generation %d, sent %+v; want the token dropped and the election forwarded", m.has, m.gen, out)
	}
}

// newTokenNode builds node id of the ring 1, 2, 3, 4 and starts it.
func newTokenNode(t *testing.T, id protocol.NodeID, params protocol.Params) (*tokenRing, *coordEnv) {
	t.Helper()
	env := newCoordEnv(t)
	p, err := NewTokenRing(protocol.Config{ID: id, Members: []protocol.NodeID{1, 2, 3, 4}, Params: params, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	n := p.(*tokenRing)
	n.Step(protocol.Start{})
	coordAlgorithm[tokenMsg](env)
	return n, env
}

// TestTokenRingAloneServesQueuedRequest: a node alone on the ring (its
// channel gave up on every other) that is asked again while in the
// section enters again on release: no round of the token will come back
// to it (the property scenarios with flooding, seeds 914, 940 and 943:
// 3 nodes, 2 crashed for good, the survivor's queued requests waiting for
// ever).
func TestTokenRingAloneServesQueuedRequest(t *testing.T) {
	n, env := newCoordTokenNode(t, 1, protocol.Params{"regenerate": true})
	n.dead[2], n.dead[3] = true, true
	n.Step(protocol.Command{Name: protocol.Request})
	n.token(n.id, tokenMsg{Type: tokenToken, Gen: 1}) // sent back to itself on a give-up
	n.Step(protocol.Command{Name: protocol.Request})
	if env.count(protocol.NoteCSEnter) != 1 {
		t.Fatalf("%d entries with the token; want 1", env.count(protocol.NoteCSEnter))
	}
	n.Step(protocol.Command{Name: protocol.Release})
	if env.count(protocol.NoteCSEnter) != 2 || !n.has {
		t.Fatalf("%d entries after the release (has %v); want the queued request entered, the token kept", env.count(protocol.NoteCSEnter), n.has)
	}
	if out := coordAlgorithm[tokenMsg](env); len(out) != 0 {
		t.Fatalf("alone, sent %+v", out)
	}
}

// TestTokenRingPassedOver: node 1 on the ring 1, 2, 3, 4 passes the token
// over node 2, skipped as dead, and tells it when it is back, before
// anything else; passing it over node 2 again, alive now but skipped
// because the token keeps to node 3 until 3 acknowledges, it tells node 2
// at once. With regeneration off nobody is told. A candidate told that
// the token went past it ends its candidacy: its election back is stale.
func TestTokenRingPassedOver(t *testing.T) {
	for _, regen := range []bool{true, false} {
		n, env := newTokenNode(t, 1, protocol.Params{"ring": "ascending", "regenerate": regen})
		n.dead[2] = true
		from4 := &coordDeliverer[tokenMsg]{from: 4}
		n.Step(from4.data(tokenMsg{Type: tokenToken, Gen: 1}))
		n.Step(protocol.Timeout{ID: n.pass, Name: tokenTimerPass})
		if out := coordAlgorithm[tokenMsg](env); len(out) != 1 || out[0].to != 3 || out[0].m.(tokenMsg).Type != tokenToken {
			t.Fatalf("regenerate %v: sent %+v; want the token to 3", regen, out)
		}
		n.Step((&coordDeliverer[tokenMsg]{from: 2}).data(tokenMsg{Type: tokenRejoin}))
		want := 0
		if regen {
			want = 1
		}
		if out := coordAlgorithm[tokenMsg](env); len(out) != want || want == 1 && (out[0].to != 2 || out[0].m.(tokenMsg).Type != tokenPassedOver) {
			t.Fatalf("regenerate %v: node 2 back, sent %+v; want %d passed-over notice to 2", regen, out, want)
		}
		n.Step(from4.data(tokenMsg{Type: tokenToken, Gen: 1, Pass: 3})) // round 1, 3, 4, back to 1
		n.Step(protocol.Timeout{ID: n.pass, Name: tokenTimerPass})
		out := coordAlgorithm[tokenMsg](env)
		last := out[len(out)-1]
		if len(out) != 1+want || last.to != 3 || last.m.(tokenMsg).Type != tokenToken || want == 1 && (out[0].to != 2 || out[0].m.(tokenMsg).Type != tokenPassedOver) {
			t.Fatalf("regenerate %v: token again with 3 not acknowledging, sent %+v; want it to 3 and %d notice to 2", regen, out, want)
		}
	}

	c, env := newTokenNode(t, 2, protocol.Params{"ring": "ascending", "regenerate": true})
	env.now = 2 * time.Second
	c.watchFired()
	coordAlgorithm[tokenMsg](env)
	from1 := &coordDeliverer[tokenMsg]{from: 1}
	c.Step(from1.data(tokenMsg{Type: tokenPassedOver}))
	if c.candidate {
		t.Fatal("candidate still after the notice")
	}
	c.Step(from1.data(tokenMsg{Type: tokenElection, Gen: 1, ID: 2, Stamp: uint64(2 * time.Second)}))
	if c.has {
		t.Fatal("regenerated on an election of the candidacy the notice ended")
	}
}
