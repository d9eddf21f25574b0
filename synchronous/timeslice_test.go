package synchronous

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// arrangements gives rings of several sizes and ID sets, each ascending,
// descending and shuffled (a fixed seed).
func arrangements() map[string][]protocol.NodeID {
	rng := rand.New(rand.NewPCG(12, 1))
	out := map[string][]protocol.NodeID{}
	sets := [][]protocol.NodeID{span(1, 2), span(1, 3), span(1, 5), span(1, 8), span(1, 13), ids(4, 7, 9, 12), ids(3, 5, 6, 10, 11, 20, 21)}
	for _, s := range sets {
		asc := slices.Clone(s)
		desc := slices.Clone(s)
		slices.Reverse(desc)
		shuf := slices.Clone(s)
		rng.Shuffle(len(shuf), func(i, j int) { shuf[i], shuf[j] = shuf[j], shuf[i] })
		out[fmt.Sprint("asc", asc)] = asc
		out[fmt.Sprint("desc", desc)] = desc
		out[fmt.Sprint("shuf", shuf)] = shuf
	}
	return out
}

// TestTimeSliceExact runs TimeSlice in lockstep on many rings, all nodes
// waking at round 1: the smallest ID m is every node's leader, exactly n
// token messages, all sent in the rounds of phase m, exactly (m+1)·n
// rounds (first phase 0, the seed's) or m·n (first phase 1), as the theory
// says, and every node halted.
func TestTimeSliceExact(t *testing.T) {
	for name, order := range arrangements() {
		for _, f := range []int{0, 1} {
			n := len(order)
			m := slices.Min(order)
			params := protocol.Params{}
			if f == 1 {
				params["first_phase"] = 1
			}
			res := runRing(t, TimeSlice, order, allAt(order, 1), params, 10000)
			want := (int(m) - f + 1) * n
			if res.Messages != n || res.kinds[KindToken] != n || res.Rounds != want {
				t.Errorf("%s f=%d: %d messages (%v), %d rounds; want %d and %d", name, f, res.Messages, res.kinds, res.Rounds, n, want)
			}
			for r, c := range res.Sent {
				if c > 0 && (r+1 < want-n+1 || r+1 > want) {
					t.Errorf("%s f=%d: %d message(s) in round %d, outside phase %d (rounds %d-%d)", name, f, c, r+1, m, want-n+1, want)
				}
			}
			for _, id := range order {
				if l, ok := res.latest(id, protocol.NoteLeader); !ok || l.Leader != m {
					t.Errorf("%s f=%d: node %d follows %v, want %d", name, f, id, l, m)
				}
			}
			res.allHalted(t)
			th, err := TimeSlice.Theory(order, nil, params)
			if err != nil || *th.Messages.Exact != res.Messages || *th.Rounds.Exact != res.Rounds {
				t.Errorf("%s f=%d: theory %+v %+v (%v), measured %d messages %d rounds", name, f, th.Messages, th.Rounds, err, res.Messages, res.Rounds)
			}
		}
	}
}

// TestTimeSliceLateWake: a node that wakes after its phase began cannot
// start; the next smallest ID that wakes in time wins, and the theory
// knows it. A node that never wakes spontaneously is woken by the token.
func TestTimeSliceLateWake(t *testing.T) {
	order := ids(5, 2, 7, 3, 9)
	n := len(order)
	// Node 2's phase starts at round 2·5+1 = 11; it wakes at 12. Node 3's
	// starts at 16; node 9 never wakes on its own.
	wake := map[protocol.NodeID]int{5: 1, 2: 12, 7: 1, 3: 3}
	res := runRing(t, TimeSlice, order, wake, nil, 1000)
	if res.Messages != n || res.Rounds != 4*n {
		t.Errorf("%d messages, %d rounds; want %d, %d", res.Messages, res.Rounds, n, 4*n)
	}
	for _, id := range order {
		if l, _ := res.latest(id, protocol.NoteLeader); l.Leader != 3 {
			t.Errorf("node %d follows %d, want 3", id, l.Leader)
		}
	}
	res.allHalted(t)
	th, err := TimeSliceTheory(order, wake, 0)
	if err != nil || *th.Rounds.Exact != res.Rounds || *th.Messages.Exact != res.Messages {
		t.Errorf("theory %+v, %v", th, err)
	}
	if _, err := TimeSliceTheory(order, map[protocol.NodeID]int{2: 100}, 0); err == nil || !strings.Contains(err.Error(), "protocol.params.wake") {
		t.Errorf("no one in time: %v", err)
	}
}

// TestTimeSliceAlone: a ring of one elects itself in its phase and sends
// nothing.
func TestTimeSliceAlone(t *testing.T) {
	res := runRing(t, TimeSlice, ids(4), allAt(ids(4), 1), nil, 100)
	if res.Messages != 0 || res.Rounds != 4 {
		t.Errorf("%d messages, %d rounds; want 0, 4", res.Messages, res.Rounds)
	}
	if l, _ := res.latest(4, protocol.NoteLeader); l.Leader != 4 {
		t.Errorf("leader %d", l.Leader)
	}
	res.allHalted(t)
	th, _ := TimeSliceTheory(ids(4), nil, 0)
	if *th.Rounds.Exact != 4 || *th.Messages.Exact != 0 {
		t.Errorf("theory %+v", th)
	}
}

// TestTimeSliceBadInput: a bad first_phase and an ID 0 are errors naming
// the field.
func TestTimeSliceBadInput(t *testing.T) {
	ctx := rounds.Context{ID: 1, Members: ids(1, 2), Neighbors: ids(2), Left: 2, Right: 2}
	for _, v := range []any{2, -1, "zero", 0.5} {
		p := protocol.Params{"first_phase": v}
		r := p.Reader()
		_, err := TimeSlice.New(ctx, r)
		if err == nil || !strings.Contains(err.Error(), "protocol.params.first_phase") || r.Err() == nil {
			t.Errorf("first_phase %v: %v (reader %v)", v, err, r.Err())
		}
		if _, err := TimeSlice.Theory(ids(1, 2), nil, p); err == nil || !strings.Contains(err.Error(), "protocol.params.first_phase") {
			t.Errorf("theory with first_phase %v: %v", v, err)
		}
	}
	bad := rounds.Context{ID: 1, Members: ids(0, 1), Neighbors: ids(0), Right: 0}
	if _, err := TimeSlice.New(bad, protocol.Params{}.Reader()); err == nil || !strings.Contains(err.Error(), "nodes: node ID 0 is not positive") {
		t.Errorf("ID 0: %v", err)
	}
	if _, err := TimeSliceTheory(ids(0, 1), nil, 0); err == nil {
		t.Errorf("theory with ID 0: no error")
	}
}

// TestTimeSliceHostile: forged and damaged messages are ignored.
func TestTimeSliceHostile(t *testing.T) {
	var notes []protocol.Note
	ctx := rounds.Context{ID: 3, Members: ids(3, 5, 8), Neighbors: ids(5, 8), Left: 8, Right: 5,
		Note: func(n protocol.Note) { notes = append(notes, n) }}
	a, err := TimeSlice.New(ctx, protocol.Params{}.Reader())
	if err != nil {
		t.Fatal(err)
	}
	a.Start(1, true)
	junk := []rounds.In[Msg]{{From: 8, Msg: Msg{Type: 99, ID: 1}}, {From: 8, Msg: Msg{Type: TypeToken}},
		{From: 8, Msg: Msg{Type: TypeToken, ID: 3}}, {From: 8, Msg: Msg{Type: TypeInvite, ID: 3}}, {From: 8, Msg: Msg{Type: TypeFast, ID: 1}}}
	if out := a.Round(1, junk); len(out) != 0 || a.Halted() {
		t.Fatalf("junk: sent %v, halted %v", out, a.Halted())
	}
	// Its phase (3·3+1 = 10) still starts the token.
	for r := 2; r < 10; r++ {
		if out := a.Round(r, nil); len(out) != 0 {
			t.Fatalf("round %d: sent %v", r, out)
		}
	}
	if out := a.Round(10, nil); len(out) != 1 || out[0].To != 5 || out[0].Msg != (Msg{Type: TypeToken, ID: 3}) {
		t.Fatalf("phase start: %v", out)
	}
	if (Msg{Type: 99}).Kind() != "unknown" || (Msg{}).Kind() != "unknown" {
		t.Error("unknown kinds")
	}
}
