package bully

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
	"manetlab/protocol/reliable"
)

// TestPartitionsElectTheirOwnHighestAndMerge: a network cut in two elects
// the highest of each side (members give up on the unreachable, and each
// side's highest wins); healed, it ends with the highest ID, in one epoch.
func TestPartitionsElectTheirOwnHighestAndMerge(t *testing.T) {
	for _, form := range forms {
		for _, n := range []int{2, 5, 8} {
			members := ids(n)
			for split := 1; split < n; split++ {
				t.Run(fmt.Sprintf("%s/n=%d/split=%d", form, n, split), func(t *testing.T) {
					low, high := members[:split], members[split:]
					net := protonet.New(t, form, members, nil, uint64(split))
					net.Run(time.Minute, at(10*time.Second, func() { net.Cut(low, high) }))
					// The side of the old leader keeps it; the other side elects its highest.
					net.CheckGroup(slices.Clone(low))
					net.CheckGroup(slices.Clone(high))
					net.Run(2*time.Minute, at(time.Minute, net.Heal))
					net.CheckElected()
				})
			}
		}
	}
}

// TestPartitionThatStartsApart: the two sides never met; each elects its
// highest, and when they meet the lower coordinator's probe (textbook) or
// Check (Garcia-Molina) brings them under the highest ID.
func TestPartitionThatStartsApart(t *testing.T) {
	for _, form := range forms {
		members := ids(9)
		low, high := []protocol.NodeID{1, 3, 5, 7, 9}, []protocol.NodeID{2, 4, 6, 8}
		net := protonet.New(t, form, members, nil, 1, func(n *network) { n.Cut(low, high) })
		net.Run(40 * time.Second)
		if e := net.CheckGroup(low); !strings.HasPrefix(e, "9.") {
			t.Fatalf("%s: low side in epoch %s", form, e)
		}
		if e := net.CheckGroup(high); !strings.HasPrefix(e, "8.") {
			t.Fatalf("%s: high side in epoch %s", form, e)
		}
		net.Heal()
		net.Run(90 * time.Second)
		if e := net.CheckElected(); !strings.HasPrefix(e, "9.") {
			t.Fatalf("%s: merged in epoch %s", form, e)
		}
	}
}

// TestSevenNodeExample is the seeds' example (002): seven processes, 7
// leads; 7 crashes, 4 notices (the only detector), 5 and 6 answer and hold
// elections, 6 wins and tells everyone; 7 comes back and bullies its way
// back in a later epoch.
func TestSevenNodeExample(t *testing.T) {
	for _, form := range forms {
		members := ids(7)
		net := protonet.New(t, form, members, protocol.Params{"detectors": []any{4}}, 1)
		net.Run(20 * time.Second)
		if e := net.CheckElected(); e != "7.1" {
			t.Fatalf("%s: first epoch %s", form, e)
		}
		net.Run(50*time.Second, at(20*time.Second, func() { net.Crash(7) }))
		if e := net.CheckElected(); e != "6.2" {
			t.Fatalf("%s: after the crash, epoch %s, want 6.2", form, e)
		}
		var starters []protocol.NodeID
		for _, r := range net.Notes {
			if r.At > 20*time.Second && r.Kind == protocol.NoteInfo && strings.Contains(r.Text, "suspected") {
				starters = append(starters, r.Node)
			}
		}
		if !slices.Equal(starters, []protocol.NodeID{4}) {
			t.Fatalf("%s: nodes that suspected the leader: %v, want only 4", form, starters)
		}
		net.Run(80*time.Second, at(50*time.Second, func() { net.Recover(7) }))
		if e := net.CheckElected(); !strings.HasPrefix(e, "7.") || e == "7.1" {
			t.Fatalf("%s: after the recovery, epoch %s, want 7.x, x > 1", form, e)
		}
	}
}

// TestEpochsNeverRepeatAcrossCrashes: the highest ID crashes and recovers
// again and again, each time before or after its announcement went out;
// stable storage keeps its numbers growing, so each of its epochs is new
// (and CheckSafety holds: one leader per epoch).
func TestEpochsNeverRepeatAcrossCrashes(t *testing.T) {
	for _, form := range forms {
		members := ids(4)
		net := protonet.New(t, form, members, nil, 1)
		var acts []protonet.Action
		for k := range 12 {
			down := time.Duration(10+7*k)*time.Second + time.Duration(k%3)*time.Millisecond
			acts = append(acts, at(down, func() { net.Crash(4) }), at(down+time.Duration(k%4)*time.Second+time.Millisecond, func() { net.Recover(4) }))
		}
		net.Run(3*time.Minute, acts...)
		net.CheckElected()
		seen := map[string]int{}
		for _, r := range net.Notes {
			if r.Node == 4 && r.Kind == protocol.NoteLeader && r.Leader == 4 {
				if g, dup := seen[r.Epoch]; dup && g != r.Gen {
					t.Fatalf("%s: epoch %s announced by node 4 in two lives (%d, %d)", form, r.Epoch, g, r.Gen)
				}
				seen[r.Epoch] = r.Gen
			}
		}
		if len(seen) < 12 {
			t.Fatalf("%s: node 4 led %d epochs, want at least 12: %v", form, len(seen), seen)
		}
	}
}

// TestStateVectorInStableStorage: Garcia-Molina's state vector is written
// on every state change and read at Start; a recovered node notes that it
// was down and starts an election (Recovery); the counter survives.
func TestStateVectorInStableStorage(t *testing.T) {
	members := ids(5)
	net := protonet.New(t, GarciaMolina, members, nil, 1)
	net.Run(10 * time.Second)
	vector := func(id protocol.NodeID) string {
		b, _ := net.Nodes[id].Store.Get(StateKey)
		return string(b)
	}
	if v := vector(5); v != "s=Normal c=5 h=5 d=1 counter=1 up=1,2,3,4" {
		t.Fatalf("coordinator's vector %q", v)
	}
	if v := vector(2); v != "s=Normal c=5 h=5 d=1 counter=1 up=" {
		t.Fatalf("member's vector %q", v)
	}
	net.Run(40*time.Second, at(10*time.Second, func() { net.Crash(2) }), at(20*time.Second, func() { net.Recover(2) }))
	found := false
	for _, r := range net.Notes {
		if r.Node == 2 && r.Gen == 2 && r.Kind == protocol.NoteInfo && strings.Contains(r.Text, "it was down") &&
			strings.Contains(r.Text, `"s=Normal c=5 h=5 d=1 counter=1 up="`) {
			found = true
		}
	}
	if !found {
		t.Fatal("the recovered node did not note its state vector")
	}
	// The coordinator takes the recovered node in with a new election
	// (two, when the Halt waits in the channel behind a Check sent to the
	// dead node, until the retransmission timer gives up on it).
	e := net.CheckElected()
	var d int
	if _, err := fmt.Sscanf(e, "5.%d", &d); err != nil || d < 2 {
		t.Fatalf("after node 2's recovery, epoch %s, want 5.x, x > 1", e)
	}
	if v, want := vector(2), fmt.Sprintf("s=Normal c=5 h=5 d=%d counter=%d up=", d, d); v != want {
		t.Fatalf("recovered member's vector %q, want %q", v, want)
	}
	// A store that holds garbage is noted and the node counts from 0.
	net.Crash(3)
	net.Nodes[3].Store.Put(StateKey, []byte("s=Normal counter=many"))
	net.Recover(3)
	net.Run(80 * time.Second)
	net.CheckElected()
}

// TestLossIsRepairedByTheTransport: with 20 % of frames lost, the
// detection scenario elects the same leader with the same algorithm
// counts as without loss; the extra traffic is only acknowledgements and
// retransmissions. The timeouts are raised so that an answer delayed by
// retransmissions is never taken for silence (at 20 % loss a frame and its
// acknowledgement both get through with probability 0.64).
func TestLossIsRepairedByTheTransport(t *testing.T) {
	params := protocol.Params{"retries": 30, "timeout": "8s", "leader-timeout": "30s", "check": 0}
	for _, form := range forms {
		retx := 0
		for _, n := range []int{2, 3, 5, 8} {
			for r := 1; r < n; r++ {
				p := protocol.Params{"initiators": []any{r}}
				for k, v := range params {
					p[k] = v
				}
				run := func(opts ...func(*network)) *network {
					net := protonet.New(t, form, ids(n), p, 1, opts...)
					net.Run(3*time.Minute, at(500*time.Millisecond, func() { net.Crash(protocol.NodeID(n)) }))
					net.CheckElected()
					return net
				}
				want := run().AlgorithmKinds()
				for s := uint64(1); s <= 3; s++ {
					net := run(protonet.Lossy(0.2, s))
					if got := net.AlgorithmKinds(); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s n=%d rank %d loss seed %d: algorithm kinds %v, lossless %v", form, n, r, s, got, want)
					}
					retx += net.Sent[reliable.KindRetx]
				}
			}
		}
		if retx == 0 {
			t.Fatalf("%s: 20%% loss and no retransmission", form)
		}
	}
}

// TestRunsAreDeterministic: the same seed gives the same notes and frames,
// faults, loss and random delivery order included.
func TestRunsAreDeterministic(t *testing.T) {
	for _, form := range forms {
		for seed := uint64(1); seed <= 20; seed++ {
			a, b := faultRun(t, form, seed), faultRun(t, form, seed)
			if a == nil || b == nil {
				continue
			}
			if fmt.Sprint(a.Notes) != fmt.Sprint(b.Notes) || fmt.Sprint(a.Sent) != fmt.Sprint(b.Sent) {
				t.Fatalf("%s seed %d: two runs differ", form, seed)
			}
		}
	}
}

// TestElectCommand: an elect command at the lowest member of a settled
// network. Textbook: its election reaches the coordinator, which answers
// OK and sends its coordinator message again (it holds no election for a
// lower node's): the epoch stays. Garcia-Molina: the AreYouThere reaches
// the coordinator, which holds an election: the next epoch.
func TestElectCommand(t *testing.T) {
	for _, form := range forms {
		for _, n := range []int{1, 2, 5} {
			net := protonet.New(t, form, ids(n), nil, 1)
			net.Run(20*time.Second, at(10*time.Second, func() { net.Command(1, protocol.Elect) }))
			want := fmt.Sprintf("%d.1", n)
			if form == GarciaMolina || n == 1 {
				want = fmt.Sprintf("%d.2", n)
			}
			if e := net.CheckElected(); e != want {
				t.Fatalf("%s n=%d: epoch %s after the command, want %s", form, n, e, want)
			}
		}
	}
}

// TestHostileMessagesDoNotPanic feeds both forms random messages of every
// type, number and sender, through the channel and around it, and random
// timeouts.
func TestHostileMessagesDoNotPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, form := range forms {
		net := protonet.New(t, form, ids(6), nil, 1)
		net.Run(3 * time.Second)
		sn := net.Nodes[3]
		for i := range 20000 {
			m := Msg{
				Type:   MsgType(rng.IntN(16)),
				Num:    []uint64{0, 1, 2, 3, 1 << 63, ^uint64(0)}[rng.IntN(6)],
				Leader: protocol.NodeID(rng.IntN(10)),
			}
			from := protocol.NodeID(rng.IntN(10))
			if from == sn.ID {
				from++
			}
			var ev protocol.Event = protocol.Receive{From: from, Msg: reliable.Data[Msg]{Inc: 1, Conn: 1, Seq: uint32(i + 1), Base: uint32(i + 1), Msg: m}}
			switch rng.IntN(4) {
			case 0:
				ev = protocol.Receive{From: from, Msg: m}
			case 1:
				names := []string{timerStart, timerFallback, timerAnswer, timerWait, timerTimeout, timerCheck, "reliable", "x"}
				ev = protocol.Timeout{ID: protocol.TimerID(rng.IntN(100)), Name: names[rng.IntN(len(names))], Arg: rng.Int64N(10)}
			}
			sn.Proc.Step(ev)
			sn.Env.Out = nil
		}
	}
}
