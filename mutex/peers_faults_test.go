package mutex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// fastChannel is a reliable channel that gives a peer up after 50+100+200 ms.
var fastChannel = protocol.Params{"rto": "50ms", "retries": 2}

// TestPeerPartitionHealsByResending: node 4 is cut off while node 1 asks;
// the channel gives 4 up again and again and the request is sent again,
// marked resent, until the partition heals. Node 1 never enters without
// 4's answer (or the token), and enters once the network heals; the
// algorithm's own count is what it would be without the partition.
func TestPeerPartitionHealsByResending(t *testing.T) {
	for _, alg := range []string{RicartAgrawala, Lamport, SuzukiKasami} {
		t.Run(alg, func(t *testing.T) {
			net := protonet.New(t, alg, memberIDs(4), fastChannel, 1)
			net.AfterStep = atMostOneHolder(net)
			first := protocol.NodeID(1)
			if alg == SuzukiKasami {
				first = 2 // node 1 holds the token: 2 asks, and 4 holds it
			}
			var enteredEarly bool
			net.Run(20*time.Second,
				askAt(net, millis(100), 4), leaveAt(net, millis(200), 4), // SK: the token goes to 4
				peerAt(millis(500), func() { net.Partition([]protocol.NodeID{1, 2, 3}, []protocol.NodeID{4}) }),
				askAt(net, millis(600), first),
				peerAt(millis(4900), func() { enteredEarly = len(holdersNow(net)) > 0 }),
				peerAt(5*time.Second, func() { net.Heal() }),
				leaveAt(net, 8*time.Second, first),
			)
			if enteredEarly {
				t.Fatal("a node entered while the partition cut it from 4")
			}
			secs := stays(t, net)
			if got := entryOrder(secs); !slices.Equal(got, []protocol.NodeID{4, first}) || secs[1].enter < 5*time.Second {
				t.Fatalf("sections %+v, want 4 then %d after the heal", secs, first)
			}
			if net.Sent[KindResend] == 0 {
				t.Fatalf("nothing resent: %v", net.Sent)
			}
			want := map[string]int{RicartAgrawala: 2 * 2 * 3, Lamport: 2 * 3 * 3, SuzukiKasami: 2 * 4}[alg]
			if got := algMessages(net); got != want {
				t.Fatalf("%d algorithm messages (%v), want %d: resends are counted apart", got, net.Sent, want)
			}
		})
	}
}

// TestPeerLossyRunsGrantEveryRequest: 30 % of frames lost, a channel that
// gives up after 350 ms (so peers are given up on, and messages resent,
// often), random requests by five nodes, releases offered every 100 ms:
// never two holders, and every request is granted by the end.
func TestPeerLossyRunsGrantEveryRequest(t *testing.T) {
	for _, alg := range []string{RicartAgrawala, Lamport, SuzukiKasami} {
		for seed := uint64(1); seed <= 20; seed++ {
			t.Run(fmt.Sprintf("%s/%d", alg, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 7))
				net := protonet.New(t, alg, memberIDs(5), fastChannel, seed, protonet.Lossy(0.3, seed), protonet.Shuffled(seed))
				net.Loss = 0.3
				net.AfterStep = atMostOneHolder(net)
				asked := map[protocol.NodeID]int{}
				var acts []protonet.Action
				for range 12 {
					id := protocol.NodeID(1 + rng.IntN(5))
					asked[id]++
					acts = append(acts, askAt(net, millis(rng.IntN(5000)), id))
				}
				for d := millis(100); d < 110*time.Second; d += millis(100) {
					for _, id := range memberIDs(5) {
						acts = append(acts, leaveAt(net, d, id))
					}
				}
				net.Run(120*time.Second, acts...)
				t.Logf("resent %d, retransmitted %d", net.Sent[KindResend], net.Sent["transport-retx"])
				got := map[protocol.NodeID]int{}
				for _, s := range stays(t, net) {
					got[s.node]++
				}
				if fmt.Sprint(got) != fmt.Sprint(asked) {
					t.Fatalf("entries by node %v, requests %v (resent %d)", got, asked, net.Sent[KindResend])
				}
			})
		}
	}
}
