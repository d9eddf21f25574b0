package rounds_test

import (
	"strconv"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// maxMsg carries the largest ID a node has heard of.
type maxMsg struct{ Max uint32 }

func (maxMsg) Kind() string { return "max" }

// floodMax is the test algorithm: every node sends its ID to its
// neighbours in its wake round and, in every later round, the largest ID
// it learnt in the round before, if that grew; it halts after round D
// (protocol.params.rounds) and notes the largest ID as its leader.
type floodMax struct {
	ctx     rounds.Context
	d       int
	max     uint32
	grew    bool
	halted  bool
	started int
}

func newFloodMax(ctx rounds.Context, p *protocol.ParamReader) (rounds.Algorithm[maxMsg], error) {
	d := p.Int("rounds", 4)
	if d < 1 {
		p.Reject("rounds", d, "a positive integer")
	}
	return &floodMax{ctx: ctx, d: d, max: uint32(ctx.ID)}, nil
}

func (f *floodMax) Start(r int, spontaneous bool) { f.started, f.grew = r, true }

func (f *floodMax) Round(r int, in []rounds.In[maxMsg]) []rounds.Out[maxMsg] {
	for _, m := range in {
		if m.Msg.Max > f.max {
			f.max, f.grew = m.Msg.Max, true
		}
	}
	var out []rounds.Out[maxMsg]
	if f.grew && r < f.d {
		for _, n := range f.ctx.Neighbors {
			out = append(out, rounds.Out[maxMsg]{To: n, Msg: maxMsg{f.max}})
		}
	}
	f.grew = false
	if r >= f.d {
		f.halted = true
		if f.ctx.Note != nil {
			f.ctx.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: protocol.NodeID(f.max), Epoch: "1", Text: "max after " + strconv.Itoa(r) + " rounds"})
		}
	}
	return out
}

func (f *floodMax) Halted() bool { return f.halted }

func init() {
	for _, g := range []rounds.Graph{rounds.GraphRing, rounds.GraphRadio} {
		rounds.Register(rounds.Family[maxMsg]{
			Name:    "test/flood-" + string(g),
			Summary: "flood the largest ID for D rounds (a test algorithm)",
			Graph:   g,
			Goal:    protocol.GoalHighestID,
			New:     newFloodMax,
			Theory:  floodTheory,
		})
	}
}

// floodTheory: flood-max runs D-1 rounds (it halts in round D without
// sending) and sends at most n-1 messages per node per round.
func floodTheory(members []protocol.NodeID, _ map[protocol.NodeID]int, params protocol.Params) (rounds.Theory, error) {
	r := params.Reader()
	d := r.Int("rounds", 4)
	n := len(members)
	exact := d - 1
	return rounds.Theory{
		Rounds:   protocol.Bound{Name: "D-1", Formula: "D-1", Value: float64(d - 1), Exact: &exact},
		Messages: protocol.Bound{Name: "n(n-1)(D-1) at most", Formula: "n(n-1)(D-1)", Value: float64(n * (n - 1) * (d - 1))},
	}, nil
}
