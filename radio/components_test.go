package radio

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/internal/geo"
	"manetlab/mobility"
)

// bruteComponents checks every pair with Linked and joins them with a
// plain union-find, then lists components as Components promises.
func bruteComponents(m *Medium, mob mobility.Model, t time.Duration, alive []bool) [][]int {
	n := mob.Len()
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	on := func(i int) bool { return alive == nil || alive[i] }
	for i := range n {
		for j := i + 1; j < n; j++ {
			if on(i) && on(j) && m.Linked(i, j, t) {
				parent[find(i)] = find(j)
			}
		}
	}
	byRoot := map[int][]int{}
	var roots []int
	for i := range n {
		if !on(i) {
			continue
		}
		r := find(i)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], i)
	}
	var out [][]int
	for _, r := range roots {
		out = append(out, byRoot[r])
	}
	return out
}

func TestComponentsMatchBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 300))
		speed := 0.0
		if seed%2 == 0 {
			speed = 15
		}
		mob := randomModel(rng, 600, 4000+500*float64(seed), speed)
		var alive []bool
		if seed > 2 {
			alive = make([]bool, mob.Len())
			for i := range alive {
				alive[i] = rng.Float64() < 0.8
			}
		}
		cfgs := []Config{defaulted(nil), defaulted(func(c *Config) { c.Propagation = LogDistance; c.Shadowing = 5; c.Range = 200 })}
		for _, c := range cfgs {
			m := mustMedium(t, c, mob, seed)
			for _, at := range []time.Duration{0, 7 * time.Second, 3 * time.Second} {
				got := m.Components(at, alive)
				want := bruteComponents(m, mob, at, alive)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("seed %d %s at %v: %d components, brute force %d", seed, c.Propagation, at, len(got), len(want))
				}
				if len(got) < 2 || len(got) == mob.Len() {
					t.Errorf("seed %d: %d components of %d nodes is a weak test layout", seed, len(got), mob.Len())
				}
			}
		}
	}
}

func TestComponentsSmall(t *testing.T) {
	mob := staticModel(geo.Vec{X: 1000}, geo.Vec{}, geo.Vec{X: 200}, geo.Vec{X: 400}, geo.Vec{X: 1100})
	m := mustMedium(t, defaulted(nil), mob, 1)
	want := [][]int{{0, 4}, {1, 2, 3}}
	if got := m.Components(0, nil); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Killing the middle node splits 1 from 3.
	want = [][]int{{0, 4}, {1}, {3}}
	if got := m.Components(0, []bool{true, true, false, true, true}); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("got %v, want %v", got, want)
	}
}
