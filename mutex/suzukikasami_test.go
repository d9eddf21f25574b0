package mutex

import (
	"slices"
	"testing"
	"time"

	"manetlab/internal/protonet"
	"manetlab/protocol"
)

func sk(net *protonet.Network, id protocol.NodeID) *suzukiKasami {
	return net.Nodes[id].Proc.(*suzukiKasami)
}

// tokens lists the members that hold the token.
func tokens(net *protonet.Network) []protocol.NodeID {
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
	net := protonet.New(t, SuzukiKasami, ids(5), nil, 1)
	net.AfterStep = func(sn *protonet.Node) {
		if tk := tokens(net); len(tk) > 1 {
			t.Fatalf("at %v tokens at %v", net.Now, tk)
		}
		singleHolder(net)(sn)
	}
	if !slices.Equal(tokens(net), []protocol.NodeID{1}) {
		t.Fatalf("token at %v at the start, want node 1", tokens(net))
	}
	counts := map[string]int{}
	snap := func(d time.Duration, name string) protonet.Action {
		return at(d, func() { counts[name] = algorithmCount(net) })
	}
	var queue []protocol.NodeID
	var ln []uint64
	net.Run(10*time.Second,
		request(net, ms(100), 3),
		snap(ms(150), "first"),
		release(net, ms(200), 3),
		request(net, ms(300), 3),
		snap(ms(350), "again"),
		request(net, ms(400), 2),
		request(net, ms(450), 5),
		release(net, ms(500), 3),
		at(ms(550), func() { queue, ln = slices.Clone(sk(net, 5).queue), slices.Clone(sk(net, 5).ln) }),
		release(net, ms(600), 5),
		release(net, ms(700), 2),
	)
	if counts["first"] != 5 {
		t.Fatalf("first entry of node 3: %d messages, want n = 5", counts["first"])
	}
	if counts["again"] != 5 {
		t.Fatalf("node 3 asking again with the token: %d messages in all, want 0 more", counts["again"]-5)
	}
	if got := order(sections(t, net)); !slices.Equal(got, []protocol.NodeID{3, 3, 5, 2}) {
		t.Fatalf("entries %v, want [3 3 5 2]", got)
	}
	if !slices.Equal(queue, []protocol.NodeID{2}) || !slices.Equal(ln, []uint64{0, 0, 1, 0, 0}) {
		t.Fatalf("token at 5: queue %v (want [2]), LN %v (want 3's one request granted)", queue, ln)
	}
	// 5 + 0 + (4 requests + token) + (4 requests + token): the token's
	// pass from 5 to 2 was already asked for.
	if got := algorithmCount(net); got != 5+0+5+5 || net.Sent["token"] != 3 {
		t.Fatalf("sent %v, want 15 algorithm messages, 3 tokens", net.Sent)
	}
	if !slices.Equal(tokens(net), []protocol.NodeID{2}) || !slices.Equal(sk(net, 2).ln, []uint64{0, 1, 1, 0, 1}) {
		t.Fatalf("token at %v, LN %v", tokens(net), sk(net, 2).ln)
	}
}

// TestSKRecoveredFirstMemberMakesNoSecondToken: node 1 hands the token to
// 2, crashes and recovers: it must not create the token again.
func TestSKRecoveredFirstMemberMakesNoSecondToken(t *testing.T) {
	net := protonet.New(t, SuzukiKasami, ids(3), nil, 1)
	net.Run(5*time.Second,
		request(net, ms(100), 2),
		at(ms(200), func() { net.Crash(1) }),
		at(ms(300), func() { net.Recover(1) }),
	)
	if tk := tokens(net); !slices.Equal(tk, []protocol.NodeID{2}) {
		t.Fatalf("tokens at %v, want only node 2", tk)
	}
}
