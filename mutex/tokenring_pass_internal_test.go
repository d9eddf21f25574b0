package mutex

import (
	"testing"

	"manetlab/protocol"
)

// TestTokenRingAckLostBeforeCrash builds, on the ascending ring 1, 2, 3,
// 4, the interleaving of the property scenario with flooding on the DCF
// medium, seed 200: node 1 passes the token (pass 4) to node 2, which
// passes it on and crashes before its acknowledgement reaches node 1;
// the token comes round and node 1 passes it (pass 8) to node 2 again.
// When node 1's channel gives up on node 2, only pass 8 goes on to node
// 3: pass 4, sent on as well before the fix, was a second token (nodes 1
// and 5 in the section together). Node 3, which had pass 5 from node 2,
// discards a late copy of pass 4.
func TestTokenRingAckLostBeforeCrash(t *testing.T) {
	params := func() protocol.Params {
		return protocol.Params{"ring": "ascending", "regenerate": true, "retries": 0}
	}
	n, env := newTokenNode(t, 1, params())
	from4 := &coordDeliverer[tokenMsg]{from: 4}
	n.Step(from4.data(tokenMsg{Type: tokenToken, Gen: 1, Pass: 3}))
	n.Step(protocol.Timeout{ID: n.pass, Name: tokenTimerPass})
	chanTo2 := env.timer // the channel's retransmission timer for node 2
	if out := coordAlgorithm[tokenMsg](env); len(out) != 1 || out[0].to != 2 || out[0].m.(tokenMsg) != (tokenMsg{Type: tokenToken, Gen: 1, Pass: 4}) {
		t.Fatalf("node 1 sent %+v; want pass 4 to 2", out)
	}
	n.Step(from4.data(tokenMsg{Type: tokenToken, Gen: 1, Pass: 7}))
	n.Step(protocol.Timeout{ID: n.pass, Name: tokenTimerPass})
	if out := coordAlgorithm[tokenMsg](env); len(out) != 1 || out[0].to != 2 || out[0].m.(tokenMsg) != (tokenMsg{Type: tokenToken, Gen: 1, Pass: 8}) {
		t.Fatalf("node 1 sent %+v; want pass 8 to 2", out)
	}
	n.Step(protocol.Timeout{ID: chanTo2, Name: tokenTimerChan, Arg: 2})
	if out := coordAlgorithm[tokenMsg](env); len(out) != 1 || out[0].to != 3 || out[0].m.(tokenMsg) != (tokenMsg{Type: tokenToken, Gen: 1, Pass: 8}) {
		t.Fatalf("node 1 after the give-up on 2 sent %+v; want only pass 8, to 3", out)
	}

	m, env3 := newTokenNode(t, 3, params())
	m.Step((&coordDeliverer[tokenMsg]{from: 2}).data(tokenMsg{Type: tokenToken, Gen: 1, Pass: 5}))
	m.Step(protocol.Timeout{ID: m.pass, Name: tokenTimerPass})
	coordAlgorithm[tokenMsg](env3)
	m.Step(protocol.Command{Name: protocol.Request})
	m.Step((&coordDeliverer[tokenMsg]{from: 1}).data(tokenMsg{Type: tokenToken, Gen: 1, Pass: 4}))
	if m.has || env3.count(protocol.NoteCSEnter) != 0 {
		t.Fatalf("node 3 took a copy of pass 4 after pass 5: has %v, entries %d; want it discarded", m.has, env3.count(protocol.NoteCSEnter))
	}
}
