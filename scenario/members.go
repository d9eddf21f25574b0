package scenario

import (
	"math"
	"math/rand/v2"
	"slices"

	"manetlab/protocol"
)

// Random streams derived from the seed, one per purpose, so that adding a
// node value never moves the placement or the mobility of a run. The
// constants are arbitrary but fixed: changing one changes every run.
const (
	streamValues    = 0x76616c756573 // "values"
	streamPlacement = 0x706c616365   // "place"
	streamMobility  = 0x6d6f7665     // "move"
)

func (s *Scenario) rng(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s.Seed, stream))
}

// Member is one node as the drivers see it.
type Member struct {
	ID    protocol.NodeID
	Value float64
	// Index is the node's place in scenario order, which is also its index
	// in the mobility model.
	Index int
}

// size is the number of nodes: the list's length, else the count.
func (n *Nodes) size() int {
	if len(n.List) > 0 {
		return len(n.List)
	}
	return n.Count
}

// Size is the number of nodes, without listing them (Members).
func (s *Scenario) Size() int { return s.Nodes.size() }

// Members lists the nodes in scenario order: IDs 1..count (or the list's),
// values from the list or generated — "random": uniform in [0,100) with
// three decimals from the seed, "id": the ID itself.
func (s *Scenario) Members() []Member {
	out := make([]Member, s.Nodes.size())
	r := s.rng(streamValues)
	for i := range out {
		id := protocol.NodeID(i + 1)
		var given *float64
		if len(s.Nodes.List) > 0 {
			id, given = s.Nodes.List[i].ID, s.Nodes.List[i].Value
		}
		v := float64(id)
		if s.Nodes.Values == "random" {
			// Drawn for every node, given value or not, so that giving one
			// value leaves the others unchanged.
			v = math.Floor(r.Float64()*1e5) / 1e3
		}
		if given != nil {
			v = *given
		}
		out[i] = Member{ID: id, Value: v, Index: i}
	}
	return out
}

// MemberIDs lists the node IDs in ascending order.
func (s *Scenario) MemberIDs() []protocol.NodeID {
	ids := make([]protocol.NodeID, 0, s.Nodes.size())
	if len(s.Nodes.List) == 0 {
		for i := range s.Nodes.Count {
			ids = append(ids, protocol.NodeID(i+1))
		}
		return ids
	}
	for _, n := range s.Nodes.List {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return ids
}
