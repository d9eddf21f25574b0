package ext

import (
	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// Name is the registered name of the adapter.
const Name = "ext/stdio"

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "an algorithm in any language: a program per node speaking JSON lines on stdin/stdout (docs/anylang.md)",
		New:      New,
		Messages: append(reliable.Messages[Msg](), Msg{}),
		Resolve:  resolve,
		Prepare:  prepare,
	})
}

// resolve is the Spec of a run with params: the goal, the ring, the
// commands and the message bounds come from them.
func resolve(params protocol.Params) protocol.Spec {
	spec, _ := protocol.Lookup(Name)
	spec.Resolve = nil
	s, err := parse(params, nil, 0)
	if err != nil {
		return spec
	}
	spec.Goal = s.goal
	spec.Safety = s.safety
	_, spec.LogicalRing = params["ring"]
	if s.goal == protocol.GoalMutex {
		spec.Commands = []protocol.CommandName{protocol.Request, protocol.Release}
	}
	c := &protocol.Complexity{Announce: s.announce, Control: s.control, Assumes: s.assumes}
	if s.exact != nil || s.worst != nil {
		c.Bound = boundOf(s)
	}
	spec.Complexity = c
	if s.least != nil || s.most != nil {
		spec.Mutex = mutexCost(s)
	}
	return spec
}

// boundOf is the Complexity.Bound of the exact and worst formulas: the
// exact count holds in a clean run, the worst in every order of a run
// without faults or losses (the judge and the explorer check both).
func boundOf(s *settings) func([]protocol.NodeID, protocol.Params, uint64) (protocol.Bound, error) {
	return func(members []protocol.NodeID, _ protocol.Params, _ uint64) (protocol.Bound, error) {
		n := len(members)
		b := protocol.Bound{Name: s.name}
		if f := s.exact; f != nil {
			b.Formula, b.Value = f.text, float64(f.at(n))
			b.Exact, b.ExactIf = intp(f.at(n)), protocol.Clean
		}
		if f := s.worst; f != nil {
			b.Formula, b.Value = f.text, float64(f.at(n))
			b.Worst, b.WorstIf, b.EveryOrder = intp(f.at(n)), protocol.Faultless, true
		}
		if b.Name == "" {
			b.Name = b.Formula
		}
		return b, nil
	}
}

// mutexCost is the Spec.Mutex of the least and most formulas of messages
// per entry; the most is judged in runs without faults or losses.
func mutexCost(s *settings) *protocol.MutexCost {
	lo, hi := s.least, s.most
	if lo == nil {
		lo = hi
	}
	if hi == nil {
		hi = lo
	}
	return &protocol.MutexCost{
		Messages: hi.text,
		PerEntry: func(n int) (float64, float64) { return float64(lo.at(n)), float64(hi.at(n)) },
		Delay:    s.delay,
		Problems: s.problems,
		HiIf:     protocol.Faultless,
	}
}

func intp(v int) *int { return &v }
