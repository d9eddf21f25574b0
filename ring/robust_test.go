package ring

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// TestNoFailuresAlgorithmsNoteAnUnreachablePeer: LeLann, Chang-Roberts and
// Hirschberg-Sinclair assume no failures; a member crashed before the
// election makes its predecessor note that the run left the assumptions,
// naming the peer, and nothing panics.
func TestNoFailuresAlgorithmsNoteAnUnreachablePeer(t *testing.T) {
	for _, alg := range algorithms[:3] {
		members := ids(5)
		net := newNetwork(t, alg, members, protocol.Params{"ring": "ascending"}, 1)
		net.Run(2*time.Minute, action{At: 500 * time.Millisecond, Fn: func() { net.Crash(members[2]) }})
		found := false
		for _, r := range net.Notes {
			if r.Kind == protocol.NoteInfo && strings.Contains(r.Text, fmt.Sprintf("node %d ", members[2])) &&
				strings.Contains(r.Text, "outside the algorithm's assumptions (no failures)") {
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: no info note about the unreachable node %d: %+v", alg, members[2], net.Notes)
		}
		net.CheckSafety()
	}
}

// TestHostileMessagesDoNotPanic feeds every algorithm random messages, of
// every type, epoch, phase and sender, directly and through the channel.
func TestHostileMessagesDoNotPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	members := ids(6)
	for _, alg := range algorithms {
		net := newNetwork(t, alg, members, nil, 1)
		net.Run(3 * time.Second)
		sn := net.Nodes[members[2]]
		for i := range 20000 {
			m := Msg{
				Type:    MsgType(rng.IntN(12)),
				Epoch:   []uint64{0, 1, 2, 3, 1 << 63, ^uint64(0)}[rng.IntN(6)],
				ID:      protocol.NodeID(rng.IntN(50)),
				Origin:  protocol.NodeID(rng.IntN(50)),
				Phase:   uint8(rng.IntN(256)),
				Hops:    rng.Uint32(),
				Back:    rng.IntN(2) == 0,
				Reached: rng.IntN(2) == 0,
				Done:    rng.IntN(2) == 0,
			}
			for range rng.IntN(4) {
				m.Live = append(m.Live, protocol.NodeID(rng.IntN(50)))
			}
			from := protocol.NodeID(rng.IntN(50))
			if from == sn.ID {
				from++ // drivers never hand a node its own frames
			}
			var ev protocol.Event = protocol.Receive{From: from, Msg: reliable.Data[Msg]{Inc: 1, Conn: 1, Seq: uint32(i + 1), Base: uint32(i + 1), Msg: m}}
			switch rng.IntN(4) {
			case 0:
				ev = protocol.Receive{From: from, Msg: m} // not through the channel: ignored
			case 1:
				ev = protocol.Timeout{ID: protocol.TimerID(rng.IntN(100)), Name: []string{timerStart, timerCheck, timerTimeout, "reliable", "x"}[rng.IntN(5)], Arg: rng.Int64N(60)}
			}
			sn.Proc.Step(ev)
			sn.Env.Out = nil
		}
	}
}

// TestRunsAreDeterministic: the same seed gives the same notes and the
// same frames, crashes, loss and random delivery order included.
func TestRunsAreDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		a := faultRun(t, seed, 0.05, protocol.Params{"rto": "100ms", "retries": 3}, 16)
		b := faultRun(t, seed, 0.05, protocol.Params{"rto": "100ms", "retries": 3}, 16)
		if a == nil || b == nil {
			continue
		}
		if fmt.Sprint(a.Notes) != fmt.Sprint(b.Notes) || fmt.Sprint(a.Sent) != fmt.Sprint(b.Sent) {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
	for _, alg := range algorithms {
		a := elect(t, alg, 13, arrangement{"random-2", "random", 2}, nil, shuffled(4))
		b := elect(t, alg, 13, arrangement{"random-2", "random", 2}, nil, shuffled(4))
		if fmt.Sprint(a.Notes) != fmt.Sprint(b.Notes) {
			t.Fatalf("%s: two runs differ", alg)
		}
	}
}

// TestElectCommandDuringAnElection: a second election started while the
// first is under way supersedes it; every epoch has one leader and all end
// in epoch 2 with the highest ID.
func TestElectCommandDuringAnElection(t *testing.T) {
	for _, alg := range algorithms {
		for _, n := range []int{3, 8, 16} {
			// After the start timers fired at 1s (a command before them
			// starts epoch 1 itself).
			for _, at := range []time.Duration{time.Second + 500*time.Microsecond, time.Second + 2*time.Millisecond, time.Second + 5*time.Millisecond} {
				members := ids(n)
				net := newNetwork(t, alg, members, protocol.Params{"ring": "random"}, 5, shuffled(uint64(n)))
				net.Run(horizon, action{At: at, Fn: func() { net.Command(members[n/2], protocol.Elect) }})
				if e := net.CheckElected(); e != "2" {
					t.Fatalf("%s n=%d command at %v: epoch %s, want 2", alg, n, at, e)
				}
			}
		}
	}
}
