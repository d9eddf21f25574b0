package analysis

import (
	"reflect"
	"testing"

	"manetlab/protocol"
)

// TestUnnumberedElections: bully's first election in seed 002's example
// (1 to 4 start at once, 5 to 7 join on the election messages, 7 wins
// epoch 7.1) is one election by node 1; a later one, after 7's crash,
// started by 4 alone, is another, named by the epoch its winner numbers.
func TestUnnumberedElections(t *testing.T) {
	var u Unnumbered
	for _, id := range []int{2, 1, 3, 4} { // node files in any order: ties to the lower ID
		u.Start(1000, protocol.NodeID(id))
	}
	u.Start(1100, 5)
	u.Start(1100, 6)
	u.Start(1100, 7)
	u.Stop(1200, 7, "7.1") // 7's leader note, then its election-end
	u.Stop(1200, 7, "")
	if !u.Under() {
		t.Fatal("the election ended before the others adopted 7")
	}
	for id := 1; id <= 6; id++ {
		u.Stop(1300, protocol.NodeID(id), "7.1")
	}
	u.Stop(1400, 3, "") // an election-end after the leader note: nothing more
	u.Start(10000, 4)
	u.Start(10100, 5)
	u.Start(10100, 6)
	u.Stop(10200, 5, "") // 5 crashed
	u.Stop(10300, 6, "6.2")
	u.Stop(10400, 4, "6.2")
	u.Start(20000, 7) // 7 recovers and holds an election the run ends in
	want := []ElectionSpan{
		{Epoch: "7.1", Initiator: 1, Start: 1000, End: 1300, Done: true},
		{Epoch: "6.2", Initiator: 4, Start: 10000, End: 10400, Done: true},
		{Initiator: 7, Start: 20000},
	}
	if !reflect.DeepEqual(u.Spans, want) {
		t.Fatalf("elections %+v\nwant %+v", u.Spans, want)
	}
}
