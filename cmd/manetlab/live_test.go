package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"manetlab/live"
	"manetlab/protocol"
	"manetlab/studio"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/htmlreport/chromiumtest"
	"manetlab/trace/report"
)

// lockedBuffer is a writer read while the command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func evalString(p *chromiumtest.Page, js string) string {
	var s string
	p.Eval(js, &s)
	return s
}

// TestRunLiveInChromium runs the quickstart with real processes and
// --live, node 8 (the leader of most of the network) crashing at 6 s, and
// watches it in headless Chromium: the crash shows on the page, not before
// it was applied, with the lag the page computes (the faults record's
// time against the page's clock when it showed it: logged, and measured
// in docs/performance.md, not bounded here, as load is not), then the
// nodes that followed 8 follow another leader; a click on node 3 crashes
// it through the launcher, which records it with its host in
// faults.jsonl, and so do the keys 1, 2, c for node 12; the keys 5,
// space, 7, x cut the link 5–7 (each node's radio drops the other's
// frames) and 7, space, 5, h heal it. The run file, the summary and
// trace check carry every crash and both halves of the cut and heal.
func TestRunLiveInChromium(t *testing.T) {
	chromiumtest.ForTest(t)
	if !realProcesses(t) {
		return
	}
	src, err := os.ReadFile("../../configs/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(src), "duration: 60s", "duration: 20s", 1)
	y = regexp.MustCompile(`(?s)faults:\n.*?\ntrace:`).ReplaceAllString(y, "faults:\n  - at: 6s\n    crash: [8]\ntrace:")
	path := filepath.Join(t.TempDir(), "q.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	app := newApp()
	var out bytes.Buffer
	var errw lockedBuffer
	app.Writer, app.ErrWriter = &out, &errw
	done := make(chan error, 1)
	go func() {
		done <- app.Run(reorderArgs(app, []string{"manetlab", "run", path, "--live", "--json", "--out", dir, "--quiet"}))
	}()
	var url string
	for url == "" {
		select {
		case err := <-done:
			t.Fatalf("run ended before it printed its page: %v\n%s", err, errw.String())
		case <-time.After(50 * time.Millisecond):
		}
		if m := regexp.MustCompile(`live: (http://\S+)`).FindStringSubmatch(errw.String()); m != nil {
			url = m[1]
		}
	}
	p := chromiumtest.Open(t, url, 1300, 900)
	p.WaitFor(`document.body.dataset.ready === "1" && +document.body.dataset.now > 0`, 30*time.Second)
	shots := os.Getenv("MANETLAB_LIVE_SHOTS")
	var followers []int
	// Node 8, the best value, leads most of the network before its crash
	// (on a loaded machine the crash may come first).
	p.WaitFor(`document.querySelectorAll('#map .node[data-leader="8"]').length > 3 || document.querySelector('#log li[data-ev="crash"][data-node="8"]') !== null`, 30*time.Second)
	if shots != "" {
		p.Screenshot(filepath.Join(shots, "before.png"))
	}
	// Node 8's scheduled crash.
	p.WaitFor(`document.querySelector('#log li[data-ev="crash"][data-node="8"]') !== null`, 30*time.Second)
	p.Eval(`[...document.querySelectorAll('#map .node[data-leader="8"]')].map(g => +g.dataset.id)`, &followers)
	var shown struct{ Seen, Wall, Opened float64 }
	p.Eval(`(() => { const li = document.querySelector('#log li[data-ev="crash"][data-node="8"]'); return {seen: +li.dataset.seen, wall: +li.dataset.wall, opened: +document.body.dataset.opened}; })()`, &shown)
	// The lag is measured, not bounded: a wall-clock bound fails on a
	// loaded machine however right the page is (docs/live.md). What must
	// hold: the crash carries its time, is shown after it happened (the
	// machine's one clock), and the page reports the lag it computed.
	lag := time.Duration((shown.Seen - shown.Wall) * float64(time.Millisecond))
	switch {
	case shown.Wall == 0:
		t.Errorf("node 8's crash carries no time")
	case shown.Opened > shown.Wall:
		// Only on a machine too loaded to open the page in 6 s.
		t.Logf("the page opened %.0f ms after node 8's crash: its lag not measured", shown.Opened-shown.Wall)
	case lag < -50*time.Millisecond:
		t.Errorf("node 8's crash applied at %.0f ms, shown at %.0f ms: before it happened", shown.Wall, shown.Seen)
	default:
		t.Logf("node 8's crash shown %s after it was applied", lag)
		p.WaitFor(`/^shown -?\d+ ms after they happen \(max -?\d+ ms, last \d+ events\)$/.test(document.getElementById("lag").textContent)`, 20*time.Second)
		t.Logf("the page says: %s", evalString(p, `document.getElementById("lag").textContent`))
	}
	if a := evalString(p, `document.querySelector('#map .node[data-id="8"]').dataset.alive`); a != "false" {
		t.Errorf("node 8 alive %q on the map after its crash", a)
	}
	// The leader change follows: nobody alive follows 8 any more, and a
	// node that did follows another leader.
	p.WaitFor(`document.querySelectorAll('#map .node[data-leader="8"]').length === 0 && [...document.querySelectorAll('#log li[data-ev="leader"]')].some(li => +li.dataset.seen > `+fmt.Sprint(shown.Seen)+`)`, 20*time.Second)
	if shots != "" {
		p.Screenshot(filepath.Join(shots, "after-crash.png"))
	}
	// A click crashes node 3 through the launcher.
	p.Click(`#map .node[data-id="3"]`)
	p.WaitFor(`document.querySelector('#log li[data-ev="crash"][data-node="3"]') !== null && document.querySelector('#map .node[data-id="3"]').dataset.alive === "false"`, 20*time.Second)
	host := evalString(p, `document.querySelector('#log li[data-ev="crash"][data-node="3"]').textContent`)
	if shots != "" {
		p.Screenshot(filepath.Join(shots, "clicked.png"))
	}
	// The keys: node 12's number, then c.
	for _, k := range []string{"1", "2", "c"} {
		p.Key(k)
	}
	p.WaitFor(`document.querySelector('#log li[data-ev="crash"][data-node="12"]') !== null`, 20*time.Second)
	// The keys: a link's two nodes, then x (cut) or h (heal).
	for _, k := range []string{"5", " ", "7", "x"} {
		p.Key(k)
	}
	p.WaitFor(`document.querySelectorAll('#log li[data-ev="cut"]').length === 2 && document.querySelector('#map .linkg.cut[data-a="5"][data-b="7"]') !== null`, 20*time.Second)
	if shots != "" {
		p.Screenshot(filepath.Join(shots, "cut.png"))
	}
	for _, k := range []string{"7", " ", "5", "h"} {
		p.Key(k)
	}
	p.WaitFor(`document.querySelectorAll('#log li[data-ev="heal"]').length === 2 && document.querySelector('#map .linkg.cut') === null`, 20*time.Second)
	// A click on a link between two live nodes cuts it (one drawn from
	// its smaller ID, as the cut link is), a click on the cut link heals
	// it (dispatched to the link's element: the nodes
	// move, and a mouse aimed at its middle could meet a node).
	var link []int
	p.WaitFor(`[...document.querySelectorAll('#map .linkg')].some(g => +g.dataset.a < +g.dataset.b && ![3, 8, 12].includes(+g.dataset.a) && ![3, 8, 12].includes(+g.dataset.b))`, 20*time.Second)
	p.Eval(`(() => { const g = [...document.querySelectorAll('#map .linkg')].find(g => +g.dataset.a < +g.dataset.b && ![3, 8, 12].includes(+g.dataset.a) && ![3, 8, 12].includes(+g.dataset.b));
		g.dispatchEvent(new MouseEvent("click", {bubbles: true})); return [+g.dataset.a, +g.dataset.b]; })()`, &link)
	sel := fmt.Sprintf(`#map .linkg.cut[data-a="%d"][data-b="%d"], #map .linkg.cut[data-a="%d"][data-b="%d"]`, link[0], link[1], link[1], link[0])
	p.WaitFor(`document.querySelectorAll('#log li[data-ev="cut"]').length === 4 && document.querySelector('`+sel+`') !== null`, 20*time.Second)
	p.Eval(`(() => { document.querySelector('`+sel+`').dispatchEvent(new MouseEvent("click", {bubbles: true})); return 0; })()`, new(int))
	p.WaitFor(`document.querySelectorAll('#log li[data-ev="heal"]').length === 4 && document.querySelector('#map .linkg.cut') === null`, 20*time.Second)
	// The verdict so far (judged in a child process: manetlab live-judge)
	// names the run time it judged.
	var vs struct {
		As, Lines string
		At, Now   float64
	}
	p.WaitFor(`/^\(as of \d+\.\d s of the run\)$/.test(document.getElementById("vas").textContent) && +document.getElementById("vat").textContent > 0`, 20*time.Second)
	p.Eval(`({as: document.getElementById("vas").textContent, lines: document.getElementById("vlines").textContent, at: +document.getElementById("vat").textContent, now: +document.body.dataset.now})`, &vs)
	if !strings.HasPrefix(vs.Lines, "verdict: ") || vs.As != fmt.Sprintf("(as of %.1f s of the run)", vs.At) || vs.At > vs.Now+0.05 {
		t.Errorf("the verdict so far %q, %q at %.1f s of the run (page at %.1f s)", vs.As, vs.Lines, vs.At, vs.Now)
	}
	t.Logf("verdict so far %s", vs.As)
	if err := <-done; err != nil {
		if st := (exitStatus{}); !(errors.As(err, &st) && st.verdict) {
			t.Fatalf("run: %v\n%s", err, errw.String())
		}
	}
	// The record, the run file, the summary and trace check carry both.
	hostname, _ := os.Hostname()
	recs, err := trace.ReadFaults(trace.FaultsFile(dir), func(protocol.NodeID) bool { return true }, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Peer != 0 {
			got = append(got, fmt.Sprintf("%s %d %d on %s", r.Ev, r.Node, r.Peer, r.Host))
			continue
		}
		got = append(got, fmt.Sprintf("%s %d on %s", r.Ev, r.Node, r.Host))
	}
	a, b := link[0], link[1]
	if want := strings.ReplaceAll(fmt.Sprintf("crash 8 on H, crash 3 on H, crash 12 on H, cut 5 7 on H, cut 7 5 on H, heal 7 5 on H, heal 5 7 on H, cut %d %d on H, cut %d %d on H, heal %d %d on H, heal %d %d on H",
		a, b, b, a, a, b, b, a), "H", hostname); strings.Join(got, ", ") != want {
		t.Errorf("faults.jsonl: %q, want %q", got, want)
	}
	if !strings.Contains(host, "(on "+hostname+")") {
		t.Errorf("the page's line for node 3's crash %q does not name the host %s", host, hostname)
	}
	var sum report.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	var events []string
	for _, m := range sum.Timeline {
		if m.Event != "" {
			events = append(events, m.Event)
		}
	}
	if sum.Alive != 17 || len(events) != 11 || !strings.HasPrefix(events[0], "node 8 crashed") || !strings.HasPrefix(events[1], "node 3 crashed") || !strings.HasPrefix(events[2], "node 12 crashed") ||
		events[3] != "node 5 no longer hears node 7 (link cut by hand)" || events[6] != "node 5 hears node 7 again (link healed by hand)" {
		t.Errorf("summary: %d alive, timeline events %q; want 17 alive, node 8, 3 then 12 crashed, the link 5–7 cut and healed", sum.Alive, events)
	}
	// trace check reads the faults from the run file, as the summary.
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var runFaults []string
	for _, e := range run.RunEvents {
		switch e.Ev {
		case trace.EvCrash, trace.EvRecover:
			runFaults = append(runFaults, fmt.Sprintf("%s %d", e.Ev, e.Node))
		case trace.EvCut, trace.EvHeal:
			runFaults = append(runFaults, fmt.Sprintf("%s %d %d", e.Ev, e.Node, e.Peer))
		}
	}
	if want := fmt.Sprintf("crash 8, crash 3, crash 12, cut 5 7, cut 7 5, heal 7 5, heal 5 7, cut %d %d, cut %d %d, heal %d %d, heal %d %d", a, b, b, a, a, b, b, a); strings.Join(runFaults, ", ") != want {
		t.Errorf("run file faults %q, want %q", runFaults, want)
	}
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Invalid() != (sum.Verdict == "invalid") || len(rep.Problems) > 0 {
		t.Errorf("trace check: invalid %v, problems %q; the summary says %s", rep.Invalid(), rep.Problems, sum.Verdict)
	}
	t.Logf("verdict %s (%s); crashes of 8 and 3 followed by %v", sum.Verdict, sum.Reason, followers)
}

// TestTraceWatchARunOnDisk serves the page of a simulated run from its
// directory: the state is the run's at its end, the verdict the
// summary's (final: every trace ended), and the page refuses faults.
func TestTraceWatchARunOnDisk(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCLI(t, "sim", "../../configs/quickstart.yaml", "--out", dir, "--quiet", "--set", "trace.layout=per-node"); err != nil {
		t.Fatal(err)
	}
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	app := newApp()
	var out lockedBuffer
	app.Writer = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.RunContext(ctx, []string{"manetlab", "trace", "watch", dir}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("trace watch: %v", err)
		}
	}()
	var url, token string
	for url == "" {
		select {
		case err := <-done:
			t.Fatalf("trace watch ended: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if m := regexp.MustCompile(`live: (http://\S+)/\?token=([0-9a-f]+)`).FindStringSubmatch(out.String()); m != nil {
			url, token = m[1], m[2]
		}
	}
	call := func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set(studio.TokenHeader, token)
		req.Header.Set("Content-Type", "application/json")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, b
	}
	var s live.Snapshot
	for deadline := time.Now().Add(30 * time.Second); !s.Verdict.Final; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no final verdict: %+v", s.Verdict)
		}
		_, b := call("GET", "/api/state", "")
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
	}
	if !s.Done || s.Faults || s.Verdict.Verdict != sum.Verdict || s.Verdict.Reason != sum.Reason || s.Now != 60 {
		t.Errorf("page: done %v, faults %v, verdict %q (%s) at %.1f s; the summary's %q (%s)", s.Done, s.Faults, s.Verdict.Verdict, s.Verdict.Reason, s.Now, sum.Verdict, sum.Reason)
	}
	if code, b := call("POST", "/api/crash", `{"node":3}`); code != http.StatusForbidden {
		t.Errorf("a crash asked of trace watch: %d %s", code, b)
	}
}
