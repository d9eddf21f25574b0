package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/explore/exploretest"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/studio"
	"manetlab/trace/htmlreport/chromiumtest"
)

// TestExploreScheduleOpensAtItsViolation: a schedule explore found opens
// in the studio at the violating step, with the property, the witness's
// nodes and the schedule's chosen events to highlight (issue 35).
func TestExploreScheduleOpensAtItsViolation(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "hasty.yaml")
	if err := os.WriteFile(sc, []byte(exploretest.Scenario(3)), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "found")
	if _, err := runCLI(t, "explore", sc, "--drops", "1", "--strategy", "bfs", "--out", folder, "--quiet"); err != errViolation {
		t.Fatalf("no violation: %v", err)
	}
	sched, err := sim.ReadSchedule(filepath.Join(folder, "violation-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	v := sched.Violation
	if v == nil || v.Property != "one-leader-per-epoch" || v.Step != sched.Steps || v.Witness == "" {
		t.Fatalf("the schedule's violation: %+v (steps %d)", v, sched.Steps)
	}
	s, err := scenario.Load(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := studio.New(studio.Config{Scenario: s, Path: sc, Out: filepath.Join(dir, "session"), Schedule: sched})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer(st.Handler())
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/api/state", nil)
	req.Header.Set(studio.TokenHeader, st.Token())
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var state studio.State
	if err := json.NewDecoder(r.Body).Decode(&state); err != nil {
		t.Fatal(err)
	}
	sv := state.Violation
	if state.Step != v.Step || sv == nil || sv.Property != v.Property || len(sv.Nodes) < 2 || len(sv.Choices) != len(sched.Choices) {
		t.Fatalf("the studio at step %d (want %d), violation %+v", state.Step, v.Step, sv)
	}
	// The witness's nodes are the two that announce different leaders in
	// epoch 1, and the studio shows them so.
	followed := map[uint32]bool{}
	for _, n := range state.Nodes {
		if slices.Contains(sv.Nodes, n.ID) && n.Leader != 0 {
			followed[uint32(n.Leader)] = true
		}
	}
	if len(followed) < 2 {
		t.Fatalf("witness nodes %v follow %v (%s)", sv.Nodes, followed, sv.Witness)
	}
	// The offending messages: the last delivered to each witness node,
	// before the violating step (a broadcast reaches every node here:
	// the nodes are in range of each other).
	var reached []protocol.NodeID
	for _, c := range sv.Causes {
		for _, id := range c.Nodes {
			var last *sim.Taken
			for _, h := range state.History {
				if h.Class == sim.ClassProtocol && h.Step < v.Step && (strings.Contains(h.Line, "→all") || strings.Contains(h.Line, fmt.Sprintf("→%d (hop", id))) {
					last = &h
				}
			}
			if !slices.Contains(sv.Nodes, id) || last == nil || last.Step != c.Step || last.Line != c.Line || !strings.Contains(c.Why, "the last message delivered to node") {
				t.Fatalf("offending message %+v; the last delivery to node %d in the history: %+v", c, id, last)
			}
			reached = append(reached, id)
		}
	}
	if len(reached) != len(sv.Nodes) {
		t.Fatalf("offending messages %+v for witness nodes %v", sv.Causes, sv.Nodes)
	}
	// On the page: the violation above the map, its nodes ringed, the
	// chosen events and the violating step marked in the history.
	chromiumtest.ForTest(t)
	p := chromiumtest.Open(t, srv.URL+"/?token="+st.Token(), 1366, 768)
	p.WaitFor(`document.body.dataset.ready === "1"`, 30*time.Second)
	var got struct {
		Banner            string
		Ringed, Offending int
		Violating, Causes int
	}
	p.Eval(`({banner: document.getElementById("violation").hidden ? "" : document.getElementById("violation").textContent,
		ringed: document.querySelectorAll("#map .node.witness").length, offending: document.querySelectorAll("#history li.offending").length,
		violating: document.querySelectorAll("#history li.violating").length, causes: document.querySelectorAll("#history li.cause").length})`, &got)
	if dir := os.Getenv("MANETLAB_STUDIO_SHOTS"); dir != "" {
		p.Screenshot(filepath.Join(dir, "explore-violation.png")) // docs/studio.md
	}
	if !strings.Contains(got.Banner, "violation of one-leader-per-epoch at step") || got.Ringed != len(sv.Nodes) || got.Offending == 0 || got.Violating != 1 ||
		got.Causes != len(sv.Causes) || !strings.Contains(got.Banner, "offending messages (outlined in the history): step "+fmt.Sprint(sv.Causes[0].Step+1)+": "+sv.Causes[0].Line) {
		t.Fatalf("the page shows %+v", got)
	}
}
