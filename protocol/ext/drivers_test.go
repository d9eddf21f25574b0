package ext_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/explore"
	"manetlab/studio"
)

// TestPythonChangRobertsExploredLikeGo explores the Python program on
// configs/explore-ring.yaml (3 nodes, every order of the messages and
// start timers): exhaustive, no violation (the declared worst case
// judged after every step), and the very states ring/chang-roberts
// gives (reuse: true keeps the programs between the replays).
func TestPythonChangRobertsExploredLikeGo(t *testing.T) {
	need(t, "python3")
	goRes, err := explore.Run(config(t, "explore-ring", ""), explore.Options{Strategy: explore.DFS, Depth: 40})
	if err != nil {
		t.Fatal(err)
	}
	p := crProtocol(example("python3", "changroberts.py")) + "    reuse: true\n"
	res, err := explore.Run(config(t, "explore-ring", p), explore.Options{Strategy: explore.DFS, Depth: 40})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation != nil || !res.Exhaustive {
		t.Fatalf("violation %+v, exhaustive %v", res.Violation, res.Exhaustive)
	}
	if res.States != goRes.States || res.Distinct != goRes.Distinct || res.Schedules != goRes.Schedules || res.Quiescent != goRes.Quiescent {
		t.Fatalf("program: %d states (%d distinct), %d schedules, %d quiescent; Go: %d (%d), %d, %d",
			res.States, res.Distinct, res.Schedules, res.Quiescent, goRes.States, goRes.Distinct, goRes.Schedules, goRes.Quiescent)
	}
}

// TestPythonChangRobertsSteppedInTheStudio steps the Python program in
// the studio through its API: the nodes describe themselves in the
// program's words, and stepping note by note reaches the leader.
func TestPythonChangRobertsSteppedInTheStudio(t *testing.T) {
	need(t, "python3")
	s := config(t, "ring-chang-roberts", crProtocol(example("python3", "changroberts.py")), "radio.mac=ideal")
	dir := t.TempDir()
	st, err := studio.New(studio.Config{Scenario: s, Path: "ring-chang-roberts.yaml", Out: filepath.Join(dir, "trace"), Save: filepath.Join(dir, "schedule.json")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(srv.Close)
	post := func(path string, body any) *studio.State {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", srv.URL+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(studio.TokenHeader, st.Token())
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var out studio.State
		if r.StatusCode != http.StatusOK || json.NewDecoder(r.Body).Decode(&out) != nil {
			t.Fatalf("%s: %s", path, r.Status)
		}
		if out.Error != "" {
			t.Fatalf("%s: %s", path, out.Error)
		}
		return &out
	}
	state := post("/api/step", map[string]any{"n": 9})
	described := 0
	for _, n := range state.Nodes {
		if strings.Contains(n.Describe, "election") {
			described++
		}
	}
	if described != len(state.Nodes) {
		t.Fatalf("nodes not described by the program: %+v", state.Nodes)
	}
	var leaders int
	for range 200 {
		state = post("/api/note", nil)
		leaders = 0
		for _, n := range state.Nodes {
			if n.Leader == 8 {
				leaders++
			}
		}
		if leaders == len(state.Nodes) {
			break
		}
	}
	if leaders != 8 {
		t.Fatalf("after stepping note by note, %d of 8 nodes follow 8: %+v", leaders, state.Nodes)
	}
}
