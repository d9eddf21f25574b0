package studio_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "manetlab/bully"
	_ "manetlab/ring"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/studio"
	"manetlab/trace/htmlreport/chromiumtest"
)

func loadScenario(t *testing.T, path string, sets ...string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(path, sets)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func serve(t *testing.T, path string, sets ...string) (*studio.Studio, string) {
	t.Helper()
	s := loadScenario(t, path, sets...)
	dir := t.TempDir()
	st, err := studio.New(studio.Config{Scenario: s, Path: path, Sets: sets, Out: filepath.Join(dir, "trace"), Save: filepath.Join(dir, "schedule.json")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, httptestServer(t, st)
}

// httptestServer serves st until the test ends and returns its URL.
func httptestServer(t *testing.T, st *studio.Studio) string {
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(srv.Close)
	tokens.Store(srv.URL, st.Token())
	return srv.URL
}

// tokens holds the token of the session served at each URL.
var tokens sync.Map

func token(url string) string {
	tok, _ := tokens.Load(url)
	return tok.(string)
}

// do sends a request with the session's token.
func do(url, method, path, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest(method, url+path, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set(studio.TokenHeader, token(url))
	return http.DefaultClient.Do(req)
}

// shots is where the tests write the screenshots of docs/studio.md
// (MANETLAB_STUDIO_SHOTS=docs/studio), or "" for none.
func shots(p *chromiumtest.Page, name string) {
	if dir := os.Getenv("MANETLAB_STUDIO_SHOTS"); dir != "" {
		p.Screenshot(filepath.Join(dir, name))
	}
}

// press presses a key that changes the session's step and waits until
// the page shows the new state.
func press(t *testing.T, p *chromiumtest.Page, key string) int {
	t.Helper()
	var before int
	p.Eval(`document.getElementById("error").textContent = ""; +document.body.dataset.step`, &before)
	p.Key(key)
	p.WaitFor(fmt.Sprintf(`+document.body.dataset.step !== %d || document.getElementById("error").textContent`, before), 20*time.Second)
	var after int
	p.Eval(`+document.body.dataset.step`, &after)
	return after
}

type row struct {
	Seq     int    `json:"seq"`
	Text    string `json:"text"` // the line shown: what the message carries
	What    string `json:"what"` // the event as the schedule names it
	Offered bool   `json:"offered"`
}

func pendingRows(p *chromiumtest.Page) []row {
	var rows []row
	p.Eval(`[...document.querySelectorAll("#pending tr[data-seq]")].map(r => ({seq: +r.dataset.seq, text: r.querySelector(".text").firstChild.textContent, what: r.dataset.text, offered: r.dataset.offered === "true"}))`, &rows)
	return rows
}

func text(p *chromiumtest.Page, js string) string {
	var s string
	p.Eval(js, &s)
	return s
}

// TestStudioChangRobertsInChromium is a lesson on Chang-Roberts as a
// user clicks through it: step, deliver a token out of order, crash a
// node, rewind; the page must show the chosen delivery first, the nodes'
// states and the counts beside theory.
func TestStudioChangRobertsInChromium(t *testing.T) {
	// ideal: the walk-through takes deliveries out of order, which the
	// DCF medium never offers (its MAC orders the frames on the air).
	st, url := serve(t, "../configs/ring-chang-roberts.yaml", "radio.mac=ideal")
	p := chromiumtest.Open(t, url+"/?token="+token(url), 1400, 1000)
	p.WaitFor(`document.body.dataset.ready === "1"`, 30*time.Second)
	var nodes int
	p.Eval(`document.querySelectorAll("#map .node").length`, &nodes)
	if nodes != 8 {
		t.Fatalf("%d nodes on the map, want 8", nodes)
	}
	if rows := pendingRows(p); len(rows) != 8 || !strings.HasPrefix(rows[0].Text, "start node 1") {
		t.Fatalf("at t = 0 the pending events are %+v, want the 8 boots", rows)
	}

	// Step (space) until two tokens are in flight.
	var tokens []row
	for i := 0; i < 60 && len(tokens) < 2; i++ {
		press(t, p, " ")
		tokens = tokens[:0]
		for _, r := range pendingRows(p) {
			if strings.HasPrefix(r.Text, "token") && r.Offered {
				tokens = append(tokens, r)
			}
		}
	}
	if len(tokens) < 2 {
		t.Fatal("never two tokens in flight")
	}
	if d := text(p, `document.querySelector('#nodes tr[data-id="1"] .describe').textContent`); !strings.Contains(d, "participant, election by node 1 at 1.000 s") {
		t.Fatalf("node 1 describes itself as %q after sending its token", d)
	}
	// Deliver the last token in flight first: select its row, press d.
	pick := tokens[len(tokens)-1]
	p.Click(fmt.Sprintf(`#pending tr[data-seq="%d"]`, pick.Seq))
	p.WaitFor(fmt.Sprintf(`document.querySelector('#pending tr[data-seq="%d"]').classList.contains("sel")`, pick.Seq), 5*time.Second)
	shots(p, "cr-pick.png")
	chosenStep := press(t, p, "d") - 1
	last := text(p, `document.querySelector("#history li:last-child").textContent`)
	if !strings.Contains(last, pick.Text) || !strings.Contains(last, "(chosen)") {
		t.Fatalf("the last step shown is %q, want the chosen %q first", last, pick.Text)
	}
	for _, r := range pendingRows(p) {
		if r.Seq == pick.Seq {
			t.Fatalf("the chosen token %q is still pending", pick.Text)
		}
	}
	if e := text(p, `document.getElementById("error").textContent`); e != "" {
		t.Fatalf("error shown: %s", e)
	}

	// Crash node 8 (click it on the map, press c).
	p.Click(`#map .node[data-id="8"]`)
	press(t, p, "c")
	if a := text(p, `document.querySelector('#map .node[data-id="8"]').dataset.alive`); a != "false" {
		t.Fatalf("node 8 alive=%s after the crash", a)
	}
	if d := text(p, `document.querySelector('#nodes tr[data-id="8"] .leader').textContent`); d != "crashed" {
		t.Fatalf("node 8's row says %q", d)
	}
	// Step note by note: Chang-Roberts assumes no failures, so the ring
	// is broken; the channel gives up on 8 and the page says so.
	notes := func() string { return text(p, `document.getElementById("notes").textContent`) }
	for i := 0; i < 60 && !strings.Contains(notes(), "did not acknowledge"); i++ {
		press(t, p, "n")
	}
	if !strings.Contains(notes(), "node 8 did not acknowledge") {
		t.Fatalf("no note of 8 unreachable: %s", notes())
	}
	for id := 1; id <= 7; id++ {
		if l := text(p, fmt.Sprintf(`document.querySelector('#map .node[data-id="%d"]').dataset.leader`, id)); l == "8" {
			t.Fatalf("node %d follows the crashed 8", id)
		}
	}
	theory := text(p, `document.getElementById("theory").textContent`)
	if !strings.Contains(theory, "exactly 26 for this arrangement") || !strings.Contains(theory, "= 36") {
		t.Fatalf("theory shown: %q", theory)
	}
	if s := st.Schedule(); len(s.Choices) != 2 {
		t.Fatalf("choices %+v, want the delivery and the crash", s.Choices)
	}
	shots(p, "cr-crash.png")

	// Rewind to just after the chosen delivery (click it in the history):
	// node 8 is alive again, the crash is kept as a branch.
	p.Click(fmt.Sprintf(`#history li[data-step="%d"]`, chosenStep))
	p.WaitFor(fmt.Sprintf(`+document.body.dataset.step === %d`, chosenStep+1), 20*time.Second)
	if a := text(p, `document.querySelector('#map .node[data-id="8"]').dataset.alive`); a != "true" {
		t.Fatalf("node 8 alive=%s after rewinding before the crash", a)
	}
	if last := text(p, `document.querySelector("#history li:last-child").textContent`); !strings.Contains(last, pick.Text) {
		t.Fatalf("after the rewind the last step is %q, want the chosen %q", last, pick.Text)
	}
	if b := text(p, `document.getElementById("branches").textContent`); !strings.Contains(b, "branch 1") {
		t.Fatalf("no branch kept: %q", b)
	}
	if s := st.Schedule(); len(s.Choices) != 1 || s.Choices[0].What != pick.What {
		t.Fatalf("after the rewind the schedule is %+v", s)
	}

	// Without the crash the election ends as theory says, the token
	// taken out of order included: 26 tokens, every node follows 8.
	var leaders []string
	for i := 0; i < 80 && strings.Join(leaders, "") != "88888888"; i++ {
		press(t, p, "n")
		p.Eval(`[...document.querySelectorAll("#map .node")].map(g => g.dataset.leader)`, &leaders)
	}
	var count int
	p.Eval(`+document.getElementById("elect-count").textContent`, &count)
	if count != 26 || strings.Join(leaders, "") != "88888888" {
		t.Fatalf("after the election: %d election messages (want 26), leaders %v", count, leaders)
	}
	shots(p, "cr-elected.png")
	// Save (s): the file replays the session.
	p.Key("s")
	// Saved is news, not an error: in the header, never in the red line.
	p.WaitFor(`document.getElementById("status").textContent.startsWith("saved")`, 10*time.Second)
	if e := text(p, `document.getElementById("error").textContent`); e != "" {
		t.Fatalf("after saving the error line says %q", e)
	}
	var state struct{ Save string }
	r, err := do(url, "GET", "/api/state", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(r.Body).Decode(&state)
	r.Body.Close()
	sched, err := sim.ReadSchedule(state.Save)
	var now int
	p.Eval(`+document.body.dataset.step`, &now)
	if err != nil || len(sched.Choices) != 1 || sched.Steps != now {
		t.Fatalf("saved schedule %+v: %v", sched, err)
	}

	// Cut the radio link 1–7: click it, press u.
	p.Click(`#map .linkg[data-a="1"][data-b="7"] .hit`)
	press(t, p, "u")
	if c := text(p, `document.querySelector('#map .linkg[data-a="1"][data-b="7"]').getAttribute("class")`); !strings.Contains(c, "cut") {
		t.Fatalf("the link 1–7 is drawn as %q after the cut", c)
	}

	// Drag node 1 with the mouse next to the node farthest from it: its
	// links on the map change to that node's neighbourhood.
	links := func() []string {
		var l []string
		p.Eval(`[...document.querySelectorAll("#map .linkg")].filter(g => g.dataset.a === "1" || g.dataset.b === "1").map(g => g.dataset.a + "-" + g.dataset.b).sort()`, &l)
		return l
	}
	before := links()
	var d []float64 // the pixels from node 1 to 25 px short of the farthest node
	p.Eval(`(() => { const c = (id) => { const r = document.querySelector('#map .node[data-id="' + id + '"] circle').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
		const a = c(1); let far = null, best = -1;
		for (const g of document.querySelectorAll("#map .node")) { const b = c(g.dataset.id); const x = Math.hypot(b[0] - a[0], b[1] - a[1]); if (x > best) { best = x; far = b; } }
		const k = (best - 25) / best; return [(far[0] - a[0]) * k, (far[1] - a[1]) * k]; })()`, &d)
	var stepBefore int
	p.Eval(`+document.body.dataset.step`, &stepBefore)
	p.Drag(`#map .node[data-id="1"] circle`, d[0], d[1])
	p.WaitFor(fmt.Sprintf(`+document.body.dataset.step !== %d || document.getElementById("error").textContent`, stepBefore), 20*time.Second)
	if e := text(p, `document.getElementById("error").textContent`); e != "" {
		t.Fatalf("the drag: %s", e)
	}
	after := links()
	if last := text(p, `document.querySelector("#history li:last-child").textContent`); !strings.Contains(last, "move node 1 to") || !strings.Contains(last, "(chosen)") {
		t.Fatalf("the last step after the drag is %q", last)
	}
	if len(after) == 0 || slices.Equal(before, after) {
		t.Fatalf("node 1's links on the map: %v before the drag, %v after", before, after)
	}
	var top any
	p.Eval(`window.scrollTo(0, 0)`, &top)
	shots(p, "cr-drag.png")
	// The keyboard does it too: select node 1 (a drag does not select),
	// press shift+right.
	p.Click(`#map .node[data-id="1"] circle`)
	p.WaitFor(`document.querySelector('#map .node[data-id="1"]').classList.contains("sel")`, 5*time.Second)
	var x0, x1 float64
	p.Eval(`S.nodes.find(n => n.id === 1).x`, &x0)
	if _, err := p.Call("Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": "ArrowRight", "modifiers": 8}); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(fmt.Sprintf(`S.nodes.find(n => n.id === 1).x !== %v || document.getElementById("error").textContent`, x0), 20*time.Second)
	p.Eval(`S.nodes.find(n => n.id === 1).x`, &x1)
	if !(x1 > x0) {
		t.Fatalf("shift+right moved node 1 from x = %g to %g", x0, x1)
	}
}

// TestStudioBully takes the screenshots of the bully lesson (with
// MANETLAB_STUDIO_SHOTS) and checks the first election: node 7 the
// coordinator, every other node following it.
func TestStudioBully(t *testing.T) {
	if os.Getenv("MANETLAB_STUDIO_SHOTS") == "" {
		t.Skip("the screenshots of docs/studio.md's bully lesson (MANETLAB_STUDIO_SHOTS=docs/studio)")
	}
	// ideal, as the lesson says: on the DCF medium the MAC orders the
	// frames on the air, and the lesson delivers and drops them by hand.
	_, url := serve(t, "../configs/bully.yaml", "radio.mac=ideal")
	p := chromiumtest.Open(t, url+"/?token="+token(url), 1400, 1000)
	p.WaitFor(`document.body.dataset.ready === "1"`, 30*time.Second)
	// Step until 4's election messages are in flight (after the route
	// discovery, the network's, not listed).
	inFlight := false
	for i := 0; i < 60 && !inFlight; i++ {
		press(t, p, " ")
		for _, r := range pendingRows(p) {
			inFlight = inFlight || strings.HasPrefix(r.What, "election 4→")
		}
	}
	if d := text(p, `document.querySelector('#nodes tr[data-id="4"] .describe').textContent`); !inFlight || !strings.Contains(d, "waiting for an OK") {
		t.Fatalf("4's election messages in flight: %v; 4 describes itself as %q", inFlight, d)
	}
	if n := text(p, `document.querySelector("#notes li").textContent`); !strings.HasSuffix(n, "(election by node 1 at 1.000 s)") {
		t.Fatalf("the first note is %q, want the election named by node 1 at 1 s", n)
	}
	shots(p, "bully-election.png")
	var leaders []string
	for i := 0; i < 80 && strings.Join(leaders, "") != "7777777"; i++ {
		press(t, p, "n")
		p.Eval(`[...document.querySelectorAll("#map .node")].map(g => g.dataset.leader)`, &leaders)
	}
	if strings.Join(leaders, "") != "7777777" {
		t.Fatalf("leaders %v, want 7 everywhere after the first election", leaders)
	}
	shots(p, "bully-coordinator.png")
}
