package mutex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
	"manetlab/protocol/reliable"
)

// inject hands m to node id's algorithm as if the channel had delivered it
// from from (the channel delivers each message once and in order, so what
// it lets through is what the algorithm must survive), then checks that at
// most one node holds the section.
func inject[T peerMsg[T]](net *protonet.Network, d time.Duration, id, from protocol.NodeID, m T) protonet.Action {
	return peerAt(d, func() {
		net.Nodes[id].Proc.(interface{ receive(protocol.NodeID, T) }).receive(from, m)
		atMostOneHolder(net)(net.Nodes[id])
	})
}

// forgedRun runs a three-node workload (1 asks and leaves, 2 asks, 3 asks
// twice) with forged messages among it, and requires the same entries and
// the same algorithm messages as the run without them: nonsense is
// ignored, never taken for permission, and never answered.
func forgedRun(t *testing.T, alg string, forged func(net *protonet.Network) []protonet.Action) {
	t.Helper()
	run := func(withForged bool) *protonet.Network {
		net := protonet.New(t, alg, memberIDs(3), nil, 1)
		net.AfterStep = atMostOneHolder(net)
		acts := []protonet.Action{
			askAt(net, millis(100), 1),
			leaveAt(net, millis(200), 1),
			askAt(net, millis(300), 2),
			askAt(net, millis(300), 3),
			leaveAt(net, millis(400), 2),
			leaveAt(net, millis(400), 3),
			leaveAt(net, millis(500), 2),
			leaveAt(net, millis(500), 3),
			askAt(net, millis(600), 3),
			leaveAt(net, millis(700), 3),
		}
		if withForged {
			acts = append(acts, forged(net)...)
		}
		net.Run(5*time.Second, acts...)
		return net
	}
	clean, dirty := run(false), run(true)
	want, got := entryOrder(stays(t, clean)), entryOrder(stays(t, dirty))
	if !slices.Equal(got, want) || len(want) != 4 {
		t.Fatalf("%s: entries with forged messages %v, without %v", alg, got, want)
	}
	if fmt.Sprint(dirty.AlgorithmKinds()) != fmt.Sprint(clean.AlgorithmKinds()) {
		t.Fatalf("%s: forged messages changed what was sent: %v, without them %v", alg, dirty.AlgorithmKinds(), clean.AlgorithmKinds())
	}
}

// TestRAIgnoresNonsense: replies with nobody waiting, for an old request,
// twice from one member; a request repeated; an unknown type.
func TestRAIgnoresNonsense(t *testing.T) {
	forgedRun(t, RicartAgrawala, func(net *protonet.Network) []protonet.Action {
		return []protonet.Action{
			inject(net, millis(50), 2, 1, RAMsg{Type: RAReply, For: 0}),  // nobody waiting
			inject(net, millis(50), 2, 3, RAMsg{Type: RAReply, For: 7}),  // nobody waiting
			inject(net, millis(150), 1, 2, RAMsg{Type: RAReply, For: 1}), // holding: a reply it has had
			inject(net, millis(301), 3, 1, RAMsg{Type: RAReply, For: 1}), // 3 waits for request 3: 1 is old
			peerAt(millis(320), func() { // 1 replied to 3's current request: again
				p := ra(net, 3)
				if !p.wants() || !p.replied[1] || p.replied[2] {
					t.Fatalf("node 3 at 320ms: %s, replies %v; want waiting for 2 only", p.state, p.replied)
				}
				p.receive(1, RAMsg{Type: RAReply, For: p.req})
				p.receive(1, RAMsg{Type: RAReply, For: p.req})
				p.receive(2, RAMsg{Type: RAReply, For: p.req - 1}) // 2 answering an older request
				p.receive(2, RAMsg{Type: RAReply, For: 0})
				atMostOneHolder(net)(net.Nodes[3])
			}),
			inject(net, millis(350), 2, 1, RAMsg{Type: RARequest, TS: 1}), // 1's old request again
			inject(net, millis(350), 2, 1, RAMsg{Type: 99, TS: 100}),
		}
	})
}

// TestLamportIgnoresNonsense: replies with nobody waiting or repeated,
// releases of requests never queued, a request repeated, an unknown type.
func TestLamportIgnoresNonsense(t *testing.T) {
	forgedRun(t, Lamport, func(net *protonet.Network) []protonet.Action {
		return []protonet.Action{
			inject(net, millis(50), 2, 1, LamportMsg{Type: LamportReply, TS: 5, For: 1}),
			inject(net, millis(50), 2, 3, LamportMsg{Type: LamportRelease, TS: 5, For: 1}),
			inject(net, millis(150), 2, 1, LamportMsg{Type: LamportRequest, TS: 1}), // 1's request again
			inject(net, millis(250), 3, 1, LamportMsg{Type: LamportRelease, TS: 9, For: 1}),
			inject(net, millis(320), 3, 1, LamportMsg{Type: LamportReply, TS: 50, For: 1}),
			inject(net, millis(350), 1, 2, LamportMsg{Type: 0}),
		}
	})
}

// TestSKIgnoresNonsense: the token to a member that does not want it, to
// the holder, the same token twice (a duplicate of a pass already taken),
// tokens whose LN or queue do not fit, a repeated request.
func TestSKIgnoresNonsense(t *testing.T) {
	var seen SKMsg // the token as node 2 got it, to deliver again
	forgedRun(t, SuzukiKasami, func(net *protonet.Network) []protonet.Action {
		tok := func() SKMsg { return SKMsg{Type: SKToken, Pass: 99, LN: make([]uint64, 3)} }
		return []protonet.Action{
			inject(net, millis(50), 2, 1, tok()),  // 2 does not want it
			inject(net, millis(150), 1, 3, tok()), // 1 holds it
			peerAt(millis(350), func() {
				p := sk(net, 2)
				if p.token {
					seen = SKMsg{Type: SKToken, Pass: p.pass, LN: slices.Clone(p.ln), Queue: slices.Clone(p.queue)}
				}
			}),
			peerAt(millis(351), func() { sk(net, 2).receive(1, seen) }), // holding it already
			inject(net, millis(320), 3, 1, SKMsg{Type: SKToken, Pass: 1000, LN: make([]uint64, 2)}),
			inject(net, millis(320), 3, 1, SKMsg{Type: SKToken, Pass: 1000, LN: make([]uint64, 3), Queue: []protocol.NodeID{3}}),
			inject(net, millis(320), 3, 1, SKMsg{Type: SKToken, Pass: 1000, LN: make([]uint64, 3), Queue: []protocol.NodeID{2, 2}}),
			inject(net, millis(320), 3, 1, SKMsg{Type: SKToken, Pass: 1000, LN: make([]uint64, 3), Queue: []protocol.NodeID{42}}),
			inject(net, millis(320), 3, 1, SKMsg{Type: SKToken, Pass: 1000, LN: []uint64{0, 0, 5}}), // granted already
			peerAt(millis(650), func() { sk(net, 2).receive(3, seen) }),                             // 2 idle
			inject(net, millis(320), 1, 2, SKMsg{Type: SKRequest, Seq: 1}),                          // again
			inject(net, millis(320), 1, 2, SKMsg{Type: 7}),
		}
	})
	if seen.Type != SKToken {
		t.Fatal("node 2 did not hold the token at 350ms: the test proves nothing")
	}
}

// TestSKDuplicateTokenWhileWantingAgain: a member that passed the token on
// and wants it again ignores a copy of a token it has seen (its pass).
func TestSKDuplicateTokenWhileWantingAgain(t *testing.T) {
	net := protonet.New(t, SuzukiKasami, memberIDs(3), nil, 1)
	net.AfterStep = atMostOneHolder(net)
	var old SKMsg
	net.Run(5*time.Second,
		askAt(net, millis(100), 2),
		peerAt(millis(150), func() {
			p := sk(net, 2)
			old = SKMsg{Type: SKToken, Pass: p.pass, LN: slices.Clone(p.ln)}
		}),
		askAt(net, millis(160), 3),
		leaveAt(net, millis(200), 2), // the token goes to 3, which holds the section
		askAt(net, millis(300), 2),
		peerAt(millis(350), func() {
			sk(net, 2).receive(1, old)
			atMostOneHolder(net)(net.Nodes[2])
		}),
	)
	if got := entryOrder(stays(t, net)); !slices.Equal(got, []protocol.NodeID{2, 3}) {
		t.Fatalf("entries %v, want [2 3] (2 waits for 3's release)", got)
	}
}

// TestPeerFuzzNoPanic throws random events at every algorithm among a random
// workload: random messages of the algorithm's type through its receive
// and through the channel (from members, non-members and nobody), foreign
// message types, stray acknowledgements and timers, random commands. No
// process may panic.
func TestPeerFuzzNoPanic(t *testing.T) {
	for _, alg := range []string{RicartAgrawala, Lamport, SuzukiKasami} {
		for seed := uint64(1); seed <= 30; seed++ {
			rng := rand.New(rand.NewPCG(seed, 42))
			net := protonet.New(t, alg, memberIDs(4), nil, seed, protonet.Shuffled(seed))
			var acts []protonet.Action
			for range 300 {
				d := millis(rng.IntN(3000))
				id := protocol.NodeID(1 + rng.IntN(4))
				from := protocol.NodeID(rng.IntN(7)) // 0, members, non-members
				switch rng.IntN(6) {
				case 0:
					acts = append(acts, askAt(net, d, id))
				case 1:
					acts = append(acts, leaveAt(net, d, id))
				case 2:
					acts = append(acts, peerAt(d, func() { fuzzReceive(net, alg, id, from, rng) }))
				case 3:
					acts = append(acts, peerAt(d, func() {
						net.Step(id, protocol.Receive{From: from, Msg: fuzzData(alg, rng)})
					}))
				case 4:
					acts = append(acts, peerAt(d, func() {
						net.Step(id, protocol.Receive{From: from, Msg: reliable.Ack{Chan: channelTimer, Seq: uint32(rng.IntN(5)), Conn: 1}})
					}))
				case 5:
					acts = append(acts, peerAt(d, func() {
						net.Step(id, protocol.Timeout{ID: protocol.TimerID(rng.IntN(50)), Name: channelTimer, Arg: int64(rng.IntN(6))})
						net.Step(id, protocol.Receive{From: from, Msg: RAMsg{Type: RARequest}}) // not wrapped in Data
						net.Step(id, protocol.Receive{From: from})                              // no message at all
						net.Step(id, protocol.Command{Name: protocol.Elect})
					}))
				}
			}
			net.Run(10*time.Second, acts...)
		}
	}
}

func fuzzFields(rng *rand.Rand) (uint8, uint64, uint64) {
	return uint8(rng.IntN(5)), uint64(rng.IntN(6)), uint64(rng.IntN(6))
}

func fuzzSK(rng *rand.Rand) SKMsg {
	typ, a, b := fuzzFields(rng)
	m := SKMsg{Type: SKType(typ), Seq: a, Pass: b}
	for range rng.IntN(6) {
		m.LN = append(m.LN, uint64(rng.IntN(4)))
	}
	for range rng.IntN(4) {
		m.Queue = append(m.Queue, protocol.NodeID(rng.IntN(7)))
	}
	return m
}

func fuzzReceive(net *protonet.Network, alg string, id, from protocol.NodeID, rng *rand.Rand) {
	sn := net.Nodes[id]
	if !sn.Alive {
		return
	}
	// What reaches receive passed Step's filter: another member.
	if from == id || from == 0 || from > 4 {
		from = id%4 + 1
	}
	typ, a, b := fuzzFields(rng)
	switch p := sn.Proc.(type) {
	case *ricartAgrawala:
		p.receive(from, RAMsg{Type: RAType(typ), TS: a, For: b})
	case *lamport:
		p.receive(from, LamportMsg{Type: LamportType(typ), TS: a, For: b})
	case *suzukiKasami:
		p.receive(from, fuzzSK(rng))
	default:
		net.T.Fatalf("%s: process %T", alg, p)
	}
}

func fuzzData(alg string, rng *rand.Rand) protocol.Message {
	typ, a, b := fuzzFields(rng)
	seq := uint32(1 + rng.IntN(3))
	switch alg {
	case RicartAgrawala:
		return reliable.Data[RAMsg]{Inc: uint64(rng.IntN(2)), Conn: 1, Seq: seq, Base: 1, Msg: RAMsg{Type: RAType(typ), TS: a, For: b}}
	case Lamport:
		return reliable.Data[LamportMsg]{Inc: uint64(rng.IntN(2)), Conn: 1, Seq: seq, Base: 1, Msg: LamportMsg{Type: LamportType(typ), TS: a, For: b}}
	}
	return reliable.Data[SKMsg]{Inc: uint64(rng.IntN(2)), Conn: 1, Seq: seq, Base: 1, Msg: fuzzSK(rng)}
}
