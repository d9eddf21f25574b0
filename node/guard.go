package node

import (
	"fmt"
	"math"
	"strings"
	"time"

	"manetlab/node/wire"
	"manetlab/protocol"
)

// The checks a frame passes before it may change anything: the clock
// bound, freshness, the location bounds and the body's field bounds. Only
// a frame that passed all of them touches a duplicate window, a clock, a
// position or a protocol.

// maxOffset is the run's maximum clock offset between nodes.
func (h *Host) maxOffset() time.Duration {
	switch {
	case h.opt.MaxOffset < 0:
		return 0 // checks off
	case h.opt.MaxOffset == 0:
		return wire.DefaultMaxOffset
	}
	return h.opt.MaxOffset
}

// bodyBounds are the limits a decoded body must keep: every NodeID field
// names a member (or none), and every float field called Value (the
// election value every protocol family carries) lies within the values
// the scenario can give a node.
func (h *Host) bodyBounds() wire.Bounds {
	lo, hi := 0.0, 0.0
	for _, m := range h.members {
		lo, hi = min(lo, m.Value), max(hi, m.Value)
	}
	for _, c := range h.s.Workload.Commands {
		lo, hi = min(lo, c.Value), max(hi, c.Value)
	}
	return wire.Bounds{
		Member: func(id protocol.NodeID) bool { _, ok := h.index[id]; return ok },
		Float: func(field string, v float64) error {
			if (field == "Value" || strings.HasSuffix(field, ".Value")) && (v < lo || v > hi) {
				return fmt.Errorf("%v is outside the scenario's values [%v, %v]", v, lo, hi)
			}
			return nil
		},
	}
}

// fresh reports why f may not be taken, or "" if it may: a clock more
// than the maximum offset ahead ("clock"), or a frame sent before this
// process started ("stale": the frames a restarted node would otherwise
// take, its duplicate windows being new, when an attacker replays what it
// recorded before the crash). A sender's stamp is at least its physical
// time, which is at most the offset behind ours, so a frame sent after
// our start carries a stamp after start minus the offset.
func (h *Host) fresh(f *wire.Frame) (reason string, err error) {
	mo := h.maxOffset()
	if mo == 0 {
		return "", nil
	}
	if err := wire.CheckAhead(f.Clock, wallNS(), mo); err != nil {
		return "clock", err
	}
	if since := h.clock.base.UnixNano() - int64(mo); f.Clock.Wall < since {
		return "stale", fmt.Errorf("%s frame from node %d stamped %d, before this process started (%d) less the maximum offset %v",
			f.Type, f.From, f.Clock.Wall, h.clock.base.UnixNano(), mo)
	}
	return "", nil
}

// locationSlack is how many times the scenario's extent a location may
// lie from the origin: the player may play another model than the
// node's scenario (tests do), but a position a thousand kilometres out,
// or 1e308, is no experiment's.
const locationSlack = 10

// extent is the scenario's size in metres: the largest of the area's
// sides, the radio's reach and every coordinate of the nodes' positions
// at the start and at the end.
func (h *Host) extent() float64 {
	e := max(h.s.Mobility.Area[0], h.s.Mobility.Area[1], h.prop.MaxRange())
	for i := range h.members {
		for _, t := range []time.Duration{0, h.end} {
			p := h.mob.Position(i, t)
			e = max(e, math.Abs(p.X), math.Abs(p.Y), math.Abs(p.Z))
		}
	}
	return e
}

// locationOK reports why a location frame is out of the run's bounds: a
// time more than the maximum offset ahead of now or past the run's end
// (it would pin the position: later frames, being older, would lose), or
// a coordinate more than locationSlack times the scenario's extent from
// the origin.
func (h *Host) locationOK(l *wire.Location) error {
	mo := h.maxOffset()
	start := h.clock.start() // the run's start, Unix ns
	if mo > 0 {
		if err := wire.CheckAhead(wire.HLC{Wall: l.Time}, wallNS(), mo); err != nil {
			return fmt.Errorf("location of node %d: %w", l.Node, err)
		}
	}
	// A location's time is the player's host clock: the run's end on it
	// is the scenario's duration, dilated.
	if end := start + int64(h.clock.wall(h.end)) + int64(mo); l.Time > end {
		return fmt.Errorf("location of node %d at %d, after the run's end %d", l.Node, l.Time, end)
	}
	lim := locationSlack * h.ext
	for _, c := range []float64{l.X, l.Y, l.Z} {
		if !(math.Abs(c) <= lim) {
			return fmt.Errorf("location of node %d at (%g, %g, %g): more than %g m (%d times the scenario's extent) from the origin",
				l.Node, l.X, l.Y, l.Z, lim, locationSlack)
		}
	}
	return nil
}
