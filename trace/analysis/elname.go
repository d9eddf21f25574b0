package analysis

import (
	"fmt"

	"manetlab/protocol"
)

// ElectionName names an election readably, by its initiator and its
// start, as every output does (issue 35): "node 10 at 0.031 s", not
// the protocol's epoch ID ("969402.10"), which JSON keeps.
func ElectionName(initiator protocol.NodeID, start float64) string {
	return fmt.Sprintf("node %d at %.3f s", initiator, start)
}

// firstStart is an epoch's first election-start: its node (the lowest
// ID among starts at the same instant) and when.
type firstStart struct {
	node protocol.NodeID
	t    int64
}

// note keeps the earlier of f and an election-start of node at t.
func (f *firstStart) note(node protocol.NodeID, t int64, seen bool) {
	if !seen || t < f.t || t == f.t && node < f.node {
		f.node, f.t = node, t
	}
}

// electionStarts finds the first election-start of each epoch of want
// (interned) in one pass over the run; an epoch no election-start
// carries is absent.
func (r *run) electionStarts(want map[int32]bool) map[int32]firstStart {
	out := map[int32]firstStart{}
	for _, p := range r.procs[1:] {
		for i := range p.evs {
			e := &p.evs[i]
			if e.typ != tElStart || !want[e.epoch] {
				continue
			}
			f, ok := out[e.epoch]
			f.note(e.node, e.t, ok)
			out[e.epoch] = f
		}
	}
	return out
}

// electionLabel is epoch's name in a sentence: "the election by node 10
// at 0.031 s", or "epoch 1" when no election-start carries it (a
// protocol that notes its epochs only with its leaders).
func electionLabel(epoch string, f firstStart, ok bool) string {
	if !ok {
		return "epoch " + epoch
	}
	return "the election by " + ElectionName(f.node, seconds(f.t))
}
