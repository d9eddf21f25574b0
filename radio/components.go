package radio

import (
	"fmt"
	"time"

	"manetlab/internal/geo"
)

// Components returns the connected components of the Linked graph at time
// t among the nodes with alive[i] true (alive nil means all; otherwise it
// must have Len() entries). Each component is sorted ascending and the
// components are ordered by their smallest member. It uses a grid with
// cells of the mean range, so it costs about the number of linked pairs,
// not the square of the node count.
func (m *Medium) Components(t time.Duration, alive []bool) [][]int {
	if alive != nil && len(alive) != m.n {
		panic(fmt.Sprintf("radio: Components: alive has %d entries for %d nodes", len(alive), m.n))
	}
	pos := m.positionsAt(t)
	// The slack keeps pairs exactly at the range inside the searched cells
	// despite rounding; InRange then decides exactly.
	r := m.prop.Range()*(1+1e-9) + 1e-9
	m.cgrid.build(pos, alive, r)
	m.parent = grow(m.parent, m.n)
	m.size = grow(m.size, m.n)
	for i := range m.parent {
		m.parent[i], m.size[i] = int32(i), 1
	}
	for i := range pos {
		if m.cgrid.cellOf[i] < 0 {
			continue // dead, or not at a finite position
		}
		x0, x1, y0, y1, ok := m.cgrid.span(pos[i], r)
		if !ok {
			continue
		}
		for y := y0; y <= y1; y++ {
			for _, j := range m.cgrid.row(y, x0, x1) {
				if int(j) > i && m.prop.InRange(geo.Dist(pos[i], pos[j])) {
					m.union(int32(i), j)
				}
			}
		}
	}
	return m.groups(alive)
}

// find returns i's root, halving the path on the way.
func (m *Medium) find(i int32) int32 {
	for m.parent[i] != i {
		m.parent[i] = m.parent[m.parent[i]]
		i = m.parent[i]
	}
	return i
}

func (m *Medium) union(a, b int32) {
	ra, rb := m.find(a), m.find(b)
	if ra == rb {
		return
	}
	if m.size[ra] < m.size[rb] {
		ra, rb = rb, ra
	}
	m.parent[rb] = ra
	m.size[ra] += m.size[rb]
}

// groups lists the union-find sets of the alive nodes (one at a position
// that is not finite is a set of its own). Scanning nodes in
// ascending order makes each group sorted and orders groups by their
// smallest member; one backing array holds them all.
func (m *Medium) groups(alive []bool) [][]int {
	// Reuse size as the root -> group number map: -1 until numbered.
	counts := []int{}
	for i := range m.size {
		m.size[i] = -1
	}
	members := 0
	for i := range m.parent {
		if alive != nil && !alive[i] {
			continue
		}
		root := m.find(int32(i))
		if m.size[root] < 0 {
			m.size[root] = int32(len(counts))
			counts = append(counts, 0)
		}
		counts[m.size[root]]++
		members++
	}
	backing := make([]int, members)
	comps := make([][]int, len(counts))
	off := 0
	for g, c := range counts {
		comps[g] = backing[off : off : off+c]
		off += c
	}
	for i := range m.parent {
		if alive != nil && !alive[i] {
			continue
		}
		g := m.size[m.find(int32(i))]
		comps[g] = append(comps[g], i)
	}
	return comps
}

// positionsAt returns every node's position at t: the static positions,
// or the mobility model's at t in a buffer the medium reuses (valid until
// the next call).
func (m *Medium) positionsAt(t time.Duration) []geo.Vec {
	if m.static {
		m.sync(0)
		return m.pos
	}
	m.cpos = grow(m.cpos, m.n)
	for i := range m.cpos {
		m.cpos[i] = m.mob.Position(i, t)
	}
	return m.cpos
}
