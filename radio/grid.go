package radio

import (
	"math"

	"manetlab/internal/geo"
)

// grid is a uniform grid over the XY plane (Z is ignored: the XY distance
// never exceeds the 3-D one, so the grid finds a superset). Nodes are
// bucketed by counting sort into one flat array, ascending by node index
// within a cell, and the cells of a row are adjacent, so a query walks a
// few contiguous runs and allocates nothing once the buffers have grown.
type grid struct {
	cell       float64 // side of a cell in metres
	minX, minY float64
	nx, ny     int
	start      []int32 // cell c holds items[start[c]:start[c+1]]
	items      []int32 // node indices
	cellOf     []int32 // per node: its cell, or -1 when left out
}

// maxCellsPerNode caps the number of cells so that sparse layouts (nodes
// far apart, ns-2 traces with distant coordinates) do not allocate a huge
// mostly empty grid; the cell then grows beyond the asked size, which
// costs only extra candidates.
const maxCellsPerNode = 4

// build indexes the nodes with finite positions, skipping those with
// alive[i] false (alive nil keeps all), with cells of at least cell metres.
func (g *grid) build(pos []geo.Vec, alive []bool, cell float64) {
	n := len(pos)
	g.cellOf = grow(g.cellOf, n)
	count := 0
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for i, p := range pos {
		if (alive != nil && !alive[i]) || !finite(p.X) || !finite(p.Y) || !finite(p.Z) {
			g.cellOf[i] = -1
			continue
		}
		g.cellOf[i] = 0
		count++
		minX, maxX = min(minX, p.X), max(maxX, p.X)
		minY, maxY = min(minY, p.Y), max(maxY, p.Y)
	}
	if count == 0 {
		minX, minY, maxX, maxY = 0, 0, 0, 0
	}
	if !(cell > 0) || math.IsInf(cell, 0) {
		cell = math.Max(maxX-minX, maxY-minY) + 1
	}
	limit := float64(maxCellsPerNode*count + 16)
	for {
		fx := math.Floor((maxX-minX)/cell) + 1
		fy := math.Floor((maxY-minY)/cell) + 1
		if fx*fy <= limit {
			g.nx, g.ny = int(fx), int(fy)
			break
		}
		cell *= 1.5
	}
	g.cell, g.minX, g.minY = cell, minX, minY
	cells := g.nx * g.ny
	g.start = grow(g.start, cells+1)
	clear(g.start)
	for i, p := range pos {
		if g.cellOf[i] < 0 {
			continue
		}
		c := g.cellIndex(p)
		g.cellOf[i] = int32(c)
		g.start[c+1]++
	}
	for c := 1; c <= cells; c++ {
		g.start[c] += g.start[c-1]
	}
	g.items = grow(g.items, count)
	// Fill in ascending node order, using start[c] as the cursor of cell c
	// and then shifting back, so each cell stays sorted by node index.
	for i := range pos {
		if c := g.cellOf[i]; c >= 0 {
			g.items[g.start[c]] = int32(i)
			g.start[c]++
		}
	}
	copy(g.start[1:], g.start[:cells])
	g.start[0] = 0
}

// cellIndex is the cell of an indexed position.
func (g *grid) cellIndex(p geo.Vec) int {
	cx := min(int((p.X-g.minX)/g.cell), g.nx-1)
	cy := min(int((p.Y-g.minY)/g.cell), g.ny-1)
	return cy*g.nx + cx
}

// span returns the cells, clamped to the grid, that hold every indexed node
// within r metres of p in the plane; ok is false when there are none.
func (g *grid) span(p geo.Vec, r float64) (x0, x1, y0, y1 int, ok bool) {
	x0, x1, ok = axisSpan(p.X-r-g.minX, p.X+r-g.minX, g.cell, g.nx)
	if !ok {
		return
	}
	y0, y1, ok = axisSpan(p.Y-r-g.minY, p.Y+r-g.minY, g.cell, g.ny)
	return
}

// axisSpan maps the interval [lo, hi] (relative to the grid origin) to cell
// indices 0..n-1. The floats are clamped before conversion so positions far
// outside the grid cannot overflow an int.
func axisSpan(lo, hi, cell float64, n int) (int, int, bool) {
	a := math.Floor(lo / cell)
	b := math.Floor(hi / cell)
	if !(b >= 0) || !(a <= float64(n-1)) { // also rejects NaN
		return 0, 0, false
	}
	return int(max(a, 0)), int(min(b, float64(n-1))), true
}

// row returns the nodes of cells x0..x1 of row y: one contiguous run.
func (g *grid) row(y, x0, x1 int) []int32 {
	base := y * g.nx
	return g.items[g.start[base+x0]:g.start[base+x1+1]]
}

// grow returns s with length n, reusing its storage when large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
