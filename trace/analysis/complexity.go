package analysis

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/trace/judge"
)

// Complexity sets a protocol's measured message counts beside theory
// (ring elections: protocols whose Spec has a Complexity).
type Complexity struct {
	// Messages counts the election's algorithm messages originated: no
	// announcement, no transport acknowledgements or retransmissions, no
	// relays of multi-hop frames, no control traffic (liveness checks).
	Messages uint64 `json:"messages"`
	// Announce counts the announcement's messages.
	Announce uint64 `json:"announce"`
	// Transport counts the reliable channel's acknowledgements and
	// retransmissions.
	Transport uint64 `json:"transport"`
	// Control counts the protocol's other messages (liveness checks).
	Control uint64 `json:"control"`
	// Time is the seconds from the first election-start note to the last
	// leader note.
	Time float64 `json:"time"`
	// Elections counts the distinct epochs of the leader notes.
	Elections int `json:"elections"`
	// Bound is the theoretical count for this run's arrangement.
	Bound protocol.Bound `json:"bound"`

	// Round protocols (package protocol/rounds; roundscost.go): Messages
	// is then M_S, the synchronous algorithm's messages as its round notes
	// count them, whatever envelopes carried them.
	Synchronizer string `json:"synchronizer,omitempty"`
	// Rounds is T_S measured: the last round in which a node sent or was
	// still running (rounds.Lockstep's definition).
	Rounds int `json:"rounds,omitempty"`
	// Pulses is the last round any node ran: T_S, or one more when the
	// last round only receives.
	Pulses int `json:"pulses,omitempty"`
	// SyncMessages counts the synchronizer's own messages (sync-*),
	// TreeMessages beta's spanning tree (sync-tree-*), Carriers the
	// envelopes that carried algorithm messages.
	SyncMessages uint64 `json:"sync_messages,omitempty"`
	TreeMessages uint64 `json:"tree_messages,omitempty"`
	// HelloMessages counts the radio graph's sync-hello, which make
	// neighbour discovery symmetric before round 1 (2E without loss).
	HelloMessages uint64 `json:"hello_messages,omitempty"`
	Carriers      uint64 `json:"carriers,omitempty"`
	// RoundsBound is the algorithm's theory of T_S.
	RoundsBound *protocol.Bound `json:"rounds_bound,omitempty"`
	// Sync sets the synchronizer's cost beside the seed's formulas.
	Sync *SyncCost `json:"sync,omitempty"`
	// Stalled says where the rounds stopped, when they did.
	Stalled string `json:"stalled,omitempty"`
	// Judged is the count judged against the bound the protocol
	// guarantees (trace/judge), nil when it guarantees none.
	Judged *judge.Count `json:"judged,omitempty"`
	// epochs are the elections' names, for the judgement's text.
	epochs []string
}

// computeComplexity counts r's messages as spec's Complexity classifies
// them and computes the bound for the recorded scenario; nil when the
// protocol has no Complexity or is unknown to this binary.
func computeComplexity(l *loader, r *run, tr *truth) (*Complexity, string) {
	spec, err := r.spec()
	if err != nil {
		return nil, ""
	}
	if info, ok := rounds.Lookup(spec.Name); ok && spec.Complexity == nil {
		return computeRoundsComplexity(l, r, tr, info)
	}
	if spec.Complexity == nil || spec.Goal == protocol.GoalMutex {
		// Mutual exclusion is measured per entry (MutexMetrics); its
		// Complexity only names the failure model (Assumes).
		return nil, ""
	}
	kinds := map[int32]int{} // 1 announce, 2 control; transport by prefix
	for _, k := range spec.Complexity.Announce {
		kinds[r.str(k)] = 1
	}
	for _, k := range spec.Complexity.Control {
		kinds[r.str(k)] = 2
	}
	c := &Complexity{}
	first, last := int64(-1), int64(-1)
	epochs := map[int32]bool{}
	starts := map[int32]firstStart{} // each epoch's first election-start, to name it
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			switch e.typ {
			case tSend:
				switch cls, ok := kinds[e.kind]; {
				case !ok && protocol.IsTransport(r.strs.Strs[e.kind]):
					c.Transport++
				case cls == 1:
					c.Announce++
				case cls == 2:
					c.Control++
				default:
					c.Messages++
				}
			case tElStart:
				if first < 0 || e.t < first {
					first = e.t
				}
				if e.epoch != 0 {
					f, ok := starts[e.epoch]
					f.note(e.node, e.t, ok)
					starts[e.epoch] = f
				}
			case tLeader:
				if e.leader != protocol.None {
					last = max(last, e.t)
					epochs[e.epoch] = true
				}
			}
		}
	}
	if first >= 0 && last >= first {
		c.Time = seconds(last - first)
	}
	c.Elections = len(epochs)
	// Named by initiator and start, in the order they started; epochs
	// no election-start carries after them, by their ID.
	type named struct {
		f     firstStart
		ok    bool
		epoch string
	}
	var ns []named
	for e := range epochs {
		f, ok := starts[e]
		ns = append(ns, named{f, ok, r.strs.Strs[e]})
	}
	slices.SortFunc(ns, func(a, b named) int {
		switch {
		case a.ok != b.ok:
			if a.ok {
				return -1
			}
			return 1
		case a.ok && a.f != b.f:
			return cmp.Or(cmp.Compare(a.f.t, b.f.t), cmp.Compare(a.f.node, b.f.node))
		}
		return strings.Compare(a.epoch, b.epoch)
	})
	for _, n := range ns {
		if n.ok {
			c.epochs = append(c.epochs, "by "+ElectionName(n.f.node, seconds(n.f.t)))
		} else {
			c.epochs = append(c.epochs, "epoch "+n.epoch)
		}
	}
	if tr == nil {
		return c, "complexity bound unknown: the scenario is unknown"
	}
	ids := make([]protocol.NodeID, len(tr.members))
	for i, m := range tr.members {
		ids[i] = m.ID
	}
	if spec.Complexity.Bound == nil {
		return c, "complexity bound unknown: the protocol declares none"
	}
	b, err := spec.Complexity.Bound(ids, tr.sc.Protocol.Params, tr.sc.Seed)
	if err != nil {
		return c, "complexity bound unknown: " + err.Error()
	}
	c.Bound = b
	c.judge(l, r, tr, nil)
	if spec.Budget != nil {
		// The per-node budget reads the receives, which this load
		// may not hold.
		rr, err := l.run(readCausal)
		if err != nil {
			return c, "message budget unknown: " + err.Error()
		}
		c.Judged = judge.Worse(c.Judged, judgeBudget(l, rr, tr.static))
	}
	return c, ""
}

// judge judges c's count against its bound (trace/judge), with the facts
// of r (drops: a run holding its drops, or nil).
func (c *Complexity) judge(l *loader, r *run, tr *truth, drops *run) {
	if c.Bound.ExactIf == nil && c.Bound.WorstIf == nil {
		return
	}
	c.Judged = judge.Counts(c.what(), c.Messages, c.Bound, r.facts(l, drops, tr.static))
}

// what names the elections counted, by initiator and start: "the run's
// 2 elections (by node 1 at 1.000 s; by node 4 at 15.102 s)" ("epoch 1"
// for one no election-start names).
func (c *Complexity) what() string {
	if c.Synchronizer != "" || c.Sync != nil {
		return "the rounds"
	}
	s := fmt.Sprintf("the run's %d elections", c.Elections)
	if c.Elections == 1 {
		s = "the run's 1 election"
	}
	switch {
	case len(c.epochs) >= 1 && len(c.epochs) <= 4:
		s += " (" + strings.Join(c.epochs, "; ") + ")"
	case len(c.epochs) > 4:
		s += " (" + strings.Join(c.epochs[:3], "; ") + "; ...)"
	}
	return s
}

// WriteText prints the measured counts beside theory.
func (c *Complexity) WriteText(w io.Writer) {
	if c.Sync != nil {
		c.writeRounds(w)
		return
	}
	fmt.Fprintf(w, "complexity: %d election messages, %d announcement, %d control; %.3fs from the first election-start to the last leader note; %d election(s)\n",
		c.Messages, c.Announce, c.Control, c.Time, c.Elections)
	b := c.Bound
	if b.Formula == "" {
		return
	}
	fmt.Fprintf(w, "  theory: %s = %g", b.Formula, b.Value)
	if b.Best != nil && b.Worst != nil {
		fmt.Fprintf(w, " (best %d, worst %d)", *b.Best, *b.Worst)
	}
	if b.Exact != nil {
		verdict := "matches"
		switch {
		case c.Elections == 0:
			// Nothing to compare: the exact count is that of a finished
			// election, and none finished.
			verdict = "(not compared: no election finished)"
		case int64(c.Messages) != int64(*b.Exact):
			verdict = "differs"
		}
		fmt.Fprintf(w, "; exact for this arrangement %d: measured %d %s", *b.Exact, c.Messages, verdict)
	}
	fmt.Fprintln(w)
	c.writeJudged(w)
}

// writeJudged prints the count's judgement, when there is one.
func (c *Complexity) writeJudged(w io.Writer) {
	if j := c.Judged; j != nil {
		fmt.Fprintf(w, "  message bound %s: %s\n", j.Verdict, j.Reason)
	}
}
