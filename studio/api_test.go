package studio_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/sim"
	"manetlab/studio"
	_ "manetlab/synchronous"
	"manetlab/trace/judge"
	"manetlab/trace/report"
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
		if strings.Contains(n.Text, "election end") && !strings.Contains(n.Text, "(election by node ") {
			t.Errorf("an election's end is not named: %q", n.Text)
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

// TestAPIFollowOneToken: every message says what it carries, so a
// student can follow node 8's Chang-Roberts token from its origin round
// the ring to the announcement, forwarded by every other node, and tell
// it from the tokens the same nodes forward for others.
func TestAPIFollowOneToken(t *testing.T) {
	_, url := serve(t, "../configs/ring-chang-roberts.yaml", "radio.mac=ideal")
	s := post(t, url, "/api/step", map[string]any{"n": 400})
	tok := regexp.MustCompile(`^token from (\d+), election 1: (\d+)→`)
	senders := map[string]bool{}
	forwarded, elected := 0, false
	for _, h := range s.History {
		if h.Class != sim.ClassProtocol {
			continue
		}
		if strings.HasPrefix(h.Line, "elected: 8 leads") {
			elected = true
		}
		m := tok.FindStringSubmatch(h.Line)
		if m == nil {
			continue
		}
		if !strings.HasPrefix(h.Text, "token ") {
			t.Fatalf("line %q for event %q", h.Line, h.Text)
		}
		if m[1] != m[2] {
			forwarded++ // a token its sender forwards for another node
		}
		if m[1] == "8" {
			senders[m[2]] = true
		}
	}
	if len(senders) != 8 || !elected || forwarded == 0 {
		t.Fatalf("node 8's token left %v (want all 8 nodes), elected line %v, %d forwarded tokens; history:\n%v", senders, elected, forwarded, s.History)
	}
	for _, p := range s.Pending {
		if p.Type == "deliver" && p.Class == sim.ClassProtocol && p.Line == p.Text {
			t.Fatalf("pending %q says nothing of what it carries", p.Text)
		}
	}
}

// TestAPINextNoteStopsAtForwardsAndDrops: on Chang-Roberts, "next note"
// stops at every token delivered (forwarded or dropped) and every node
// woken by its start timer, not only at notes: from the first token on it
// never jumps over a delivery, and it says why it stopped (issue 35).
func TestAPINextNoteStopsAtForwardsAndDrops(t *testing.T) {
	_, url := serve(t, "../configs/ring-chang-roberts.yaml", "radio.mac=ideal")
	s := post(t, url, "/api/step", map[string]any{"n": 0}) // one event: the first boot
	woke, forwarded, dropped := 0, 0, 0
	for i := 0; i < 300 && !s.Done; i++ {
		next := post(t, url, "/api/note", nil)
		if next.Error != "" {
			break
		}
		// Every algorithm message delivered since the last stop is the
		// last step: none is jumped over.
		delivered := 0
		for _, h := range next.History {
			if h.Step >= s.Step && strings.HasPrefix(h.Text, "token ") && h.Class == sim.ClassProtocol {
				delivered++
			}
		}
		if delivered > 1 {
			t.Fatalf("next note from step %d to %d went over %d token deliveries (stopped: %s)", s.Step, next.Step, delivered, next.Stop)
		}
		switch {
		case next.Stop == "":
			t.Fatalf("step %d: no word of why it stopped", next.Step)
		case strings.Contains(next.Stop, "woke up") || strings.Contains(next.Stop, "election start"):
			woke++ // a start timer: the node initiates (a note)
		case strings.Contains(next.Stop, "received token from") && strings.Contains(next.Stop, "and sent 1 message(s): token from"):
			forwarded++
		case strings.Contains(next.Stop, "received token from") && strings.Contains(next.Stop, "sent nothing"):
			dropped++
		}
		s = next
		if forwarded >= 7 && dropped >= 1 && woke >= 1 {
			return
		}
	}
	t.Fatalf("stops: %d wakes, %d forwards, %d drops (want node 8's token forwarded by all 7 others)", woke, forwarded, dropped)
}

// TestLessonChangRoberts drives docs/studio.md's Chang-Roberts lesson
// through the API, step by step, checking what the text promises: the
// eight start timers fire at 1 s, one after another, then the eight
// tokens are in flight, each saying whose it is; 8's token taken first
// is forwarded round the ring ("next note" stops at every delivery);
// the election ends with every node following 8 after exactly the 26
// messages theory gives for this arrangement.
func TestLessonChangRoberts(t *testing.T) {
	_, url := serve(t, "../configs/ring-chang-roberts.yaml", "radio.mac=ideal")
	// 1. space until the eight tokens are in flight.
	var s *studio.State
	for i := 0; i < 40; i++ {
		s = post(t, url, "/api/step", nil)
		if strings.HasPrefix(s.History[len(s.History)-1].Text, "token ") {
			break
		}
	}
	starts, tokens := 0, map[string]uint64{}
	for _, h := range s.History {
		if strings.HasPrefix(h.Text, `timer "start"`) {
			starts++
		}
	}
	for _, p := range s.Pending {
		if p.Msg == "token" {
			tokens[p.Says] = p.Seq
		}
	}
	if starts != 8 || len(tokens) != 7 { // the first is being delivered
		t.Fatalf("%d start timers, tokens in flight %v", starts, tokens)
	}
	for _, n := range s.Nodes {
		if !strings.HasPrefix(n.Describe, "participant, election by node 1 at 1.000 s, successor ") {
			t.Fatalf("node %d: %q", n.ID, n.Describe)
		}
	}
	inFlight := s.Step - 1 // the step before the first token is taken
	// 2. deliver 8's token first.
	seq, ok := tokens["token from 8, election 1"]
	if !ok {
		t.Fatalf("no token of 8 in flight: %v", tokens)
	}
	s = post(t, url, "/api/take", map[string]any{"seq": seq})
	if last := s.History[len(s.History)-1]; !last.Chosen || !strings.HasPrefix(last.Line, "token from 8, election 1: 8→4") {
		t.Fatalf("the last step is %+v, want 8's token chosen", last)
	}
	// 3. next note until every node follows 8: 26 tokens, as theory says.
	said := false // the stop line the lesson quotes
	for i := 0; i < 200; i++ {
		s = post(t, url, "/api/note", nil)
		said = said || s.Stop == "node 7 received token from 8, election 1: 4→7 and sent 1 message(s): token from 8, election 1: 7→1"
		all := true
		for _, n := range s.Nodes {
			all = all && n.Leader == 8
		}
		if all {
			break
		}
	}
	fwd := false // node 4 forwarded it to its successor
	for _, h := range s.History {
		fwd = fwd || strings.HasPrefix(h.Line, "token from 8, election 1: 4→")
	}
	if !fwd || !said {
		t.Fatalf("node 4 never forwarded 8's token (%v), or next note never said so (%v)", fwd, said)
	}
	if s.Counts.Messages != 26 || s.Theory == nil || s.Theory.Bound.Exact == nil || *s.Theory.Bound.Exact != 26 {
		t.Fatalf("after the election: %d election messages, theory %+v", s.Counts.Messages, s.Theory)
	}
	elected := s.Step

	// 4. rewind to the tokens in flight (the line with 8's token first is
	// kept as a branch), crash 8, next note on: the ring is broken, no
	// token comes back, nobody is elected, and the channel's give-up
	// says so in the notes. Deliveries to the dead 8 are no stops.
	s = post(t, url, "/api/rewind", map[string]any{"step": inFlight})
	if s.Step != inFlight || len(s.Branches) != 1 || len(s.Choices) != 0 {
		t.Fatalf("rewound to step %d (want %d), branches %v, choices %v", s.Step, inFlight, s.Branches, s.Choices)
	}
	s = post(t, url, "/api/crash", map[string]any{"node": 8})
	gaveUp := ""
	for i := 0; i < 200 && s.Error == "" && gaveUp == ""; i++ {
		s = post(t, url, "/api/note", nil)
		if strings.HasPrefix(s.Stop, "node 8 received") {
			t.Fatalf("next note stopped at a delivery to the dead node 8: %s", s.Stop)
		}
		for _, n := range s.Notes {
			if strings.Contains(n.Text, "node 8 did not acknowledge") {
				gaveUp = n.Text
			}
		}
	}
	if gaveUp != "node 2: info (election by node 1 at 1.000 s): node 8 did not acknowledge 6 message(s): unreachable, outside the algorithm's assumptions (no failures); no longer forwarding to it in election 1" {
		t.Fatalf("the note of 8's silence is %q; stopped at %q, %q", gaveUp, s.Stop, s.Error)
	}
	for _, n := range s.Nodes {
		if n.Leader != 0 {
			t.Fatalf("node %d follows %d with the ring broken", n.ID, n.Leader)
		}
	}
	for _, h := range s.History {
		if strings.HasPrefix(h.Line, "elected") {
			t.Fatalf("an announcement with the ring broken: %s", h.Line)
		}
	}

	// 5. save, and replay the session with sim --schedule: the same
	// traces, the crash in them, for trace report.
	s = post(t, url, "/api/save", nil)
	sched, err := sim.ReadSchedule(s.Save)
	if err != nil || len(sched.Choices) != 1 || sched.Choices[0].Crash != 8 || sched.Steps != s.Step {
		t.Fatalf("saved %+v (%v), want the crash of 8 at step %d", sched, err, s.Step)
	}
	out := t.TempDir()
	if _, err := sim.RunSchedule(loadScenario(t, "../configs/ring-chang-roberts.yaml", "radio.mac=ideal"), sim.Options{Out: out}, sched); err != nil {
		t.Fatal(err)
	}
	sum, err := report.Summarize(out)
	if err != nil || judge.Line(sum.Verdict, sum.Reason) != "verdict: unknown (outside the algorithm's assumptions: ring/chang-roberts assumes no failures, and node 8 crashed at 1.0s)" {
		t.Fatalf("the replay's verdict %+v (%v), want unknown for a crash Chang-Roberts does not assume", sum, err)
	}

	// 6. back on the line where 8 won, drag node 1 next to node 2: its
	// links are the new place's at once, the history says where it went,
	// and its successor in the logical ring is still 6.
	s = post(t, url, "/api/branch", map[string]any{"branch": 0})
	if s.Step != elected || s.Nodes[0].Leader != 8 {
		t.Fatalf("the branch opened at step %d (want %d), node 1 follows %d", s.Step, elected, s.Nodes[0].Leader)
	}
	two := s.Nodes[1]
	s = post(t, url, "/api/move", map[string]any{"node": 1, "x": two.X, "y": two.Y + 29})
	last := s.History[len(s.History)-1]
	if s.Error != "" || !last.Chosen || !strings.HasPrefix(last.Line, fmt.Sprintf("move node 1 to (%.0f, %.0f)", two.X, two.Y+29)) {
		t.Fatalf("the move: %q, last step %+v", s.Error, last)
	}
	if !slices.Contains(s.Nodes[0].Neighbors, 2) && !slices.Contains(s.Nodes[1].Neighbors, 1) || !strings.Contains(s.Nodes[0].Describe, "successor 6") || slices.Contains(s.Nodes[0].Neighbors, 6) {
		t.Fatalf("node 1 moved: %+v, node 2 %+v", s.Nodes[0], s.Nodes[1])
	}
}

// TestLessonBully drives docs/studio.md's bully lesson through the API,
// checking what the text promises: at 1 s 7 is coordinator at once and
// 4 waits for an OK from 5, 6 and 7; 4's election to 7, the last to
// leave, dropped, is sent again by 4's link and answered too late to
// matter; "next note" on until every node follows 7, without stopping at
// the members' routine checks; 7 crashed by hand, the members' checks go
// unanswered (1's first), an election follows and 6 wins; rewound to
// before the crash, the scenario's own crash at 10 s does the same, and
// the two lines are branches to switch between.
func TestLessonBully(t *testing.T) {
	_, url := serve(t, "../configs/bully.yaml", "radio.mac=ideal")
	// 1. space until the election messages are in flight.
	var s *studio.State
	for i := 0; i < 60; i++ {
		s = post(t, url, "/api/step", nil)
		if strings.HasPrefix(s.Nodes[3].Describe, "candidate") && strings.Contains(s.Nodes[3].Describe, "waiting for an OK from 5, 6, 7") {
			break
		}
	}
	if d := s.Nodes[3].Describe; !strings.Contains(d, "election sent to 5, 6, 7, waiting for an OK from 5, 6, 7") {
		t.Fatalf("node 4: %q", d)
	}
	named := false
	for _, n := range s.Notes {
		named = named || strings.Contains(n.Text, "(election by node 1 at 1.000 s)")
	}
	if !named {
		t.Fatalf("no election named by node 1 at 1 s: %+v", s.Notes)
	}
	// 2. space until 4's election to 7 is in flight: 4 follows 7 already;
	// drop it: 4's link sends it again, 7 answers OK, 4 stays with 7.
	var drop *sim.Pending
	for i := 0; i < 100 && drop == nil; i++ {
		s = post(t, url, "/api/step", nil)
		for _, p := range s.Pending {
			if p.Msg == "election" && p.Origin == 4 && p.Final == 7 {
				drop = &p
			}
		}
	}
	if drop == nil || !drop.Droppable || !strings.HasPrefix(drop.Line, "election (no leader yet, number 0): 4→7") || s.Nodes[3].Leader != 7 {
		t.Fatalf("4's election to 7 in flight: %+v; node 4 %+v", drop, s.Nodes[3])
	}
	s = post(t, url, "/api/drop", map[string]any{"seq": drop.Seq})
	if last := s.History[len(s.History)-1]; s.Error != "" || !last.Chosen || last.Line != "drop "+drop.Line {
		t.Fatalf("the drop: %q, last step %+v", s.Error, last)
	}
	dropped := s.Step
	// 3. next note until every node follows 7, and on until 4's election
	// came again: never at a routine check.
	follows := func(s *studio.State, l protocol.NodeID) bool {
		for _, n := range s.Nodes {
			if n.Alive && n.Leader != l {
				return false
			}
		}
		return true
	}
	again := func(s *studio.State) *sim.Taken {
		for _, h := range s.History {
			if h.Step > dropped && strings.HasPrefix(h.Line, "election (no leader yet, number 0): 4→7") {
				return &h
			}
		}
		return nil
	}
	for i := 0; i < 300 && (!follows(s, 7) || again(s) == nil); i++ {
		s = post(t, url, "/api/note", nil)
		if strings.Contains(s.Stop, "received check") {
			t.Fatalf("next note stopped at a routine check: %s", s.Stop)
		}
	}
	if !follows(s, 7) || s.Nodes[6].Epoch != "7.1" || again(s) == nil || again(s).At <= drop.At {
		t.Fatalf("after the election: sent again %+v (dropped at %v); nodes %+v", again(s), drop.At, s.Nodes)
	}
	// 4. crash 7 by hand, next note on until every node follows 6.
	beforeCrash := s.Step
	s = post(t, url, "/api/crash", map[string]any{"node": 7})
	for i := 0; i < 500 && !follows(s, 6); i++ {
		s = post(t, url, "/api/note", nil)
	}
	suspected := ""
	for _, n := range s.Notes {
		if n.Step > beforeCrash && suspected == "" && strings.Contains(n.Text, "leader 7 suspected: it did not acknowledge a check; an election follows") {
			suspected = n.Text
		}
	}
	if !follows(s, 6) || suspected == "" || s.Nodes[5].Epoch != "6.2" {
		t.Fatalf("after 7's crash: suspected %q, nodes %+v", suspected, s.Nodes)
	}
	// Recover 7: a fresh process starts an election and wins it.
	s = post(t, url, "/api/recover", map[string]any{"node": 7})
	for i := 0; i < 500 && !follows(s, 7); i++ {
		s = post(t, url, "/api/note", nil)
	}
	if !follows(s, 7) || s.Nodes[6].Epoch != "7.2" {
		t.Fatalf("after 7's recovery: nodes %+v", s.Nodes)
	}
	handLine := s.Step
	// 5. rewind to before the crash; the scenario's crash at 10 s: 6
	// wins as well; the hand-made line is a branch.
	s = post(t, url, "/api/rewind", map[string]any{"step": beforeCrash})
	if len(s.Branches) != 1 || !s.Nodes[6].Alive {
		t.Fatalf("rewound: branches %+v, node 7 %+v", s.Branches, s.Nodes[6])
	}
	for i := 0; i < 500 && !follows(s, 6); i++ {
		s = post(t, url, "/api/note", nil)
	}
	if !follows(s, 6) || !s.Nodes[6].Crashed || s.Nodes[5].Epoch != "6.2" || s.Now < 10 {
		t.Fatalf("after the scenario's crash: at %.3f s, nodes %+v", s.Now, s.Nodes)
	}
	s = post(t, url, "/api/branch", map[string]any{"branch": 0})
	if s.Step != handLine || len(s.Branches) != 1 || len(s.Choices) != 3 || s.Choices[2].Recover != 7 {
		t.Fatalf("the branch opened at step %d (want %d), choices %+v", s.Step, handLine, s.Choices)
	}
}

// TestNextNoteFollowsTheProtocolsRule: each protocol says which steps
// "next note" stops at (protocol.NoteStopper). Bully steps over the
// members' routine checks of their coordinator, which happen; the token
// ring over the idle token's passes, stopping at the requests, entries
// and exits; Ricart-Agrawala has no rule of its own and stops at every
// request and reply delivered (protocol.DefaultStop), as Chang-Roberts
// does at every token (TestAPINextNoteStopsAtForwardsAndDrops).
func TestNextNoteFollowsTheProtocolsRule(t *testing.T) {
	// walk presses n until the run ends; it returns the stops and the
	// history of the whole walk.
	var at []int // the step of each stop
	walk := func(config string) ([]string, []sim.Taken) {
		_, url := serve(t, config, "radio.mac=ideal")
		var stops []string
		var s *studio.State
		at = at[:0]
		for i := 0; i < 400; i++ {
			if s = post(t, url, "/api/note", nil); s.Error != "" {
				break
			}
			stops = append(stops, s.Stop)
			at = append(at, s.Step)
		}
		if s.Error == "" {
			t.Fatalf("%s: the run did not end in 400 stops", config)
		}
		return stops, s.History
	}
	count := func(h []sim.Taken, prefix string) int {
		n := 0
		for _, x := range h {
			if x.Class == sim.ClassProtocol && strings.HasPrefix(x.Line, prefix) {
				n++
			}
		}
		return n
	}

	stops, hist := walk("../configs/bully.yaml")
	checks, stopped := count(hist, "check"), 0
	for _, x := range stops {
		if strings.Contains(x, "received check") {
			t.Fatalf("bully: stopped at a routine check: %s", x)
		}
		if strings.Contains(x, "received election") || strings.Contains(x, "received coordinator") || strings.Contains(x, "received ok") {
			stopped++
		}
	}
	if checks == 0 || stopped == 0 {
		t.Fatalf("bully: %d checks delivered (want some, stepped over), %d stops at the election's messages", checks, stopped)
	}

	stops, hist = walk("../configs/mutex-token-ring.yaml")
	if passes := count(hist, "token"); passes < 50 {
		t.Fatalf("token ring: %d token passes delivered", passes)
	}
	want := []string{"node 1: info: token created (generation 1)", "node 3: cs request", "node 3: cs enter: token generation 1", "node 3: cs exit"}
	if len(stops) < 24 || !slices.Equal(stops[:4], want) {
		t.Fatalf("token ring: the stops begin %q, want %q", stops[:min(4, len(stops))], want)
	}
	for _, x := range stops[1:] {
		if !strings.Contains(x, ": cs ") {
			t.Fatalf("token ring: stopped at %q, not a request, an entry or an exit", x)
		}
	}

	stops, hist = walk("../configs/mutex-ricart-agrawala.yaml")
	delivered := 0 // stops at a request or reply
	for _, x := range stops {
		if strings.Contains(x, " received request") || strings.Contains(x, " received reply") {
			delivered++
		}
	}
	// No stop steps over a request or reply delivered: each is the
	// step a stop stands on (one that also made a note stops at it).
	prev := 0
	for i, step := range at {
		n := 0
		for _, h := range hist {
			if h.Step >= prev && h.Step < step && h.Class == sim.ClassProtocol && (strings.HasPrefix(h.Line, "request") || strings.HasPrefix(h.Line, "reply")) {
				n++
			}
		}
		if n > 1 {
			t.Fatalf("ricart-agrawala: the stop at step %d (%s) stepped over %d requests or replies", step, stops[i], n)
		}
		prev = step
	}
	if delivered < 50 {
		t.Fatalf("ricart-agrawala: %d stops at a request or reply", delivered)
	}
}
