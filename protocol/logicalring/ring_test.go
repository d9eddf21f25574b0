package logicalring

import (
	"slices"
	"testing"

	"manetlab/protocol"
)

func TestSuccessorAndPredecessorWrapAround(t *testing.T) {
	r := New(ids(3, 1, 4, 2))
	if r.Len() != 4 || !slices.Equal(r.Order(), ids(3, 1, 4, 2)) {
		t.Fatalf("ring %v", r.Order())
	}
	r.Order()[0] = 9
	if r.Order()[0] != 3 {
		t.Fatal("Order returned the ring's own slice")
	}
	for _, c := range []struct{ id, succ, pred protocol.NodeID }{
		{3, 1, 2}, {1, 4, 3}, {4, 2, 1}, {2, 3, 4},
	} {
		if s, p := r.Successor(c.id), r.Predecessor(c.id); s != c.succ || p != c.pred {
			t.Errorf("node %d: successor %d, predecessor %d; want %d, %d", c.id, s, p, c.succ, c.pred)
		}
	}
	if i, ok := r.Index(4); !ok || i != 2 {
		t.Errorf("Index(4) = %d, %v", i, ok)
	}
	if _, ok := r.Index(7); ok {
		t.Error("Index of a non-member")
	}
	if r.Successor(7) != protocol.None || r.Predecessor(7) != protocol.None || r.Next(7, false, nil) != protocol.None {
		t.Error("a node not on the ring has a neighbour")
	}
}

func TestNextSkips(t *testing.T) {
	r := New(span(1, 6))
	down := map[protocol.NodeID]bool{}
	skip := func(id protocol.NodeID) bool { return down[id] }
	down[6], down[1] = true, true
	if got := r.Next(5, false, skip); got != 2 {
		t.Errorf("forward from 5 past 6 and 1: %d, want 2", got)
	}
	if got := r.Next(2, true, skip); got != 5 {
		t.Errorf("backward from 2 past 1 and 6: %d, want 5", got)
	}
	down[1] = false
	if got := r.Next(5, false, skip); got != 1 {
		t.Errorf("forward from 5 past 6: %d, want 1", got)
	}
	for _, id := range span(1, 6) {
		down[id] = true
	}
	if got := r.Next(3, false, skip); got != 3 {
		t.Errorf("all others down: %d, want 3 itself", got)
	}
	if got := r.Next(3, true, skip); got != 3 {
		t.Errorf("all others down, backward: %d, want 3 itself", got)
	}
	asked := false
	r.Next(3, false, func(id protocol.NodeID) bool { asked = asked || id == 3; return true })
	if asked {
		t.Error("skip was asked about the starting node")
	}
}

func TestOneMemberRing(t *testing.T) {
	r := New(ids(5))
	if r.Successor(5) != 5 || r.Predecessor(5) != 5 || r.Next(5, false, func(protocol.NodeID) bool { return true }) != 5 {
		t.Fatal("a 1-member ring's node is its own neighbour")
	}
}

func TestNewPanicsOnDuplicates(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	New(ids(1, 2, 1))
}
