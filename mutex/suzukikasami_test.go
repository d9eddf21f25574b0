package mutex

import (
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

func sk(net *protonet.Network, id protocol.NodeID) *suzukiKasami {
	return net.Nodes[id].Proc.(*suzukiKasami)
}

// tokenHolders lists the members that hold the token.
func tokenHolders(net *protonet.Network) []protocol.NodeID {
	var out []protocol.NodeID
	for _, id := range net.Live() {
		if sk(net, id).token {
			out = append(out, id)
		}
	}
	return out
}

// TestSKTokenPassing: node 1 holds the token at the start. Node 3 asks:
// n-1 requests and the token, n messages. It asks again after leaving and
// enters at once, sending nothing. While it holds the section 2 and then 5
// ask; on exit it queues the outstanding requests in the order of the
// members after it (4, 5, 1, 2): 5 gets the token with 2 queued, and 5
// passes it to 2. At most one member ever holds the token.
func TestSKTokenPassing(t *testing.T) {
	net := protonet.New(t, SuzukiKasami, memberIDs(5), nil, 1)
	net.AfterStep = func(sn *protonet.Node) {
		if tk := tokenHolders(net); len(tk) > 1 {
			t.Fatalf("at %v tokens at %v", net.Now, tk)
		}
		atMostOneHolder(net)(sn)
	}
	if !slices.Equal(tokenHolders(net), []protocol.NodeID{1}) {
		t.Fatalf("token at %v at the start, want node 1", tokenHolders(net))
	}
	counts := map[string]int{}
	snap := func(d time.Duration, name string) protonet.Action {
		return peerAt(d, func() { counts[name] = algMessages(net) })
	}
	var queue []protocol.NodeID
	var ln []uint64
	net.Run(10*time.Second,
		askAt(net, millis(100), 3),
		snap(millis(150), "first"),
		leaveAt(net, millis(200), 3),
		askAt(net, millis(300), 3),
		snap(millis(350), "again"),
		askAt(net, millis(400), 2),
		askAt(net, millis(450), 5),
		leaveAt(net, millis(500), 3),
		peerAt(millis(550), func() { queue, ln = slices.Clone(sk(net, 5).queue), slices.Clone(sk(net, 5).ln) }),
		leaveAt(net, millis(600), 5),
		leaveAt(net, millis(700), 2),
	)
	if counts["first"] != 5 {
		t.Fatalf("first entry of node 3: %d messages, want n = 5", counts["first"])
	}
	if counts["again"] != 5 {
		t.Fatalf("node 3 asking again with the token: %d messages in all, want 0 more", counts["again"]-5)
	}
	if got := entryOrder(stays(t, net)); !slices.Equal(got, []protocol.NodeID{3, 3, 5, 2}) {
		t.Fatalf("entries %v, want [3 3 5 2]", got)
	}
	if !slices.Equal(queue, []protocol.NodeID{2}) || !slices.Equal(ln, []uint64{0, 0, 1, 0, 0}) {
		t.Fatalf("token at 5: queue %v (want [2]), LN %v (want 3's one request granted)", queue, ln)
	}
	// 5 + 0 + (4 requests + token) + (4 requests + token): the token's
	// pass from 5 to 2 was already asked for.
	if got := algMessages(net); got != 5+0+5+5 || net.Sent["token"] != 3 {
		t.Fatalf("sent %v, want 15 algorithm messages, 3 tokens", net.Sent)
	}
	if !slices.Equal(tokenHolders(net), []protocol.NodeID{2}) || !slices.Equal(sk(net, 2).ln, []uint64{0, 1, 1, 0, 1}) {
		t.Fatalf("token at %v, LN %v", tokenHolders(net), sk(net, 2).ln)
	}
}

// TestSKRecoveredFirstMemberMakesNoSecondToken: node 1 hands the token to
// 2, crashes and recovers: it must not create the token again.
func TestSKRecoveredFirstMemberMakesNoSecondToken(t *testing.T) {
	net := protonet.New(t, SuzukiKasami, memberIDs(3), nil, 1)
	net.Run(5*time.Second,
		askAt(net, millis(100), 2),
		peerAt(millis(200), func() { net.Crash(1) }),
		peerAt(millis(300), func() { net.Recover(1) }),
	)
	if tk := tokenHolders(net); !slices.Equal(tk, []protocol.NodeID{2}) {
		t.Fatalf("tokens at %v, want only node 2", tk)
	}
}
