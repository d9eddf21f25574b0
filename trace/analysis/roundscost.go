package analysis

import (
	"fmt"
	"io"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// SyncCost sets a synchronizer's measured cost beside the seed's formulas
// (seed 000): M_A = M_init + M_S + T_S·M(sync) and T_A = T_S·T(sync), with
// T_S taken as the pulses the synchronizer ran. docs/protocols/
// synchronizers.md gives each synchronizer's M(sync), T(sync) and the
// counting rule behind Exact.
type SyncCost struct {
	Synchronizer string `json:"synchronizer"`
	Nodes        int    `json:"nodes"`
	// Edges is E, the algorithm graph's edges, from the nodes' sync notes.
	Edges int `json:"edges"`
	// Depth is beta's tree depth.
	Depth int `json:"depth,omitempty"`
	// MInit is the messages before round 1 (beta's tree, abd's start
	// flood), MPulse the synchronizer's messages per round (an upper
	// bound: acks are at most one per algorithm message), TPulse a round's
	// time in message delays (abd: seconds, 2d).
	MInit       string  `json:"m_init,omitempty"`
	MInitValue  float64 `json:"m_init_value"`
	MPulse      string  `json:"m_pulse"`
	MPulseValue float64 `json:"m_pulse_value"`
	TPulse      string  `json:"t_pulse"`
	TPulseValue float64 `json:"t_pulse_value"`
	// MA is the seed's M_A evaluated for this run (the bound the
	// measured total keeps under), TA its T_A.
	MA      string  `json:"m_a"`
	MAValue float64 `json:"m_a_value"`
	TA      string  `json:"t_a"`
	TAValue float64 `json:"t_a_value"`
	// Measured is the run's M_A: envelopes carrying algorithm messages,
	// the synchronizer's own messages and the tree; the radio graph's
	// hellos and the transport apart.
	Measured uint64 `json:"measured"`
	// ExactSync is what the counting rule says the synchronizer's own
	// messages (sync-*, tree apart) must be for the halting rounds this
	// run had, when every live node halted; ExactTree is beta's tree.
	ExactSync *int `json:"exact_sync,omitempty"`
	ExactTree *int `json:"exact_tree,omitempty"`
}

// computeRoundsComplexity measures a round protocol's run.
func computeRoundsComplexity(l *loader, r *run, tr *truth, info rounds.Info) (*Complexity, string) {
	rr, err := loadRounds(l)
	if err != nil {
		return nil, "rounds: " + err.Error()
	}
	c := &Complexity{Synchronizer: rr.sync, SyncMessages: rr.sync_, TreeMessages: rr.tree, HelloMessages: rr.hello, Carriers: rr.carriers, Transport: rr.transport}
	first, last := int64(-1), int64(-1)
	for _, n := range rr.nodes {
		c.Messages += n.sent
		c.Rounds = max(c.Rounds, n.active)
		c.Pulses = max(c.Pulses, n.last)
		if n.first >= 0 && (first < 0 || n.first < first) {
			first = n.first
		}
		last = max(last, n.lastT)
	}
	if first >= 0 {
		c.Time = seconds(last - first)
	}
	if _, _, _, _, text := rr.stall(); text != "" {
		c.Stalled = text
	}
	c.Sync = rr.cost(c)
	if tr == nil {
		return c, "complexity bound unknown: the scenario is unknown"
	}
	ids := make([]protocol.NodeID, len(tr.members))
	for i, m := range tr.members {
		ids[i] = m.ID
	}
	ps, err := info.Parse(ids, tr.sc.Protocol.Params, tr.sc.Seed)
	if err != nil {
		return c, "complexity bound unknown: " + err.Error()
	}
	if ps.Ring != nil {
		ids = ps.Ring
	}
	if c.Sync != nil && ps.Synchronizer == rounds.ABD {
		c.Sync.TPulseValue = 2 * ps.D.Seconds()
		c.Sync.TAValue = float64(c.Pulses) * c.Sync.TPulseValue
	}
	if nbrs := rr.graph(); info.TheoryGraph != nil && nbrs != nil {
		th, err := info.TheoryGraph(nbrs, ps.Wake, tr.sc.Protocol.Params)
		if err != nil {
			return c, "complexity bound unknown: " + err.Error()
		}
		c.Bound = th.Messages
		rb := th.Rounds
		c.RoundsBound = &rb
		c.judge(l, r, tr, nil)
		return c, ""
	}
	if info.Theory == nil {
		return c, ""
	}
	th, err := info.Theory(ids, ps.Wake, tr.sc.Protocol.Params)
	if err != nil {
		return c, "complexity bound unknown: " + err.Error()
	}
	c.Bound = th.Messages
	rb := th.Rounds
	c.RoundsBound = &rb
	c.judge(l, r, tr, nil)
	return c, ""
}

// graph is every node's neighbours as its sync note gives them, nil when
// some node noted none (it never settled).
func (rr *roundsRun) graph() map[protocol.NodeID][]protocol.NodeID {
	g := make(map[protocol.NodeID][]protocol.NodeID, len(rr.nodes))
	for _, n := range rr.nodes {
		if n.sync == "" {
			return nil
		}
		g[n.id] = n.nbrs
	}
	return g
}

// cost evaluates the synchronizer's formulas for the run.
func (rr *roundsRun) cost(c *Complexity) *SyncCost {
	s := &SyncCost{Synchronizer: rr.sync, Nodes: len(rr.nodes)}
	type edge struct{ a, b protocol.NodeID }
	edges := map[edge]bool{}
	// halt is a node's last round: where it halted, or the last it ran.
	halt := func(id protocol.NodeID) int {
		if n := rr.byID[id]; n != nil {
			if n.haltRound > 0 {
				return n.haltRound
			}
			return n.last
		}
		return 0
	}
	sumMin := 0
	for _, n := range rr.nodes {
		for _, j := range n.nbrs {
			edges[edge{min(n.id, j), max(n.id, j)}] = true
			sumMin += min(halt(n.id), halt(j))
		}
	}
	E, n, P := len(edges), len(rr.nodes), c.Pulses
	s.Edges = E
	ms := float64(c.Messages)
	exact := func(v int) *int { return &v }
	allHalted := c.Stalled == ""
	carriers := int(c.Carriers)
	switch rr.sync {
	case rounds.Simple:
		s.MPulse, s.MPulseValue = "2E", float64(2*E)
		s.TPulse, s.TPulseValue = "1", 1
		s.MA, s.MAValue = "M_S + T·2E", ms+float64(P*2*E)
		if allHalted {
			s.ExactSync = exact(sumMin - carriers)
		}
	case rounds.Alpha:
		s.MPulse, s.MPulseValue = "2E safe + one ack per envelope", float64(2*E)
		s.TPulse, s.TPulseValue = "3", 3
		s.MA, s.MAValue = "M_S + T·2E + acks <= 2·M_S + T·2E", 2*ms+float64(P*2*E)
		if allHalted {
			s.ExactSync = exact(sumMin + carriers)
		}
	case rounds.Beta:
		s.Depth = rr.depth()
		s.MInit, s.MInitValue = "4E - n + 1", float64(4*E-n+1)
		s.MPulse, s.MPulseValue = "2(n-1) + one ack per envelope", float64(2*(n-1))
		s.TPulse, s.TPulseValue = "2·depth + 2", float64(2*s.Depth+2)
		s.MA, s.MAValue = "M_init + M_S + T·2(n-1) + acks <= M_init + 2·M_S + T·2(n-1)", s.MInitValue+2*ms+float64(P*2*(n-1))
		if allHalted {
			s.ExactSync = exact(2*(n-1)*P + carriers)
			s.ExactTree = exact(4*E - n + 1)
		}
	case rounds.ABD:
		s.MInit, s.MInitValue = "2E", float64(2*E)
		s.MPulse, s.MPulseValue = "0", 0
		s.TPulse = "2d (seconds)"
		s.MA, s.MAValue = "M_init + M_S", float64(2*E)+ms
		s.ExactSync = exact(2 * E)
	case rounds.None:
		s.MPulse, s.TPulse = "0", "-"
		s.MA, s.MAValue = "M_S", ms
		s.ExactSync = exact(0)
	}
	s.TA, s.TAValue = "T·T(sync)", float64(P)*s.TPulseValue
	s.Measured = c.Carriers + c.SyncMessages + c.TreeMessages
	return s
}

// depth is beta's tree depth from the nodes' tree notes (0 if unknown).
func (rr *roundsRun) depth() int {
	d := 0
	for _, n := range rr.nodes {
		k, cur := 0, n
		for cur != nil && cur.inTree && cur.parent != protocol.None && k <= len(rr.nodes) {
			k++
			cur = rr.byID[cur.parent]
		}
		d = max(d, k)
	}
	return d
}

// writeRounds prints a round protocol's figures.
func (c *Complexity) writeRounds(w io.Writer) {
	s := c.Sync
	fmt.Fprintf(w, "complexity (%s synchronizer): T_S = %d rounds (%d pulses), M_S = %d algorithm messages in %d envelopes; %d synchronizer messages, %d tree; %d transport; %.3fs from round 1 to the last round\n",
		c.Synchronizer, c.Rounds, c.Pulses, c.Messages, c.Carriers, c.SyncMessages, c.TreeMessages, c.Transport, c.Time)
	if c.Bound.Formula != "" {
		fmt.Fprintf(w, "  algorithm theory: messages %s = %g", c.Bound.Formula, c.Bound.Value)
		if c.RoundsBound != nil {
			fmt.Fprintf(w, ", rounds %s = %g", c.RoundsBound.Formula, c.RoundsBound.Value)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  synchronizer: n = %d, E = %d; M(sync) = %s = %g per round, T(sync) = %s", s.Nodes, s.Edges, s.MPulse, s.MPulseValue, s.TPulse)
	if s.MInit != "" {
		fmt.Fprintf(w, ", M_init = %s = %g", s.MInit, s.MInitValue)
	}
	fmt.Fprintf(w, "\n  M_A = %s = %g; measured %d", s.MA, s.MAValue, s.Measured)
	if s.ExactSync != nil {
		verdict := "matches"
		if int(c.SyncMessages) != *s.ExactSync {
			verdict = "differs"
		}
		fmt.Fprintf(w, "; synchronizer messages by the counting rule %d: measured %d %s", *s.ExactSync, c.SyncMessages, verdict)
	}
	fmt.Fprintf(w, "\n  T_A = %s = %g\n", s.TA, s.TAValue)
	if c.Stalled != "" {
		fmt.Fprintf(w, "  %s\n", c.Stalled)
	}
	c.writeJudged(w)
}
