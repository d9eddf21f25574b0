package htmlreport

import (
	"fmt"
	"math"
	"slices"
	"time"

	"manetlab/internal/geo"
	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/radio"
)

// buildFrames samples positions and radio links. A node's position at t
// is the mobility model's, shifted by the difference between its
// position events and the model at those events, interpolated linearly
// between them (so positions match every event exactly, and follow the
// model in between); without a model, the events interpolated linearly.
func (d *Data) buildFrames(opt Options, end int64, mob mobility.Model, prop radio.Propagation, modelIndex []int, index map[protocol.NodeID]int, posEvents map[protocol.NodeID][]posEvent) {
	n := len(d.Nodes)
	frames := int(math.Floor(float64(end)/1e9*opt.FPS)) + 1
	if n > 0 && frames*n > opt.MaxPositions {
		frames = max(2, opt.MaxPositions/n)
		d.Notes = append(d.Notes, fmt.Sprintf("%d map frames (fewer than %g per second, to keep the page small)", frames, opt.FPS))
	}
	times := make([]int64, frames)
	for k := range times {
		if frames > 1 && float64(end)/1e9*opt.FPS+1 > float64(frames) {
			times[k] = int64(float64(end) * float64(k) / float64(frames-1))
		} else {
			times[k] = int64(float64(k) / opt.FPS * 1e9)
		}
	}
	if frames > 1 && times[frames-1] < end {
		times = append(times, end)
	}

	type anchor struct {
		t      int64
		dx, dy float64 // event minus model (or the event itself without a model)
	}
	anchors := make([][]anchor, n)
	for id, evs := range posEvents {
		i, ok := index[id]
		if !ok || i < 0 {
			continue
		}
		slices.SortStableFunc(evs, func(a, b posEvent) int {
			return int(max(-1, min(1, a.t-b.t)))
		})
		for _, e := range evs {
			a := anchor{t: e.t, dx: e.x, dy: e.y}
			if mob != nil && modelIndex[i] >= 0 && modelIndex[i] < mob.Len() {
				p := mob.Position(modelIndex[i], time.Duration(e.t))
				a.dx, a.dy = e.x-p.X, e.y-p.Y
			}
			anchors[i] = append(anchors[i], a)
		}
	}
	interp := func(as []anchor, t int64) (float64, float64, bool) {
		if len(as) == 0 {
			return 0, 0, false
		}
		k, _ := slices.BinarySearchFunc(as, t, func(a anchor, t int64) int {
			return int(max(-1, min(1, a.t-t)))
		})
		if k == 0 {
			return as[0].dx, as[0].dy, true
		}
		if k == len(as) {
			return as[k-1].dx, as[k-1].dy, true
		}
		a, b := as[k-1], as[k]
		if b.t == a.t {
			return b.dx, b.dy, true
		}
		f := float64(t-a.t) / float64(b.t-a.t)
		return a.dx + f*(b.dx-a.dx), a.dy + f*(b.dy-a.dy), true
	}

	d.Area = [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	links := 0
	linksOK := prop != nil
	if !linksOK {
		d.LinksNote = "no radio model: links not drawn"
	}
	pos := make([]geo.Vec, n)
	known := make([]bool, n)
	for _, t := range times {
		f := Frame{T: secs(t), XY: make([]*float64, 2*n)}
		for i := range n {
			var p geo.Vec
			ok := false
			if mob != nil && modelIndex[i] >= 0 && modelIndex[i] < mob.Len() {
				p = mob.Position(modelIndex[i], time.Duration(t))
				ok = true
				if dx, dy, has := interp(anchors[i], t); has {
					p.X += dx
					p.Y += dy
				}
			} else if x, y, has := interp(anchors[i], t); has {
				p, ok = geo.Vec{X: x, Y: y}, true
			}
			pos[i], known[i] = p, ok
			if ok {
				f.XY[2*i], f.XY[2*i+1] = round1(p.X), round1(p.Y)
				d.Area[0], d.Area[1] = min(d.Area[0], p.X), min(d.Area[1], p.Y)
				d.Area[2], d.Area[3] = max(d.Area[2], p.X), max(d.Area[3], p.Y)
			}
		}
		if linksOK {
			f.Links, links = frameLinks(f.Links, pos, known, prop, links, opt.MaxLinks)
			if links > opt.MaxLinks {
				linksOK = false
				d.LinksNote = fmt.Sprintf("more than %d radio links over the sampled frames: links not drawn", opt.MaxLinks)
				for k := range d.Frames {
					d.Frames[k].Links = nil
				}
				f.Links = nil
			}
		}
		d.Frames = append(d.Frames, f)
	}
	if math.IsInf(d.Area[0], 0) {
		d.Area = [4]float64{0, 0, 1, 1}
		d.PosSource = "none: no mobility model and no position events"
	} else if mob != nil {
		d.PosSource = "the scenario's mobility model, aligned to the run file's position events"
	} else {
		d.PosSource = "the run file's position events, interpolated linearly"
	}
}
