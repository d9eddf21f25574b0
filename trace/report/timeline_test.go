package report

import (
	"fmt"
	"testing"

	"manetlab/protocol"
	"manetlab/trace"
)

func TestTimelineShowsTakeoverAfterALeaderCrash(t *testing.T) {
	s := int64(1e9)
	changes := []change{
		{0, 1, 1}, {0, 2, 2}, {0, 3, 3},
		{2 * s, 1, 3}, {2 * s, 2, 3},
		{7 * s, 1, 2}, {7 * s, 2, 2},
		{12 * s, 3, 3}, {13 * s, 1, 3}, {13 * s, 2, 3},
	}
	faults := []trace.Event{{T: 5 * s, Node: 3, Ev: trace.EvCrash}, {T: 11 * s, Node: 3, Ev: trace.EvRecover}}
	got := ""
	for _, m := range timeline(changes, faults, 15*s) {
		if m.Event != "" {
			got += fmt.Sprintf("%g:%s; ", m.T, m.Event)
		} else {
			got += fmt.Sprintf("%g:%v; ", m.T, m.Leaders)
		}
	}
	want := "0:map[1:1 2:1 3:1]; 2:map[3:3]; 5:node 3 crashed (it led 2 nodes); 7:map[2:2]; 11:node 3 recovered; 12:map[2:2 3:1]; 13:map[3:3]; "
	if got != want {
		t.Fatalf("timeline\n got %s\nwant %s", got, want)
	}
}

func TestTimelineCapsLeaderGroups(t *testing.T) {
	var changes []change
	for i := protocol.NodeID(1); i <= 50; i++ {
		changes = append(changes, change{0, i, i})
	}
	m := timeline(changes, nil, 1e9)
	if len(m) != 1 || len(m[0].Leaders) != maxLeaders || m[0].Leaders["others"] != 50-(maxLeaders-1) {
		t.Fatalf("%+v", m)
	}
}
