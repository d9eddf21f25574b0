package mutex

import (
	"math"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

// TestTokenRingBadParams: errors name the field; a ring that leaves a
// member out is refused naming protocol.params.ring.
func TestTokenRingBadParams(t *testing.T) {
	members := []protocol.NodeID{1, 2, 3, 4}
	cases := []struct {
		params protocol.Params
		want   []string
	}{
		{protocol.Params{"ring": []any{1, 2, 3}}, []string{"protocol.params.ring", "leaves out member 4"}},
		{protocol.Params{"ring": []any{1, 2, 3, 9}}, []string{"protocol.params.ring", "node 9 is not a member"}},
		{protocol.Params{"ring": "sideways"}, []string{"protocol.params.ring"}},
		{protocol.Params{"pass_delay": "fast"}, []string{"protocol.params.pass_delay"}},
		{protocol.Params{"regenerate": "yes"}, []string{"protocol.params.regenerate", "true or false"}},
		{protocol.Params{"token_timeout": "0s"}, []string{"protocol.params.token_timeout", "positive"}},
		{protocol.Params{"election": "bully/textbook"}, []string{"protocol.params.election: unknown parameter"}},
	}
	for _, c := range cases {
		_, err := NewTokenRing(protocol.Config{ID: 1, Members: members, Params: c.params, Env: newCoordEnv(t)})
		if err == nil {
			t.Errorf("%v: no error", c.params)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not say %q", c.params, err, w)
			}
		}
	}
	spec, _ := protocol.Lookup(TokenRing)
	if !spec.LogicalRing || spec.Goal != protocol.GoalMutex || !spec.Implements(protocol.Request) || !spec.Implements(protocol.Release) {
		t.Errorf("spec %+v", spec)
	}
	if lo, hi := spec.Mutex.PerEntry(8); lo != 1 || !math.IsInf(hi, 1) || spec.Mutex.Delay != "0 to n-1" {
		t.Errorf("cost %+v: %v to %v", spec.Mutex, lo, hi)
	}
}

// newCoordTokenNode builds node id of the ascending ring 1-2-3 and starts it.
func newCoordTokenNode(t *testing.T, id protocol.NodeID, params protocol.Params) (*tokenRing, *coordEnv) {
	t.Helper()
	env := newCoordEnv(t)
	params["ring"] = "ascending"
	p, err := NewTokenRing(protocol.Config{ID: id, Members: []protocol.NodeID{1, 2, 3}, Params: params, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	n := p.(*tokenRing)
	n.Step(protocol.Start{})
	return n, env
}

// TestTokenRingForged: a second token of the generation held is
// discarded, and so is an older one; an election reaching the holder dies
// there; a raw message outside the channel is ignored; none enter.
func TestTokenRingForged(t *testing.T) {
	n, env := newCoordTokenNode(t, 2, protocol.Params{})
	from1 := &coordDeliverer[tokenMsg]{from: 1}
	n.Step(from1.data(tokenMsg{Type: tokenToken, Gen: 3}))
	if !n.has || n.gen != 3 {
		t.Fatalf("token not taken: has %v gen %d", n.has, n.gen)
	}
	n.Step(from1.data(tokenMsg{Type: tokenToken, Gen: 3}))
	n.Step(from1.data(tokenMsg{Type: tokenToken, Gen: 2}))
	n.Step(from1.data(tokenMsg{Type: tokenElection, Gen: 3, ID: 1}))
	n.Step(from1.data(tokenMsg{Type: 77}))
	n.Step(protocol.Receive{From: 1, Hops: 1, Msg: tokenMsg{Type: tokenToken, Gen: 9}})
	if out := coordAlgorithm[tokenMsg](env); len(out) != 0 {
		t.Fatalf("coordSent %+v; want nothing (second and stale tokens dropped, election swallowed)", out)
	}
	second, stale := false, false
	for _, x := range env.notes {
		second = second || strings.Contains(x.Text, "second token of generation 3")
		stale = stale || strings.Contains(x.Text, "stale token of generation 2")
	}
	if !second || !stale || n.gen != 3 || env.count(protocol.NoteCSEnter) != 0 {
		t.Fatalf("notes %+v, gen %d", env.notes, n.gen)
	}
	// A request while the token waits here enters at once; the release
	// passes it to the successor, 3.
	n.Step(protocol.Command{Name: protocol.Request})
	if env.count(protocol.NoteCSEnter) != 1 {
		t.Fatal("request with the token here did not enter")
	}
	n.Step(protocol.Command{Name: protocol.Release})
	out := coordAlgorithm[tokenMsg](env)
	if len(out) != 1 || out[0].to != 3 || out[0].m.(tokenMsg).Gen != 3 || n.has {
		t.Fatalf("release coordSent %+v; want the token (generation 3) to 3", out)
	}
}

// TestTokenRingElectionRules: a candidate swallows smaller IDs and
// forwards larger ones raising the generation; its own election back
// regenerates the token one generation above the highest seen if it
// belongs to the current candidacy (its stamp), and not if the token
// passed meanwhile.
func TestTokenRingElectionRules(t *testing.T) {
	n, env := newCoordTokenNode(t, 2, protocol.Params{"regenerate": true})
	n.gen = 4
	env.now = 3 * time.Second
	n.watchFired()
	out := coordAlgorithm[tokenMsg](env)
	// A rejoin to the predecessor first, in case it skips this node.
	if len(out) != 2 || out[0].to != 1 || out[0].m.(tokenMsg).Type != tokenRejoin ||
		out[1].to != 3 || out[1].m.(tokenMsg) != (tokenMsg{Type: tokenElection, Gen: 4, ID: 2, Stamp: uint64(3 * time.Second)}) {
		t.Fatalf("timeout coordSent %+v; want a rejoin to 1 and an election of 2 to 3, stamped 3s", out)
	}
	// Still a candidate at the next timeout: the same candidacy.
	env.now = 6 * time.Second
	n.watchFired()
	out = coordAlgorithm[tokenMsg](env)
	if len(out) != 2 || out[1].m.(tokenMsg) != (tokenMsg{Type: tokenElection, Gen: 4, ID: 2, Stamp: uint64(3 * time.Second)}) {
		t.Fatalf("second timeout coordSent %+v; want the election stamped 3s again", out)
	}
	from1 := &coordDeliverer[tokenMsg]{from: 1}
	n.Step(from1.data(tokenMsg{Type: tokenElection, Gen: 1, ID: 1}))
	n.Step(from1.data(tokenMsg{Type: tokenElection, Gen: 1, ID: 3}))
	out = coordAlgorithm[tokenMsg](env)
	if len(out) != 1 || out[0].m.(tokenMsg) != (tokenMsg{Type: tokenElection, Gen: 4, ID: 3}) {
		t.Fatalf("coordSent %+v; want only 3's election, generation raised to 4", out)
	}
	n.Step(from1.data(tokenMsg{Type: tokenElection, Gen: 6, ID: 2, Stamp: uint64(2 * time.Second)}))
	if n.has {
		t.Fatal("own election of another candidacy back: regenerated")
	}
	n.Step(from1.data(tokenMsg{Type: tokenElection, Gen: 6, ID: 2, Stamp: uint64(3 * time.Second)}))
	if !n.has || n.gen != 7 {
		t.Fatalf("own election back: has %v gen %d; want the token of generation 7", n.has, n.gen)
	}
	// Not a candidate any more (the token came): its election dies.
	m, env2 := newCoordTokenNode(t, 2, protocol.Params{"regenerate": true})
	m.watchFired()
	m.Step(from1.data(tokenMsg{Type: tokenToken, Gen: 1}))
	m.Step(protocol.Timeout{ID: m.pass, Name: tokenTimerPass})
	coordAlgorithm[tokenMsg](env2)
	m.Step((&coordDeliverer[tokenMsg]{from: 1, seq: 1}).data(tokenMsg{Type: tokenElection, Gen: 1, ID: 2}))
	if m.has || m.gen != 1 || len(coordAlgorithm[tokenMsg](env2)) != 0 {
		t.Fatalf("stale own election regenerated: has %v gen %d", m.has, m.gen)
	}
}
