package synchronous

import (
	"fmt"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// TimeSliceName is TimeSlice's protocol name.
const TimeSliceName = "sync/timeslice"

// TimeSlice is the phase algorithm of seed 001 on the logical ring: n is
// known; rounds are grouped in phases of n rounds, phase k taking rounds
// (k-f)·n+1 to (k-f+1)·n, with f = protocol.params.first_phase (0, the
// seed's numbering, by default; IDs are positive, so phase 0 is always
// empty, and first_phase: 1 skips it); a node with ID k that has seen no
// token when its phase begins elects itself and sends the only token round
// the ring; every other node notes the token's ID as its leader, forwards
// the token and halts; the elected node halts when its token returns. The
// smallest ID wins (protocol.GoalLowestID) with exactly n messages, in
// exactly (m-f+1)·n rounds for the smallest ID m (TimeSliceTheory).
var TimeSlice = rounds.Family[Msg]{
	Name:    TimeSliceName,
	Summary: "TimeSlice (seed 001): phases of n rounds, the node with ID k sends the only token in phase k; the smallest ID wins with n messages",
	Graph:   rounds.GraphRing,
	Goal:    protocol.GoalLowestID,
	New: func(ctx rounds.Context, p *protocol.ParamReader) (rounds.Algorithm[Msg], error) {
		f, err := firstPhase(p)
		if err != nil {
			return nil, err
		}
		if err := positiveIDs(ctx.Members); err != nil {
			return nil, err
		}
		return &timeSlice{ctx: ctx, start: phaseStart(ctx.ID, f, len(ctx.Members))}, nil
	},
	Theory: func(members []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) (rounds.Theory, error) {
		f, err := firstPhase(params.Reader())
		if err != nil {
			return rounds.Theory{}, err
		}
		return TimeSliceTheory(members, wake, f)
	},
	Candidates: TimeSliceCandidates,
}

// TimeSliceCandidates lists the members that can start the token: those
// that wake spontaneously by the first round of their phase (every member
// when wake is empty). The smallest of them wins; a member woken later, or
// only by the token, follows. A bad first_phase counts as 0 (New reports
// it).
func TimeSliceCandidates(members []protocol.NodeID, wake map[protocol.NodeID]int, params protocol.Params) []protocol.NodeID {
	f, _ := firstPhase(params.Reader())
	var c []protocol.NodeID
	for _, id := range members {
		w := 1
		if len(wake) > 0 {
			w = wake[id]
		}
		if w >= 1 && w <= phaseStart(id, f, len(members)) {
			c = append(c, id)
		}
	}
	return c
}

// firstPhaseWant says what protocol.params.first_phase accepts.
const firstPhaseWant = "0 or 1 (the number of the first phase: 0 as in seed 001, or 1 to skip the empty phase 0)"

// firstPhase reads protocol.params.first_phase: 0 (default) or 1.
func firstPhase(p *protocol.ParamReader) (int, error) {
	v, ok := p.Any("first_phase")
	if !ok {
		return 0, nil
	}
	id, isInt := protocol.NodeIDOf(v)
	if !isInt || id > 1 {
		p.Reject("first_phase", v, firstPhaseWant)
		return 0, fmt.Errorf("protocol.params.first_phase: %v is not %s", v, firstPhaseWant)
	}
	return int(id), nil
}

// positiveIDs refuses an ID 0: TimeSlice starts the node with ID k in phase
// k, numbered from 0 or 1.
func positiveIDs(members []protocol.NodeID) error {
	for _, m := range members {
		if m == 0 {
			return fmt.Errorf("nodes: node ID 0 is not positive: %s starts the node with ID k in phase k and needs IDs above zero", TimeSliceName)
		}
	}
	return nil
}

// phaseStart is the first round of the phase of ID k: (k-f)·n+1.
func phaseStart(k protocol.NodeID, f, n int) int {
	return (int(k)-f)*n + 1
}

type timeSlice struct {
	ctx    rounds.Context
	start  int // the first round of this node's phase
	leader bool
	halted bool
}

func (t *timeSlice) Start(r int, spontaneous bool) {
	note(t.ctx, protocol.Note{Kind: protocol.NoteElectionStart, Epoch: epoch})
}

func (t *timeSlice) Halted() bool { return t.halted }

func (t *timeSlice) Round(r int, in []rounds.In[Msg]) []rounds.Out[Msg] {
	for _, m := range in {
		if m.Msg.Type != TypeToken || m.Msg.ID == protocol.None {
			continue // not TimeSlice's: ignored
		}
		if m.Msg.ID == t.ctx.ID {
			if t.leader { // the token is back: every node has seen it
				t.halt()
				return nil
			}
			continue // a token with this node's ID it never sent: forged
		}
		if t.leader {
			continue // another token while this node's goes round: cannot happen in rounds
		}
		follow(t.ctx, m.Msg.ID)
		t.halt()
		return []rounds.Out[Msg]{{To: t.ctx.Right, Msg: m.Msg}}
	}
	if t.leader || r != t.start {
		return nil
	}
	t.leader = true
	follow(t.ctx, t.ctx.ID)
	if alone(t.ctx) {
		t.halt()
		return nil
	}
	return []rounds.Out[Msg]{{To: t.ctx.Right, Msg: Msg{Type: TypeToken, ID: t.ctx.ID}}}
}

func (t *timeSlice) halt() {
	t.halted = true
	note(t.ctx, protocol.Note{Kind: protocol.NoteElectionEnd, Epoch: epoch})
}

// TimeSliceTheory is TimeSlice's complexity on the ring order (any order:
// it does not matter) with the wake rounds (nil or empty: every member
// wakes at round 1) and the first phase f. A node can start the token only
// if it wakes spontaneously by the first round of its phase; the winner m
// is the smallest such ID. Messages: exactly n (the token goes once round;
// 0 for a ring of one). Rounds: exactly (m-f+1)·n, the end of the winner's
// phase, when its token's last hop is sent (a ring of one sends nothing:
// the rounds before the phase, (m-f)·1, if it wakes before then).
func TimeSliceTheory(order []protocol.NodeID, wake map[protocol.NodeID]int, f int) (rounds.Theory, error) {
	n := len(order)
	if err := positiveIDs(order); err != nil {
		return rounds.Theory{}, err
	}
	var m protocol.NodeID
	var mw int
	for _, id := range order {
		w := 1
		if len(wake) > 0 {
			w = wake[id]
		}
		if w >= 1 && w <= phaseStart(id, f, n) && (m == protocol.None || id < m) {
			m, mw = id, w
		}
	}
	if m == protocol.None {
		return rounds.Theory{}, fmt.Errorf("protocol.params.wake: no member wakes by the first round of its phase, so %s elects no one", TimeSliceName)
	}
	msgs, rnds := n, (int(m)-f+1)*n
	if n == 1 {
		msgs, rnds = 0, 0
		if mw < phaseStart(m, f, 1) {
			rnds = phaseStart(m, f, 1) - 1
		}
	}
	formula := "n·(m+1)"
	if f == 1 {
		formula = "n·m"
	}
	return rounds.Theory{
		Rounds: protocol.Bound{Name: "TimeSlice: the end of the smallest ID m's phase", Formula: formula,
			Value: float64(rnds), Exact: intp(rnds)},
		Messages: protocol.Bound{Name: "TimeSlice: the token once round the ring", Formula: "n",
			Value: float64(msgs), Exact: intp(msgs), ExactIf: protocol.NoFaults},
	}, nil
}
