package mobility

import (
	"slices"
	"time"

	"manetlab/internal/geo"
)

// Set is a Model made of one piecewise-linear trajectory per node. Every
// constructor in this package returns one; it is immutable once built, so
// it can be shared freely.
type Set struct {
	trajs    []Trajectory
	maxSpeed float64
	changes  []time.Duration
}

// NewSet builds a Set over trajs, one per node. Each trajectory's legs must
// be sorted by Start with the first at 0; a node with no legs stays at the
// origin. The Set keeps trajs: callers must not modify them afterwards.
func NewSet(trajs []Trajectory) *Set {
	s := &Set{trajs: trajs, changes: []time.Duration{0}}
	for _, tr := range trajs {
		for _, l := range tr {
			s.maxSpeed = max(s.maxSpeed, l.Vel.Len())
			s.changes = append(s.changes, l.Start)
		}
	}
	slices.Sort(s.changes)
	s.changes = slices.Compact(s.changes)
	return s
}

// Len is the number of nodes.
func (s *Set) Len() int { return len(s.trajs) }

// Trajectory returns node i's trajectory; it must not be modified.
func (s *Set) Trajectory(i int) Trajectory { return s.trajs[i] }

// Position returns node i's position at time t. Before the first leg the
// node waits at that leg's start point.
func (s *Set) Position(i int, t time.Duration) geo.Vec {
	tr := s.trajs[i]
	if len(tr) == 0 {
		return geo.Vec{}
	}
	// Binary search for the last leg starting at or before t: this runs
	// millions of times per simulation, so no closure and no allocation.
	lo, hi := 0, len(tr)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if tr[m].Start <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return tr[0].From
	}
	return tr[lo-1].at(t)
}

// MaxSpeed is the highest speed of any leg in m/s (0 when nothing moves).
func (s *Set) MaxSpeed() float64 { return s.maxSpeed }

// Changes lists, ascending and without repeats, the instants at which some
// leg starts. It always holds 0, so its last element is well defined even
// for a Set without nodes.
func (s *Set) Changes() []time.Duration { return slices.Clone(s.changes) }

// at returns the position on the leg at time t, extrapolating its motion.
func (l Leg) at(t time.Duration) geo.Vec {
	if l.Vel == (geo.Vec{}) {
		return l.From
	}
	return l.From.Add(l.Vel.Scale((t - l.Start).Seconds()))
}

// legTo returns the leg that leaves from at start and reaches dest exactly
// at arrive (after start). Every mover in this package goes through it so
// that the ns-2 writer and reader compute bit-identical velocities.
func legTo(start time.Duration, from, dest geo.Vec, arrive time.Duration) Leg {
	return Leg{Start: start, From: from, Vel: dest.Sub(from).Scale(1 / (arrive - start).Seconds())}
}

// appendLeg adds l to tr, replacing the last leg when both start at the
// same instant: the later instruction wins, as in a simulator that applies
// same-time events in order.
func appendLeg(tr Trajectory, l Leg) Trajectory {
	if n := len(tr); n > 0 && tr[n-1].Start == l.Start {
		tr[n-1] = l
		return tr
	}
	return append(tr, l)
}

// StopAt returns a Set in which every node halts at time t where it is
// then: legs starting after t are dropped and a moving leg is cut there.
// Experiments use it to let the network settle after a period of motion.
func (s *Set) StopAt(t time.Duration) *Set {
	trajs := make([]Trajectory, len(s.trajs))
	for i, tr := range s.trajs {
		var out Trajectory
		for _, l := range tr {
			if l.Start > t {
				break
			}
			out = append(out, l)
		}
		if n := len(out); n > 0 && out[n-1].Vel != (geo.Vec{}) {
			out = append(out, Leg{Start: t, From: out[n-1].at(t)})
		}
		trajs[i] = out
	}
	return NewSet(trajs)
}
