package ring

import (
	"testing"

	"manetlab/protocol"
	"manetlab/protocol/logicalring"
)

func boundOf(t *testing.T, alg string, members []protocol.NodeID, params protocol.Params, seed uint64) protocol.Bound {
	t.Helper()
	spec, err := protocol.Lookup(alg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := spec.Complexity.Bound(members, params, seed)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// TestBoundsByHand checks the bounds against counts worked out by hand.
func TestBoundsByHand(t *testing.T) {
	m8 := []protocol.NodeID{1, 2, 3, 4, 5, 6, 7, 8}
	m4 := []protocol.NodeID{1, 2, 3, 4}
	cases := []struct {
		alg                string
		members            []protocol.NodeID
		params             protocol.Params
		value              float64
		exact, best, worst int
		formula            string
	}{
		{LeLann, m8, nil, 64, 64, -1, -1, "n^2"},
		{LeLann, m8, protocol.Params{"initiators": []any{2, 5, 7}}, 64, 24, -1, -1, "n^2"},
		{ChangRoberts, m8, protocol.Params{"ring": "ascending"}, 36, 15, 15, 36, "n(n+1)/2"},
		{ChangRoberts, m8, protocol.Params{"ring": "descending"}, 36, 36, 15, 36, "n(n+1)/2"},
		// Ring 3 1 4 2: token 3 is dropped by 4 after 2 hops, 1 by 4 after
		// 1, 2 by 3 after 1, and 4 goes round: 8.
		{ChangRoberts, m4, protocol.Params{"ring": []any{3, 1, 4, 2}}, 10, 8, 7, 10, "n(n+1)/2"},
		// The same ring, only node 1 initiating: 1 is dropped by 4 (1
		// hop), 4 wakes and goes round (4); 2 and 3 first see token 4 and
		// only forward: 5.
		{ChangRoberts, m4, protocol.Params{"ring": []any{3, 1, 4, 2}, "initiators": "one"}, 10, 5, -1, 10, "n(n+1)/2"},
		// Only 3 initiating: 3 dropped by 4 (2 hops); 1 wakes on 3 but 3 is
		// larger, so it forwards; 4 goes round; 2 forwards 4: 2+4 = 6.
		{ChangRoberts, m4, protocol.Params{"ring": []any{3, 1, 4, 2}, "initiators": []any{3}}, 10, 6, -1, 10, "n(n+1)/2"},
		// Ascending 1 2 3 4: node 1 swallowed both ways at 1 hop (2); 2
		// swallowed at 1 ahead, reply from 1 behind... 1 is smaller, 4
		// is 2 behind: 1 + 2·1 = 3; 3: 1 ahead (4), 3 behind: 1+2 = 3;
		// 4: phase 0 4, phase 1 8, phase 2 (4 >= n) 2·4: 20. Total 28.
		{HirschbergSinclair, m4, protocol.Params{"ring": "ascending"}, 8 * 4 * 3, 28, -1, -1, "8n(1+⌈log2 n⌉)"},
		{HirschbergSinclair, []protocol.NodeID{1, 2}, nil, 32, 10, -1, -1, "8n(1+⌈log2 n⌉)"},
		{Tanenbaum, m8, protocol.Params{"initiators": "one"}, 8, 8, -1, -1, "k·m"},
		{Tanenbaum, m8, nil, 64, 64, -1, -1, "k·m"},
		{ChangRoberts, []protocol.NodeID{5}, nil, 1, 0, 0, 0, "n(n+1)/2"},
		{LeLann, []protocol.NodeID{5}, nil, 1, 0, -1, -1, "n^2"},
		{HirschbergSinclair, []protocol.NodeID{5}, nil, 8, 0, -1, -1, "8n(1+⌈log2 n⌉)"},
	}
	for _, c := range cases {
		b := boundOf(t, c.alg, c.members, c.params, 1)
		if b.Value != c.value || deref(b.Exact) != c.exact || deref(b.Best) != c.best || deref(b.Worst) != c.worst || b.Formula != c.formula || b.Name == "" {
			t.Errorf("%s %v %v: bound %+v exact %d best %d worst %d; want value %g exact %d best %d worst %d formula %q",
				c.alg, c.members, c.params, b, deref(b.Exact), deref(b.Best), deref(b.Worst), c.value, c.exact, c.best, c.worst, c.formula)
		}
	}
}

// TestBoundFollowsTheSeededRing: the bound resolves the random ring from
// the run's seed as the processes do.
func TestBoundFollowsTheSeededRing(t *testing.T) {
	members := ids(16)
	for seed := uint64(1); seed <= 20; seed++ {
		order, err := logicalring.Resolve(nil, members, seed)
		if err != nil {
			t.Fatal(err)
		}
		b := boundOf(t, ChangRoberts, members, nil, seed)
		if want := ChangRobertsCount(order, members); deref(b.Exact) != want {
			t.Fatalf("seed %d: exact %d, the seeded ring's %d", seed, deref(b.Exact), want)
		}
		h := boundOf(t, HirschbergSinclair, members, protocol.Params{"ring": "random"}, seed)
		if want := HirschbergSinclairCount(order); deref(h.Exact) != want || want > HirschbergSinclairLimit(16) {
			t.Fatalf("seed %d: HS exact %d, want %d within %d", seed, deref(h.Exact), want, HirschbergSinclairLimit(16))
		}
	}
}

// TestHirschbergSinclairCountIsSymmetricAndWithinTheLimit: reversing the
// ring mirrors every probe, and the limit holds for every permutation of
// small rings.
func TestHirschbergSinclairCountIsSymmetricAndWithinTheLimit(t *testing.T) {
	for n := 1; n <= 7; n++ {
		perm := ids(n)
		var walk func(k int)
		walk = func(k int) {
			if k == n {
				c := HirschbergSinclairCount(perm)
				rev := make([]protocol.NodeID, n)
				for i := range perm {
					rev[n-1-i] = perm[i]
				}
				if c != HirschbergSinclairCount(rev) || c > HirschbergSinclairLimit(n) {
					t.Fatalf("%v: %d, reversed %d, limit %d", perm, c, HirschbergSinclairCount(rev), HirschbergSinclairLimit(n))
				}
				cr := ChangRobertsCount(perm, perm)
				if n > 1 && (cr < 2*n-1 || cr > n*(n+1)/2) {
					t.Fatalf("%v: Chang-Roberts %d outside [2n-1, n(n+1)/2]", perm, cr)
				}
				return
			}
			for i := k; i < n; i++ {
				perm[k], perm[i] = perm[i], perm[k]
				walk(k + 1)
				perm[k], perm[i] = perm[i], perm[k]
			}
		}
		walk(0)
	}
}
