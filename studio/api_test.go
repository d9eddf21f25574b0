package studio_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"manetlab/sim"
	"manetlab/studio"
	_ "manetlab/synchronous"
)

func post(t *testing.T, url, path string, body any) *studio.State {
	t.Helper()
	b, _ := json.Marshal(body)
	r, err := do(url, "POST", path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", path, r.Status)
	}
	var s studio.State
	if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestAPIRefusesWhatTheChannelHolds: hold a token back by taking the
// other events first; its sender's next token to the same node is not
// offered, and taking it says why.
func TestAPIRefusesWhatTheChannelHolds(t *testing.T) {
	// ideal: the test takes deliveries out of order, which the DCF
	// medium never offers (its MAC orders the frames on the air).
	_, url := serve(t, "../configs/ring-chang-roberts.yaml", "radio.mac=ideal", "protocol.params.ring=descending")
	s := post(t, url, "/api/step", map[string]any{"n": 9}) // the boots and the first start timer
	var first *sim.Pending
	for i := 0; i < 1000; i++ {
		var take *sim.Pending
		for _, p := range s.Pending {
			switch {
			case first == nil && p.Msg == "token":
				first = &p
			case first != nil && p.Origin == first.Origin && p.Final == first.Final && !p.Offered:
				s2 := post(t, url, "/api/take", map[string]any{"seq": p.Seq})
				if !strings.Contains(s2.Error, "FIFO") || s2.Step != s.Step {
					t.Fatalf("take of %+v: step %d → %d, error %q", p, s.Step, s2.Step, s2.Error)
				}
				return
			case first != nil && p.Origin == first.Origin && p.Final == first.Final:
			case take == nil && p.Offered:
				take = &p
			}
		}
		if take == nil {
			break
		}
		s = post(t, url, "/api/take", map[string]any{"seq": take.Seq})
	}
	t.Fatal("no delivery held back by a channel")
}

// TestAPIRewindKeepsBranches: a rewind keeps the line it leaves, and
// opening it comes back to the same state.
func TestAPIRewindKeepsBranches(t *testing.T) {
	_, url := serve(t, "../configs/bully.yaml")
	post(t, url, "/api/step", map[string]any{"n": 12}) // every node booted, elections under way
	s := post(t, url, "/api/crash", map[string]any{"node": 7})
	if s.Error != "" || len(s.Choices) != 1 {
		t.Fatalf("crash: %s", s.Error)
	}
	post(t, url, "/api/note", nil)
	before := post(t, url, "/api/step", map[string]any{"n": 3})
	back := post(t, url, "/api/rewind", map[string]any{"step": s.Step - 1})
	if back.Step != s.Step-1 || len(back.Choices) != 0 || len(back.Branches) != 1 || !back.Nodes[6].Alive {
		t.Fatalf("after the rewind: step %d, choices %v, branches %v, node 7 alive %v", back.Step, back.Choices, back.Branches, back.Nodes[6].Alive)
	}
	again := post(t, url, "/api/branch", map[string]any{"branch": 0})
	if again.Step != before.Step || len(again.Choices) != 1 || again.Nodes[6].Alive || len(again.Branches) != 1 {
		t.Fatalf("the branch opened at step %d (want %d) with choices %v", again.Step, before.Step, again.Choices)
	}
	a, _ := json.Marshal(again.Nodes)
	b, _ := json.Marshal(before.Nodes)
	if !bytes.Equal(a, b) {
		t.Fatalf("the branch's nodes differ:\n%s\n%s", a, b)
	}
}

// TestScheduleOpensAtItsLastStep: studio --schedule; a saved schedule
// records its scenario's hash.
func TestScheduleOpensAtItsLastStep(t *testing.T) {
	st, url := serve(t, "../configs/ring-chang-roberts.yaml")
	post(t, url, "/api/step", map[string]any{"n": 12})
	s := post(t, url, "/api/crash", map[string]any{"node": 4})
	s = post(t, url, "/api/step", map[string]any{"n": 5})
	sched := st.Schedule()
	sc := loadScenario(t, "../configs/ring-chang-roberts.yaml")
	if h, err := sc.Hash(); err != nil || sched.ScenarioHash != h {
		t.Fatalf("the schedule records scenario hash %q, the scenario's is %q (%v)", sched.ScenarioHash, h, err)
	}
	st2, err := studio.New(studio.Config{Scenario: sc, Out: t.TempDir(), Schedule: sched})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if got := st2.Schedule(); got.Steps != s.Step || len(got.Choices) != 1 || got.Choices[0].Crash != 4 {
		t.Fatalf("opened at %+v, want step %d with the crash of 4", got, s.Step)
	}
}

// TestAPIStepsRounds: a round algorithm steps round by round.
func TestAPIStepsRounds(t *testing.T) {
	_, url := serve(t, "../configs/sync-timeslice.yaml")
	s := post(t, url, "/api/round", nil)
	if !s.Rounds || s.Round != 1 || s.Error != "" {
		t.Fatalf("after one round: rounds %v, round %d, %s", s.Rounds, s.Round, s.Error)
	}
	s = post(t, url, "/api/round", nil)
	if s.Round != 2 {
		t.Fatalf("after two rounds: round %d", s.Round)
	}
	for _, n := range s.Nodes {
		if n.Round != "2" {
			t.Fatalf("node %d in round %q after the second round", n.ID, n.Round)
		}
	}
}

func TestAPICutsAndHealsLinks(t *testing.T) {
	_, url := serve(t, "../configs/ring-chang-roberts.yaml")
	post(t, url, "/api/step", map[string]any{"n": 3})
	s := post(t, url, "/api/cut", map[string]any{"node": 7, "peer": 1})
	if s.Error != "" || !slices.Contains(s.Nodes[0].Cut, 7) || slices.Contains(s.Nodes[0].Neighbors, 7) {
		t.Fatalf("after cutting 1–7: %q, node 1 %+v", s.Error, s.Nodes[0])
	}
	if s = post(t, url, "/api/cut", map[string]any{"node": 1, "peer": 7}); !strings.Contains(s.Error, "cut already") {
		t.Fatalf("cut twice: %q", s.Error)
	}
	s = post(t, url, "/api/heal", map[string]any{"node": 1, "peer": 7})
	if s.Error != "" || len(s.Nodes[0].Cut) != 0 || !slices.Contains(s.Nodes[0].Neighbors, 7) || len(s.Choices) != 2 {
		t.Fatalf("after healing 1–7: %q, node 1 %+v, choices %v", s.Error, s.Nodes[0], s.Choices)
	}
}

// TestAPIOnlyForThePage: another site's page can neither act (a form's
// text/plain POST) nor read through a rebound name.
func TestAPIOnlyForThePage(t *testing.T) {
	_, url := serve(t, "../configs/ring-chang-roberts.yaml")
	r, err := do(url, "POST", "/api/crash", "text/plain", strings.NewReader(`{"node": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("a text/plain POST: %s", r.Status)
	}
	// Every route checks the Host, the page and the schedule too.
	for _, path := range []string{"/api/state", "/", "/schedule.json?token=" + token(url)} {
		req, _ := http.NewRequest("GET", url+path, nil)
		req.Host = "evil.example:80"
		req.Header.Set(studio.TokenHeader, token(url))
		r, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusForbidden {
			t.Fatalf("GET %s for another host: %s", path, r.Status)
		}
	}
	// Without the token (another user of the machine), nothing but the
	// page, which holds no secret.
	for path, want := range map[string]int{"/api/state": http.StatusForbidden, "/schedule.json": http.StatusForbidden,
		"/schedule.json?token=0": http.StatusForbidden, "/": http.StatusOK} {
		r, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != want {
			t.Errorf("GET %s without the token: %s, want %d", path, r.Status, want)
		}
	}
	r, err = do(url, "GET", "/schedule.json", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("GET /schedule.json with the token: %s", r.Status)
	}
}

// TestBullyElectionsNamedInNotes: bully's election-start notes carry no
// epoch; the studio's notes name its elections by initiator and start,
// as the report page does: seed 002's first election is node 1's at 1 s,
// and the one node 4 holds after 7's crash is another, named by node 4.
func TestBullyElectionsNamedInNotes(t *testing.T) {
	_, url := serve(t, "../configs/bully.yaml", "radio.mac=ideal")
	s := post(t, url, "/api/step", map[string]any{"n": 100000, "classes": []string{"protocol", "transport", "network", "stale"}})
	var starts []string
	for _, n := range s.Notes {
		if strings.Contains(n.Text, "election start") {
			starts = append(starts, n.Text)
		}
	}
	if len(starts) == 0 || !strings.HasSuffix(starts[0], "(election by node 1 at 1.000 s)") {
		t.Fatalf("the first election-start notes: %q", starts)
	}
	later := false
	for _, x := range starts {
		later = later || strings.HasPrefix(x, "node 4: election start (election by node 4 at 15.")
	}
	if !later {
		t.Fatalf("no election by node 4 after 7's crash among %q", starts)
	}
}
