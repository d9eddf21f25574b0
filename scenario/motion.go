package scenario

import (
	"fmt"
	"math"

	"manetlab/internal/geo"
	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/protocol/logicalring"
)

// MobilityModel builds the motion of every node, indexed as Members: the
// initial positions (the list's pos, else placement: uniform in
// mobility.area from the seed, a grid of ceil(sqrt(n)) columns filling
// it, or a ring), then the model — static, waypoints from nodes.list[].waypoints,
// random waypoint over the run's duration, or the ns-2 trace, whose own
// initial positions win. (It is not named Mobility because the field
// holding the mobility section already is.)
func (s *Scenario) MobilityModel() (mobility.Model, error) {
	set, err := s.motion()
	if err != nil || s.Mobility.Stop <= 0 {
		return set, err
	}
	return set.StopAt(s.Mobility.Stop.D()), nil
}

func (s *Scenario) motion() (*mobility.Set, error) {
	c := s.Mobility
	if c.Model == "ns2" {
		set, _, err := mobility.ReadNS2(c.File)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: mobility.file: %w", s.Name, err)
		}
		if set.Len() < s.Nodes.size() {
			return nil, fmt.Errorf("scenario %s: mobility.file: %s moves %d nodes, the scenario has %d", s.Name, c.File, set.Len(), s.Nodes.size())
		}
		return set, nil
	}
	start := s.StartPositions()
	switch c.Model {
	case "static":
		return mobility.Static(start), nil
	case "waypoints":
		wps := make([][]mobility.Waypoint, len(start))
		for i, n := range s.Nodes.List {
			for _, w := range n.Waypoints {
				wps[i] = append(wps[i], mobility.Waypoint{At: w.At.D(), Pos: vec(w.Pos)})
			}
		}
		set, err := mobility.FromWaypoints(start, wps)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: waypoints: %w", s.Name, err)
		}
		return set, nil
	case "random-waypoint":
		set, err := mobility.RandomWaypoint(start, c, s.Duration.D(), s.rng(streamMobility))
		if err != nil {
			return nil, fmt.Errorf("scenario %s: random waypoint: %w", s.Name, err)
		}
		return set, nil
	}
	return nil, fmt.Errorf("scenario %s: mobility.model: %q is unknown", s.Name, c.Model)
}

// StartPositions gives each node's initial position in scenario order
// (ignored by ns-2 traces, which carry their own).
func (s *Scenario) StartPositions() []geo.Vec {
	n := s.Nodes.size()
	w, h := s.Mobility.Area[0], s.Mobility.Area[1]
	pos := make([]geo.Vec, n)
	r := s.rng(streamPlacement)
	cols := int(math.Ceil(math.Sqrt(float64(n))))
	rows := (n + cols - 1) / cols
	var slot map[protocol.NodeID]int
	var members []Member
	if s.Nodes.Placement == "ring" {
		slot, members = s.ringSlots(), s.Members()
	}
	for i := range pos {
		switch s.Nodes.Placement {
		case "ring":
			pos[i] = s.ringPosition(slot[members[i].ID], n)
		case "grid":
			// Cell centres, so the grid sits inside the area with equal
			// margins.
			col, row := i%cols, i/cols
			pos[i] = geo.Vec{X: (float64(col) + 0.5) * w / float64(cols), Y: (float64(row) + 0.5) * h / float64(rows)}
		default:
			// Drawn for every node, listed position or not, so that
			// pinning one node leaves the others in place.
			pos[i] = geo.Vec{X: r.Float64() * w, Y: r.Float64() * h}
		}
		if i < len(s.Nodes.List) && s.Nodes.List[i].Pos != nil {
			pos[i] = vec(s.Nodes.List[i].Pos)
		}
	}
	return pos
}

// vec turns a validated [x, y] or [x, y, z] into a point.
func vec(p []float64) geo.Vec {
	v := geo.Vec{X: p[0], Y: p[1]}
	if len(p) > 2 {
		v.Z = p[2]
	}
	return v
}

// ringSlots gives every member its place on the circle of placement ring:
// the logical ring of protocol.params.ring for protocols that use one,
// ascending IDs otherwise (or when the ring parameter is bad: the protocol
// reports that error).
func (s *Scenario) ringSlots() map[protocol.NodeID]int {
	ids := s.MemberIDs()
	if spec, err := protocol.LookupFor(s.Protocol.Name, s.Protocol.Params); err == nil && spec.LogicalRing {
		if order, err := logicalring.Resolve(s.Protocol.Params["ring"], ids, s.Seed); err == nil {
			ids = order
		}
	}
	slot := make(map[protocol.NodeID]int, len(ids))
	for k, id := range ids {
		slot[id] = k
	}
	return slot
}

// ringPosition is slot k of n on a circle centred in the area, sized so
// that under the unit-disk model each node hears exactly its two ring
// neighbours: neighbours stand d apart and next-but-one neighbours
// 2d·cos(π/n), with d halfway between range/(2cos(π/n)) and the range.
func (s *Scenario) ringPosition(k, n int) geo.Vec {
	c := geo.Vec{X: s.Mobility.Area[0] / 2, Y: s.Mobility.Area[1] / 2}
	if n == 1 {
		return c
	}
	rng := s.Radio.Range
	d := 0.75 * rng // n = 2, 3: everyone is a ring neighbour
	if n >= 4 {
		d = (rng/(2*math.Cos(math.Pi/float64(n))) + rng) / 2
	}
	radius := d / (2 * math.Sin(math.Pi/float64(n)))
	a := 2 * math.Pi * float64(k) / float64(n)
	return geo.Vec{X: c.X + radius*math.Cos(a), Y: c.Y + radius*math.Sin(a)}
}
