package scenario

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"manetlab/internal/geo"
)

// TestConfigs loads every scenario shipped in configs/ and checks that it
// validates and builds its mobility.
func TestConfigs(t *testing.T) {
	files, err := filepath.Glob("../configs/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found %d scenarios in configs/, want at least 5", len(files))
	}
	for _, f := range files {
		s, err := Load(f, nil)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if s.Name == "" || len(s.Members()) == 0 {
			t.Errorf("%s: name %q, %d members", f, s.Name, len(s.Members()))
		}
		if _, err := s.MobilityModel(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestStatic10kDegree checks the claim in static-10k.yaml: about 8
// neighbours per node, and one connected component.
func TestStatic10kDegree(t *testing.T) {
	s, err := Load("../configs/static-10k.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	pos := s.StartPositions()
	r := s.Radio.Range
	// Bucket into cells of the range so only nearby cells are compared.
	type cell struct{ x, y int }
	cells := map[cell][]int{}
	key := func(i int) cell { return cell{int(math.Floor(pos[i].X / r)), int(math.Floor(pos[i].Y / r))} }
	for i := range pos {
		cells[key(i)] = append(cells[key(i)], i)
	}
	parent := make([]int, len(pos))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	edges := 0
	for i := range pos {
		k := key(i)
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				for _, j := range cells[cell{k.x + dx, k.y + dy}] {
					if j != i && math.Hypot(pos[i].X-pos[j].X, pos[i].Y-pos[j].Y) <= r {
						edges++
						parent[find(i)] = find(j)
					}
				}
			}
		}
	}
	mean := float64(edges) / float64(len(pos))
	if mean < 7.5 || mean > 12 {
		t.Errorf("mean degree %.2f, want 8 to 12", mean)
	}
	roots := map[int]bool{}
	for i := range pos {
		roots[find(i)] = true
	}
	if len(roots) != 1 {
		t.Errorf("%d components, want 1", len(roots))
	}
}

// components counts the connected components of the unit-disk graph.
func components(pos []geo.Vec, r float64) int {
	seen := make([]bool, len(pos))
	n := 0
	for i := range pos {
		if seen[i] {
			continue
		}
		n++
		seen[i] = true
		stack := []int{i}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for j := range pos {
				if !seen[j] && geo.Dist(pos[x], pos[j]) <= r {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
	}
	return n
}

// TestNS2TraceMergesAndSplits checks the story told in
// configs/mobility/small.ns2: two partitions, a merge, a split.
func TestNS2TraceMergesAndSplits(t *testing.T) {
	s, err := Load("../configs/ns2-trace.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.MobilityModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Duration
		want int
	}{{0, 2}, {10 * time.Second, 2}, {30 * time.Second, 1}, {38 * time.Second, 2}} {
		pos := make([]geo.Vec, len(s.Members()))
		for i := range pos {
			pos[i] = m.Position(i, c.at)
		}
		if got := components(pos, s.Radio.Range); got != c.want {
			t.Errorf("at %v: %d components, want %d (positions %v)", c.at, got, c.want, pos)
		}
	}
}

// TestQuickstartPartitions checks the claim in quickstart.yaml: the
// network splits and merges within the minute.
func TestQuickstartPartitions(t *testing.T) {
	s, err := Load("../configs/quickstart.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.MobilityModel()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[int]bool{}
	for at := time.Duration(0); at <= s.Duration.D(); at += time.Second {
		pos := make([]geo.Vec, m.Len())
		for i := range pos {
			pos[i] = m.Position(i, at)
		}
		counts[components(pos, s.Radio.Range)] = true
	}
	if len(counts) < 2 {
		t.Errorf("component counts over the run: %v, want the partitions to change", counts)
	}
}
