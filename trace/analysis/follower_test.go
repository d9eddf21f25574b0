package analysis

import (
	"testing"

	"manetlab/protocol"
	"manetlab/scenario"
)

// TestFollowerReplaysEachTraceInItsOrder: the leader a member follows at
// a sample is its latest leader note up to it, in its trace's order: an
// event whose time goes back waits for the later one before it; a start
// or a crash clears the leader; members are replayed apart.
func TestFollowerReplaysEachTraceInItsOrder(t *testing.T) {
	p1 := &proc{id: 1, evs: []event{{t: 0, typ: tStart}, {t: 5, typ: tLeader, leader: 1}, {t: 3, typ: tLeader, leader: 2}, {t: 9, typ: tCrash}}}
	p2 := &proc{id: 2, evs: []event{{t: 1, typ: tLeader, leader: 2}, {t: 2, typ: tSend}, {t: 7, typ: tStart}, {t: 8, typ: tLeader, leader: 1}}}
	r := &run{procs: []*proc{{}, p1, p2}, byID: map[protocol.NodeID]*proc{1: p1, 2: p2}}
	tr := &truth{members: []scenario.Member{{ID: 1}, {ID: 2}, {ID: 3}}}
	f := newFollower(r, tr)
	for _, c := range []struct {
		t      int64
		leader [3]protocol.NodeID
		last   [3]int
	}{
		{0, [3]protocol.NodeID{0, 0, 0}, [3]int{-1, -1, -1}},
		{4, [3]protocol.NodeID{0, 2, 0}, [3]int{-1, 0, -1}}, // node 1's note at 3 waits for the one at 5
		{5, [3]protocol.NodeID{2, 2, 0}, [3]int{2, 0, -1}},
		{7, [3]protocol.NodeID{2, 0, 0}, [3]int{2, -1, -1}},
		{9, [3]protocol.NodeID{0, 1, 0}, [3]int{-1, 3, -1}},
	} {
		f.advance(c.t)
		for i := range 3 {
			if f.leader[i] != c.leader[i] || f.last[i] != c.last[i] {
				t.Errorf("at %d member %d follows %d (note %d), want %d (note %d)", c.t, i, f.leader[i], f.last[i], c.leader[i], c.last[i])
			}
		}
	}
	if f.cut[2] != -1 {
		t.Errorf("member 3 without a trace: cut %d, want -1", f.cut[2])
	}
}
