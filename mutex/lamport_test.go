package mutex

import (
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

func lp(net *protonet.Network, id protocol.NodeID) *lamport {
	return net.Nodes[id].Proc.(*lamport)
}

// TestLamportQueueOrder: node 1 holds the section while 4, 2 and 3 ask;
// once the requests have spread every member's queue holds the same four
// requests in (timestamp, ID) order, and the members enter in that order,
// each entry costing exactly 3(n-1). Releases empty every queue.
func TestLamportQueueOrder(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		var opts []func(*protonet.Network)
		if seed > 0 {
			opts = append(opts, protonet.Shuffled(seed))
		}
		net := protonet.New(t, Lamport, memberIDs(4), nil, 1, opts...)
		net.AfterStep = atMostOneHolder(net)
		queues := map[protocol.NodeID][]lamportStamp{}
		acts := []protonet.Action{
			askAt(net, millis(100), 1),
			askAt(net, millis(200), 4),
			askAt(net, millis(300), 2),
			askAt(net, millis(300), 3),
			peerAt(millis(350), func() {
				for _, id := range memberIDs(4) {
					queues[id] = slices.Clone(lp(net, id).queue)
				}
			}),
		}
		for i := range 4 {
			for _, id := range memberIDs(4) {
				acts = append(acts, leaveAt(net, millis(400+100*i), id))
			}
		}
		net.Run(10*time.Second, acts...)
		q := queues[1]
		if len(q) != 4 || q[0].id != 1 || !slices.IsSortedFunc(q, func(a, b lamportStamp) int {
			if a.before(b) {
				return -1
			}
			return 1
		}) {
			t.Fatalf("seed %d: node 1's queue %v, want 4 requests in order, 1's first", seed, q)
		}
		for id, other := range queues {
			if !slices.Equal(other, q) {
				t.Fatalf("seed %d: node %d's queue %v, node 1's %v", seed, id, other, q)
			}
		}
		want := []protocol.NodeID{q[0].id, q[1].id, q[2].id, q[3].id}
		if got := entryOrder(stays(t, net)); !slices.Equal(got, want) {
			t.Fatalf("seed %d: entries %v, want the queue's order %v", seed, got, want)
		}
		if q[1].id != 4 {
			t.Fatalf("seed %d: queue %v: node 4 asked first after 1", seed, q)
		}
		if got := algMessages(net); got != 4*3*3 || net.Sent["release"] != 12 {
			t.Fatalf("seed %d: sent %v, want %d algorithm messages", seed, net.Sent, 4*3*3)
		}
		for _, id := range memberIDs(4) {
			if p := lp(net, id); len(p.queue) != 0 {
				t.Fatalf("seed %d: node %d's queue %v after every release", seed, id, p.queue)
			}
		}
	}
}

// TestLamportWaitsForTheHead: a member with every reply still waits while
// an earlier request heads its queue.
func TestLamportWaitsForTheHead(t *testing.T) {
	net := protonet.New(t, Lamport, memberIDs(3), nil, 1)
	var replies int
	var wants bool
	net.Run(10*time.Second,
		askAt(net, millis(100), 1),
		askAt(net, millis(200), 3),
		peerAt(millis(300), func() { replies, wants = len(lp(net, 3).replied), lp(net, 3).wants() }),
		leaveAt(net, millis(400), 1),
	)
	if replies != 2 || !wants {
		t.Fatalf("node 3 at 300ms: %d replies, wants %v; want 2 replies and still waiting", replies, wants)
	}
	secs := stays(t, net)
	if got := entryOrder(secs); !slices.Equal(got, []protocol.NodeID{1, 3}) || secs[1].enter < millis(400) {
		t.Fatalf("entries %+v, want 1 then 3 after 400ms", secs)
	}
}
