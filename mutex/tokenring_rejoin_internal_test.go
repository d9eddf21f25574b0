package mutex

import (
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// TestTokenRingRejoinKeepsFIFO: node 1 on the ring 1, 2, 3 skips node 2
// and passes the token to 3; node 2 rejoins before 3 has acknowledged
// the token. An election arriving next must follow the token to 3, not go
// to 2: there it would go round ahead of the token, come back to its
// candidate and make a second token (the property test's token ring seed
// 133). Once 3 acknowledges, the ring goes through 2 again.
func TestTokenRingRejoinKeepsFIFO(t *testing.T) {
	n, env := newCoordTokenNode(t, 1, protocol.Params{"regenerate": true})
	n.dead[2] = true // its channel gave up on node 2
	from3 := &coordDeliverer[tokenMsg]{from: 3}
	n.Step(from3.data(tokenMsg{Type: tokenToken, Gen: 1}))
	n.Step(protocol.Timeout{ID: n.pass, Name: tokenTimerPass})
	var token reliable.Data[tokenMsg]
	for _, s := range env.out {
		if d, ok := s.m.(reliable.Data[tokenMsg]); ok && s.to == 3 && d.Msg.Type == tokenToken {
			token = d
		}
	}
	if token.Seq == 0 || n.has {
		t.Fatalf("the token did not go to 3: sent %+v", env.out)
	}
	env.out = nil
	from2 := &coordDeliverer[tokenMsg]{from: 2}
	n.Step(from2.data(tokenMsg{Type: tokenRejoin}))
	if n.dead[2] {
		t.Fatal("node 2's rejoin did not put it back on the ring")
	}
	// The token went past node 2 while it was skipped: it is told first.
	if out := coordAlgorithm[tokenMsg](env); len(out) != 1 || out[0].to != 2 || out[0].m.(tokenMsg).Type != tokenPassedOver {
		t.Fatalf("node 2 back: sent %+v; want it told that the token went past it", out)
	}
	n.Step(from3.data(tokenMsg{Type: tokenElection, Gen: 1, ID: 3}))
	out := coordAlgorithm[tokenMsg](env)
	if len(out) != 1 || out[0].to != 3 || out[0].m.(tokenMsg).Type != tokenElection {
		t.Fatalf("election with the token unacknowledged at 3: sent %+v; want it to 3, behind the token", out)
	}
	// 3 acknowledges both; the next election goes to 2.
	n.Step(protocol.Receive{From: 3, Hops: 1, Msg: reliable.Ack{Chan: tokenTimerChan, Inc: token.Inc, Conn: token.Conn, Seq: token.Seq + 1}})
	n.Step(from3.data(tokenMsg{Type: tokenElection, Gen: 1, ID: 3}))
	out = coordAlgorithm[tokenMsg](env)
	if len(out) != 1 || out[0].to != 2 {
		t.Fatalf("election once 3 acknowledged: sent %+v; want it to 2", out)
	}
}
