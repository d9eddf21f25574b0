package mobility

import "manetlab/internal/geo"

// Static returns a Set in which node i stays at pos[i] forever.
func Static(pos []geo.Vec) *Set {
	trajs := make([]Trajectory, len(pos))
	for i, p := range pos {
		trajs[i] = Trajectory{{From: p}}
	}
	return NewSet(trajs)
}
