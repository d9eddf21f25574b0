package logicalring

import (
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
)

func ids(n ...protocol.NodeID) []protocol.NodeID { return n }

func span(a, b protocol.NodeID) []protocol.NodeID {
	var s []protocol.NodeID
	for id := a; id <= b; id++ {
		s = append(s, id)
	}
	return s
}

func TestResolveOrders(t *testing.T) {
	members := span(1, 5)
	for _, c := range []struct {
		spec any
		want []protocol.NodeID
	}{
		{"ascending", ids(1, 2, 3, 4, 5)},
		{"descending", ids(5, 4, 3, 2, 1)},
		{[]any{3, 1, 5, 2, 4}, ids(3, 1, 5, 2, 4)},
		{[]any{3.0, 1, int64(5), uint64(2), 4}, ids(3, 1, 5, 2, 4)},
		{[]int{2, 4, 1, 3, 5}, ids(2, 4, 1, 3, 5)},
		{ids(5, 1, 4, 2, 3), ids(5, 1, 4, 2, 3)},
	} {
		got, err := Resolve(c.spec, members, 1)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%v: %v, %v; want %v", c.spec, got, err, c.want)
		}
	}
	if !slices.Equal(members, span(1, 5)) {
		t.Fatal("Resolve changed members")
	}
}

func TestResolveRandom(t *testing.T) {
	members := span(1, 20)
	first, err := Resolve(nil, members, 42)
	if err != nil {
		t.Fatal(err)
	}
	if sorted := slices.Sorted(slices.Values(first)); !slices.Equal(sorted, members) {
		t.Fatalf("%v is not a permutation of the members", first)
	}
	if slices.Equal(first, members) {
		t.Fatal("the random ring is the ascending one")
	}
	again, _ := Resolve("random", members, 42)
	if !slices.Equal(first, again) {
		t.Fatalf("seed 42 gave %v, then %v", first, again)
	}
	differ := 0
	for seed := uint64(0); seed < 10; seed++ {
		other, _ := Resolve("random", members, seed)
		if !slices.Equal(first, other) {
			differ++
		}
	}
	if differ < 9 {
		t.Fatalf("only %d of 10 other seeds gave another ring", differ)
	}
	if one, _ := Resolve(nil, ids(7), 3); !slices.Equal(one, ids(7)) {
		t.Fatalf("1-member ring %v", one)
	}
}

func TestResolveErrorsNameTheFieldAndWhatIsAllowed(t *testing.T) {
	members := span(1, 8)
	for _, c := range []struct {
		spec any
		want string
	}{
		{"sideways", `protocol.params.ring: "sideways" is not random, ascending, descending or a list of node IDs`},
		{5, "protocol.params.ring: 5 is not random, ascending, descending or a list of node IDs"},
		{map[string]any{"a": 1}, "is not random, ascending, descending or a list of node IDs"},
		{[]any{1, 2, 9, 3, 4, 5, 6, 7, 8}, "protocol.params.ring: node 9 is not a member (members: 1-8)"},
		{[]any{0, 1, 2, 3, 4, 5, 6, 7, 8}, "protocol.params.ring: node 0 is not a member (members: 1-8)"},
		{[]any{1, 2, 3, 3, 4, 5, 6, 7, 8}, "protocol.params.ring: node 3 appears twice"},
		{[]int{1, 2, 3, 5, 6, 7, 8}, "protocol.params.ring: leaves out member 4 (a ring must list every member once)"},
		{ids(8, 7, 6, 5, 4, 3, 2), "protocol.params.ring: leaves out member 1 (a ring must list every member once)"},
		{[]any{1, "two", 3}, "protocol.params.ring: entry 2 (two) is not a node ID (members: 1-8)"},
		{[]any{1, 2.5}, "protocol.params.ring: entry 2 (2.5) is not a node ID"},
		{[]any{-1}, "protocol.params.ring: entry 1 (-1) is not a node ID"},
		{[]any{}, "protocol.params.ring: leaves out member 1"},
	} {
		_, err := Resolve(c.spec, members, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.spec, err, c.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		ids  []protocol.NodeID
		want string
	}{
		{nil, "none"},
		{ids(4), "4"},
		{span(1, 8), "1-8"},
		{ids(1, 2, 4, 6, 7, 8, 10), "1, 2, 4, 6-8, 10"},
		{ids(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23), "1, 3, 5, 7, 9, 11, 13, 15, ..., 23"},
		{ids(1, 3, 5, 7, 9, 11, 13, 15, 17, 19), "1, 3, 5, 7, 9, 11, 13, 15, 17, 19"},
	} {
		if got := Describe(c.ids); got != c.want {
			t.Errorf("Describe(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}
