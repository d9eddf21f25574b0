package sim

import (
	"fmt"
	"math"
	"time"

	"manetlab/internal/geo"
	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/trace"
)

// MoveTo is a node moved by hand to (X, Y) in metres (Z kept).
type MoveTo struct {
	Node protocol.NodeID `json:"node"`
	X    float64         `json:"x"`
	Y    float64         `json:"y"`
}

// dragged is the scenario's mobility with the nodes a Controller moved by
// hand: a moved node's whole trajectory is shifted by the move, so a
// static node stays where it was put for the rest of the run and a moving
// one goes on along its path from there, parallel to where it would have
// been. The shift applies at every instant the model is asked about, but
// a Controller only ever asks about now and later (a rewind builds the
// run again), so the run sees the node jump at the move.
type dragged struct {
	mobility.Model
	moves []move // by node index; nil until a move
}

// move: the node was put at At when the model had it at From.
type move struct {
	set      bool
	from, at geo.Vec
}

// Position is the model's, shifted: At plus the motion since the move
// (exactly At for a node that does not move).
func (d *dragged) Position(i int, t time.Duration) geo.Vec {
	p := d.Model.Position(i, t)
	if d.moves != nil && d.moves[i].set {
		m := d.moves[i]
		p = m.at.Add(p.Sub(m.from))
	}
	return p
}

// Move puts node id at (x, y) now (at the time of the next event, if
// later): its radio links are those of the new place from then on, its
// neighbours learn of it by their hellos as after any motion, and the run
// file records the new position. The frames already on their way are not
// affected.
func (c *Controller) Move(id protocol.NodeID, x, y float64) error {
	i, ok := c.w.byID[id]
	switch {
	case !ok:
		return fmt.Errorf("no node %d", id)
	case math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0):
		return fmt.Errorf("move node %d: (%g, %g) is not a place", id, x, y)
	}
	d := c.w.mob.(*dragged)
	c.w.touchAll()
	if h := c.peek(); h != nil {
		c.w.now = max(c.w.now, h.at)
	}
	// The run file records the old place and the new one at the same
	// instant, so that a reader interpolating between positions (the
	// report's map) shows a jump, not a glide from the last record.
	old := d.Position(i, c.w.now)
	c.w.out.run(&trace.Event{T: int64(c.w.now), Node: id, Ev: trace.EvPosition, Pos: &[3]float64{old.X, old.Y, old.Z}})
	if d.moves == nil {
		d.moves = make([]move, d.Len())
	}
	from := d.Model.Position(i, c.w.now)
	d.moves[i] = move{set: true, from: from, at: geo.Vec{X: x, Y: y, Z: from.Z}}
	c.w.medium.Moved()
	p := d.Position(i, c.w.now)
	c.w.out.run(&trace.Event{T: int64(c.w.now), Node: id, Ev: trace.EvPosition, Pos: &[3]float64{p.X, p.Y, p.Z}})
	text := fmt.Sprintf("move node %d to (%.0f, %.0f)", id, x, y)
	c.choices = append(c.choices, Choice{Step: c.step, Move: &MoveTo{Node: id, X: x, Y: y}})
	c.log = append(c.log, Taken{Step: c.step, At: c.w.now, Text: text, Class: ClassChoice, Node: id, Chosen: true})
	c.step++
	return nil
}
