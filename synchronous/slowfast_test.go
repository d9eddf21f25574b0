package synchronous

import (
	"math/rand/v2"
	"slices"
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// homeworkOrder and homeworkWake are seed 001's homework: p1, p5 and p8
// wake at round 1, p3 at round 2. The figure of the ring is not in the
// seed's text; we take p_i to have ID i and the ring to run p1, p2, ...,
// p8 in the direction of the messages (clockwise), as in
// configs/sync-slow-fast-homework.yaml.
var (
	homeworkOrder = span(1, 8)
	homeworkWake  = map[protocol.NodeID]int{1: 1, 5: 1, 8: 1, 3: 2}
)

// TestSlowFastHomework reproduces the homework by hand (docs/protocols/
// sync.md traces it round by round): p1's fast message is slowed at p3
// (round 3) and moves one edge every 2 rounds from there, swallowing p3's
// and p5's, and returns to p1 in round 15: 8 fast messages (p1 2, p5 3,
// p3 2, p8 1) and 6 slow ones (p1's from p3 to p8); then the announcement
// goes round, its last hop in round 22.
func TestSlowFastHomework(t *testing.T) {
	res := runRing(t, SlowFast, homeworkOrder, homeworkWake, nil, 1000)
	if res.kinds[KindFast] != 8 || res.kinds[KindSlow] != 6 || res.kinds[KindElected] != 8 || res.Messages != 22 || res.Rounds != 22 {
		t.Errorf("kinds %v, %d messages, %d rounds; want fast 8, slow 6, elected 8, 22 messages, 22 rounds", res.kinds, res.Messages, res.Rounds)
	}
	wantSent := []int{3, 3, 2, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if !slices.Equal(res.Sent, wantSent) {
		t.Errorf("sent per round %v, want %v", res.Sent, wantSent)
	}
	for _, id := range homeworkOrder {
		if l, _ := res.latest(id, protocol.NoteLeader); l.Leader != 1 {
			t.Errorf("node %d follows %d, want 1", id, l.Leader)
		}
	}
	res.allHalted(t)
	if act := SlowFastActive(homeworkOrder, homeworkWake); !slices.Equal(act, ids(1, 3, 5, 8)) {
		t.Errorf("active %v, want 1, 3, 5, 8", act)
	}
	th, err := SlowFast.Theory(homeworkOrder, homeworkWake, nil)
	if err != nil || *th.Rounds.Exact != 22 || th.Messages.Value != 48 {
		t.Errorf("theory %+v, %v", th, err)
	}
}

// TestSlowFastRandom runs slow-fast on random rings (IDs drawn from a
// small range, as the seed's worst cases need) with random wake rounds:
// the smallest active ID is every node's leader, the rounds are exactly
// the theory's, the election messages (fast and slow) are at most 4n (the
// issue's and classic.md's figure; seed 001 proves 5n, the Theory's bound)
// and the announcement exactly n, and every node halts.
func TestSlowFastRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	worst, skipped := 0.0, 0
	for trial := range 400 {
		n := 2 + rng.IntN(11)
		pool := rng.Perm(2 * n)
		order := make([]protocol.NodeID, n)
		for i := range order {
			order[i] = protocol.NodeID(pool[i] + 1)
		}
		wake := map[protocol.NodeID]int{}
		switch trial % 3 {
		case 0: // everyone at round 1
			wake = allAt(order, 1)
		default: // a random subset at random rounds
			for _, id := range order {
				if rng.IntN(2) == 0 {
					wake[id] = 1 + rng.IntN(2*n)
				}
			}
			if len(wake) == 0 {
				wake[order[0]] = 1
			}
		}
		if th, err := SlowFastTheory(order, wake); err != nil || th.Rounds.Value > 1<<18 {
			skipped++ // a large leader ID: 2^ID rounds an edge
			continue
		}
		res := runRing(t, SlowFast, order, wake, nil, 1<<20)
		act := SlowFastActive(order, wake)
		leader := slices.Min(act)
		for _, id := range order {
			if l, _ := res.latest(id, protocol.NoteLeader); l.Leader != leader {
				t.Fatalf("ring %v wake %v: node %d follows %d, want %d (active %v)", order, wake, id, l.Leader, leader, act)
			}
		}
		election := res.kinds[KindFast] + res.kinds[KindSlow]
		if election > 4*n || res.kinds[KindElected] != n {
			t.Errorf("ring %v wake %v: %v", order, wake, res.kinds)
		}
		worst = max(worst, float64(election)/float64(n))
		th, err := SlowFastTheory(order, wake)
		if err != nil || *th.Rounds.Exact != res.Rounds || float64(res.Messages) > th.Messages.Value {
			t.Fatalf("ring %v wake %v: theory %+v (%v); measured %d rounds, %d messages", order, wake, th, err, res.Rounds, res.Messages)
		}
		if len(act) == 1 && *th.Messages.Exact != res.Messages {
			t.Errorf("ring %v wake %v: one active node, %d messages, want %d", order, wake, res.Messages, *th.Messages.Exact)
		}
		res.allHalted(t)
	}
	if skipped > 100 {
		t.Errorf("%d of 400 rings skipped", skipped)
	}
	t.Logf("largest election messages / n: %.2f (%d rings skipped)", worst, skipped)
}

// TestSlowFastAlone: a ring of one is elected at once.
func TestSlowFastAlone(t *testing.T) {
	res := runRing(t, SlowFast, ids(6), allAt(ids(6), 1), nil, 100)
	if res.Messages != 0 || res.Rounds != 0 {
		t.Errorf("%d messages, %d rounds", res.Messages, res.Rounds)
	}
	if l, _ := res.latest(6, protocol.NoteLeader); l.Leader != 6 {
		t.Errorf("leader %d", l.Leader)
	}
	res.allHalted(t)
}

// TestSlowFastHostile: forged and damaged messages are ignored, and a huge
// ID's slow message never overflows a round number.
func TestSlowFastHostile(t *testing.T) {
	ctx := rounds.Context{ID: 4, Members: ids(2, 4, 9), Neighbors: ids(2, 9), Left: 2, Right: 9}
	a, _ := SlowFast.New(ctx, protocol.Params{}.Reader())
	a.Start(1, false)
	// A relay: its own ID, junk, then an ID too large to wait for.
	in := []rounds.In[Msg]{{From: 2, Msg: Msg{Type: TypeFast, ID: 4}}, {From: 2, Msg: Msg{Type: 42, ID: 1}},
		{From: 2, Msg: Msg{Type: TypeSlow}}, {From: 2, Msg: Msg{Type: TypeSlow, ID: 1 << 31}}}
	for r := 1; r < 50; r++ {
		if out := a.Round(r, in); len(out) != 0 || a.Halted() {
			t.Fatalf("round %d: sent %v, halted %v", r, out, a.Halted())
		}
		in = nil
	}
	// A smaller fast ID still goes through at once.
	if out := a.Round(50, []rounds.In[Msg]{{From: 2, Msg: Msg{Type: TypeSlow, ID: 1}}}); len(out) != 0 {
		t.Fatalf("slow 1 sent at once: %v", out)
	}
	if out := a.Round(51, nil); len(out) != 1 || out[0].Msg != (Msg{Type: TypeSlow, ID: 1}) {
		t.Fatalf("slow 1 after 2^1 rounds: %v", out)
	}
	if out := a.Round(52, []rounds.In[Msg]{{From: 2, Msg: Msg{Type: TypeElected, ID: 1}}}); len(out) != 1 || !a.Halted() {
		t.Fatalf("announcement: %v, halted %v", out, a.Halted())
	}
}
