package htmlreport

import (
	"math"
	"slices"

	"manetlab/internal/geo"
	"manetlab/radio"
)

// frameLinks appends to links the radio links of one map frame: the pairs
// i < j of nodes at known positions within range (prop.InRange), in the
// order of a scan of every pair (i ascending, then j), counting them on
// from count. Like that scan it stops after the node at which the count
// passes max. It searches a grid with cells of the range, so it costs
// about the number of nodes and links, not the square of the node count;
// a model without a finite range falls back to the scan.
func frameLinks(links []int32, pos []geo.Vec, known []bool, prop radio.Propagation, count, max int) ([]int32, int) {
	// The slack keeps pairs exactly at the range inside the searched
	// cells despite rounding; InRange then decides exactly (as
	// radio.Medium.Components does).
	r := prop.Range()*(1+1e-9) + 1e-9
	if !(r > 0) || math.IsInf(r, 0) {
		return scanLinks(links, pos, known, prop, count, max)
	}
	type cell struct{ x, y int64 }
	cellOf := func(p geo.Vec) (cell, bool) {
		x, y := math.Floor(p.X/r), math.Floor(p.Y/r)
		if math.IsNaN(x) || math.IsNaN(y) || math.Abs(x) > 1<<60 || math.Abs(y) > 1<<60 {
			return cell{}, false
		}
		return cell{int64(x), int64(y)}, true
	}
	grid := map[cell][]int32{}
	for i := range pos {
		if !known[i] {
			continue
		}
		if c, ok := cellOf(pos[i]); ok {
			grid[c] = append(grid[c], int32(i))
		}
	}
	var near []int32
	for i := range pos {
		if !known[i] {
			continue
		}
		c, ok := cellOf(pos[i])
		if !ok {
			continue // not a finite position: in range of nothing
		}
		near = near[:0]
		for dy := int64(-1); dy <= 1; dy++ {
			for dx := int64(-1); dx <= 1; dx++ {
				for _, j := range grid[cell{c.x + dx, c.y + dy}] {
					if int(j) > i {
						near = append(near, j)
					}
				}
			}
		}
		slices.Sort(near)
		for _, j := range near {
			if prop.InRange(geo.Dist(pos[i], pos[j])) {
				links = append(links, int32(i), j)
				count++
			}
		}
		if count > max {
			break
		}
	}
	return links, count
}

// scanLinks is frameLinks by a scan of every pair.
func scanLinks(links []int32, pos []geo.Vec, known []bool, prop radio.Propagation, count, max int) ([]int32, int) {
	for i := range pos {
		if !known[i] {
			continue
		}
		for j := i + 1; j < len(pos); j++ {
			if known[j] && prop.InRange(geo.Dist(pos[i], pos[j])) {
				links = append(links, int32(i), int32(j))
				count++
			}
		}
		if count > max {
			break
		}
	}
	return links, count
}
