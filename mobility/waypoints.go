package mobility

import (
	"fmt"
	"time"

	"manetlab/internal/geo"
)

// FromWaypoints returns a Set in which node i starts at start[i] at time 0
// and moves in a straight line at constant speed so as to reach each of
// wps[i] at its At, staying at the last one. Times must increase strictly;
// a first waypoint at 0 replaces the start position. wps may be shorter
// than start: the remaining nodes stay put.
func FromWaypoints(start []geo.Vec, wps [][]Waypoint) (*Set, error) {
	if len(wps) > len(start) {
		return nil, fmt.Errorf("waypoints for %d nodes, but only %d start positions", len(wps), len(start))
	}
	trajs := make([]Trajectory, len(start))
	for i, p := range start {
		tr := Trajectory{{From: p}}
		var t time.Duration
		var ws []Waypoint
		if i < len(wps) {
			ws = wps[i]
		}
		for k, w := range ws {
			switch {
			case k == 0 && w.At == 0:
				tr[0].From = w.Pos
			case w.At <= t:
				return nil, fmt.Errorf("node %d waypoint %d: at %v is not after %v (waypoints must be in increasing time, the first at 0 or later)", i, k, w.At, t)
			default:
				tr = appendLeg(tr, legTo(t, p, w.Pos, w.At))
				tr = append(tr, Leg{Start: w.At, From: w.Pos})
			}
			t, p = w.At, w.Pos
		}
		trajs[i] = tr
	}
	return NewSet(trajs), nil
}
