package node

import (
	"errors"

	"manetlab/internal/geo"
	"manetlab/node/wire"
)

// location is the latest position a location frame gave for a node.
type location struct {
	pos   geo.Vec
	time  int64 // the player's clock, Unix ns
	known bool
}

// location records a location frame; positions only move forward in the
// player's time, so a replayed or reordered frame changes nothing.
func (h *Host) location(f *wire.Frame) {
	i, ok := h.index[f.Loc.Node]
	if !ok {
		h.reject("sender", "location of node %d, which is not in the scenario", f.Loc.Node)
		return
	}
	if err := h.locationOK(&f.Loc); err != nil {
		reason := "location"
		if errors.Is(err, wire.ErrClock) {
			reason = "clock"
		}
		h.reject(reason, "%v", err)
		return
	}
	l := &h.locs[i]
	if l.known && f.Loc.Time <= l.time {
		h.reject("duplicate", "location of node %d at %d, not newer than %d", f.Loc.Node, f.Loc.Time, l.time)
		return
	}
	*l = location{pos: geo.Vec{X: f.Loc.X, Y: f.Loc.Y, Z: f.Loc.Z}, time: f.Loc.Time, known: true}
}

// position is member i's position now: the latest location frame's, or,
// before any, the scenario's mobility model at this node's run clock, so
// that a run without a player (static scenarios, one machine) works.
func (h *Host) position(i int) geo.Vec {
	if l := &h.locs[i]; l.known {
		return l.pos
	}
	return h.mob.Position(i, max(h.now(), 0))
}
