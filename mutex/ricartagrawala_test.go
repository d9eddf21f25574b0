package mutex

import (
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

func ra(net *protonet.Network, id protocol.NodeID) *ricartAgrawala {
	return net.Nodes[id].Proc.(*ricartAgrawala)
}

// TestRADefersByTimestamp: node 1 holds the section; node 4 asks (stamp
// (2,4)), then node 2 (stamp (3,2)). Node 1 defers both; node 4, wanting
// with the earlier stamp, defers node 2 although 2 has the lower ID. When
// 1 leaves, 4 enters, then 2: timestamp order, not ID order; every entry
// costs exactly 2(n-1).
func TestRADefersByTimestamp(t *testing.T) {
	net := protonet.New(t, RicartAgrawala, memberIDs(4), nil, 1)
	net.AfterStep = atMostOneHolder(net)
	var deferred1, deferred4 []protocol.NodeID
	var req4, req2 uint64
	net.Run(10*time.Second,
		askAt(net, millis(100), 1),
		askAt(net, millis(200), 4),
		askAt(net, millis(300), 2),
		peerAt(millis(350), func() {
			deferred1, deferred4 = ra(net, 1).deferredIDs(), ra(net, 4).deferredIDs()
			req4, req2 = ra(net, 4).req, ra(net, 2).req
		}),
		leaveAt(net, millis(400), 1),
		leaveAt(net, millis(500), 4),
		leaveAt(net, millis(600), 2),
	)
	if req4 != 2 || req2 != 3 {
		t.Fatalf("stamps: node 4 %d, node 2 %d; want 2 and 3 (the highest seen plus one)", req4, req2)
	}
	if !slices.Equal(deferred1, []protocol.NodeID{4, 2}) || !slices.Equal(deferred4, []protocol.NodeID{2}) {
		t.Fatalf("deferred: node 1 %v (want [4 2]), node 4 %v (want [2])", deferred1, deferred4)
	}
	secs := stays(t, net)
	if got := entryOrder(secs); !slices.Equal(got, []protocol.NodeID{1, 4, 2}) {
		t.Fatalf("entries %v, want [1 4 2]", got)
	}
	if secs[1].enter < millis(400) || secs[2].enter < millis(500) {
		t.Fatalf("entered before the holder left: %+v", secs)
	}
	if got, want := algMessages(net), 3*2*3; got != want || net.Sent["request"] != 9 || net.Sent["reply"] != 9 {
		t.Fatalf("sent %v, want %d algorithm messages (9 requests, 9 replies)", net.Sent, want)
	}
}

// TestRATieGoesToTheLowerID: requests made at the same instant carry the
// same timestamp; the lower ID goes first, whatever the delivery order.
func TestRATieGoesToTheLowerID(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		var opts []func(*protonet.Network)
		if seed > 0 {
			opts = append(opts, protonet.Shuffled(seed))
		}
		net := protonet.New(t, RicartAgrawala, memberIDs(5), nil, 1, opts...)
		net.AfterStep = atMostOneHolder(net)
		var acts []protonet.Action
		for _, id := range []protocol.NodeID{5, 3, 2, 4} {
			acts = append(acts, askAt(net, millis(100), id))
		}
		// Each releases 100ms after the previous: releases at the wrong
		// node are ignored (logged), so release every node each time.
		for i := range 4 {
			for _, id := range []protocol.NodeID{2, 3, 4, 5} {
				acts = append(acts, leaveAt(net, millis(200+100*i), id))
			}
		}
		net.Run(10*time.Second, acts...)
		if got := entryOrder(stays(t, net)); !slices.Equal(got, []protocol.NodeID{2, 3, 4, 5}) {
			t.Fatalf("seed %d: entries %v, want [2 3 4 5]", seed, got)
		}
		if got := algMessages(net); got != 4*2*4 {
			t.Fatalf("seed %d: %d algorithm messages, want %d", seed, got, 4*2*4)
		}
	}
}

// TestRAQueuedRequestGoesBehind: node 1 asks twice while node 2 waits
// for it; the second request is stamped after node 2's, so 2 goes between.
func TestRAQueuedRequestGoesBehind(t *testing.T) {
	net := protonet.New(t, RicartAgrawala, memberIDs(3), nil, 1)
	net.AfterStep = atMostOneHolder(net)
	net.Run(10*time.Second,
		askAt(net, millis(100), 1),
		askAt(net, millis(150), 1), // queued by the client
		askAt(net, millis(200), 2),
		leaveAt(net, millis(300), 1),
		leaveAt(net, millis(400), 2),
		leaveAt(net, millis(500), 1),
	)
	if got := entryOrder(stays(t, net)); !slices.Equal(got, []protocol.NodeID{1, 2, 1}) {
		t.Fatalf("entries %v, want [1 2 1]", got)
	}
	if got := algMessages(net); got != 3*2*2 {
		t.Fatalf("%d algorithm messages, want %d", got, 3*2*2)
	}
}

// TestPeerAlone: a single member enters at once, sending nothing.
func TestPeerAlone(t *testing.T) {
	for _, alg := range []string{RicartAgrawala, Lamport, SuzukiKasami} {
		net := protonet.New(t, alg, memberIDs(1), nil, 1)
		net.Run(time.Second, askAt(net, millis(10), 1), leaveAt(net, millis(20), 1), askAt(net, millis(30), 1))
		if got := entryOrder(stays(t, net)); !slices.Equal(got, []protocol.NodeID{1, 1}) || len(net.Sent) != 0 {
			t.Fatalf("%s: entries %v, sent %v", alg, got, net.Sent)
		}
	}
}

// TestPeerParams: the channel's rto and retries are read; anything else is
// refused, naming the algorithm and the field.
func TestPeerParams(t *testing.T) {
	for _, alg := range []string{RicartAgrawala, Lamport, SuzukiKasami} {
		spec, err := protocol.Lookup(alg)
		if err != nil {
			t.Fatal(err)
		}
		env := protonet.NewEnv(t, 1)
		if _, err := spec.New(protocol.Config{ID: 1, Members: memberIDs(3), Params: protocol.Params{"rto": "50ms", "retries": 2}, Env: env}); err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		for p, want := range map[string]protocol.Params{
			"protocol.params.rto: soon":               {"rto": "soon"},
			"protocol.params.retries: -1":             {"retries": -1},
			"protocol.params.ring: unknown parameter": {"ring": "random"},
		} {
			_, err := spec.New(protocol.Config{ID: 1, Members: memberIDs(3), Params: want, Env: env})
			if err == nil || !strings.Contains(err.Error(), alg) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s %v: error %v, want one naming %q", alg, want, err, p)
			}
		}
		if _, err := spec.New(protocol.Config{ID: 9, Members: memberIDs(3), Env: env}); err == nil || !strings.Contains(err.Error(), "not a member") {
			t.Errorf("%s: a non-member built: %v", alg, err)
		}
		if spec.Goal != protocol.GoalMutex || !spec.Implements(protocol.Request) || !spec.Implements(protocol.Release) ||
			spec.Mutex == nil || spec.Complexity == nil || spec.Complexity.Assumes != "no failures" {
			t.Errorf("%s: spec %+v", alg, spec)
		}
	}
}
