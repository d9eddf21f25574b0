package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
)

// Counts take the singular for one, and leader IDs print in numeric
// order (1, 2, 10, 100, not 1, 10, 100, 2), words last.
func TestTextCountsAndIDOrder(t *testing.T) {
	s := &Summary{Run: "r", Protocol: "p", Driver: "sim", Nodes: 1, Alive: 1, Verdict: "invalid",
		Components: []Component{
			{Nodes: []protocol.NodeID{2, 10, 100, 1000, 9}, ExpectedLeader: 1000, Leaders: map[string]int{"1000": 1, "100": 1, "10": 1, "9": 1, "none": 1}},
			{Nodes: []protocol.NodeID{5}, ExpectedLeader: 5, Leaders: map[string]int{"5": 1}, Valid: true},
		},
		Timeline: []Moment{{T: 1, Leaders: map[string]int{"10": 2, "9": 2, "100": 2, "none": 1}}, {T: 2, Event: "node 8 crashed"}},
	}
	var b bytes.Buffer
	s.WriteText(&b)
	text := b.String()
	for _, want := range []string{
		"seed 0, 1 node (1 alive at the end)",
		"component 1 (5 nodes): expected leader 1000, members follow 9 (x1), 10 (x1), 100 (x1), 1000 (x1), none (x1)  WRONG",
		"component 2 (1 node): expected leader 5, members follow 5 (x1)  ok",
		"1.0s  9 (2), 10 (2), 100 (2), none (1)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	keys := []string{"others", "1000", "none", "2", "10", "1"}
	slices.SortFunc(keys, cmpKeys)
	if got := strings.Join(keys, " "); got != "1 2 10 1000 none others" {
		t.Errorf("sorted keys %q", got)
	}
}

// A run outside its protocol's assumptions (verdict unknown) does not
// call a component WRONG: it says the leader differs and is not judged.
func TestTextUnknownDoesNotSayWrong(t *testing.T) {
	s := &Summary{Run: "r", Protocol: "p", Driver: "sim", Nodes: 3, Alive: 3, Verdict: "unknown", Reason: "outside",
		Components: []Component{{Nodes: []protocol.NodeID{1, 2, 3}, ExpectedLeader: 3, Leaders: map[string]int{"1": 2, "3": 1}}}}
	var b bytes.Buffer
	s.WriteText(&b)
	text := b.String()
	if want := "members follow 1 (x2), 3 (x1)  not the expected leader; not judged (outside the assumptions)"; !strings.Contains(text, want) || strings.Contains(text, "WRONG") {
		t.Errorf("want %q and no WRONG in:\n%s", want, text)
	}
}

func TestLeaderCountsJSONInNumericOrder(t *testing.T) {
	b, err := json.Marshal(Component{Leaders: LeaderCounts{"100": 1, "9": 2, "10": 3, "none": 4}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"leaders":{"9":2,"10":3,"100":1,"none":4}`; !strings.Contains(string(b), want) {
		t.Errorf("JSON %s, want %s", b, want)
	}
	var back Component
	if err := json.Unmarshal(b, &back); err != nil || back.Leaders["10"] != 3 || len(back.Leaders) != 4 {
		t.Errorf("read back %+v (%v)", back, err)
	}
	if b, _ := json.Marshal(Moment{T: 1}); strings.Contains(string(b), "leaders") {
		t.Errorf("an empty moment writes leaders: %s", b)
	}
}
