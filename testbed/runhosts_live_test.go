package testbed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/live"
	"manetlab/protocol"
	"manetlab/studio"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// liveFaults runs the quickstart over the three hosts with --live (node 8
// on h2 crashing at 4 s; the other nodes two to a process): the page
// shows node 8's crash, applied on h2; a crash of node 17 asked of the
// page goes to h3's launcher, which applies it inside the process node 17
// shares; a cut of the link 2–17 goes to both h1's and h3's launchers,
// each applying its half. Home's faults record, the run file and the
// summary carry them all.
func (h *sshHosts) liveFaults(t *testing.T, hostsFile string) {
	out := filepath.Join(h.dir, "home-live")
	cmd := exec.Command(h.bin, "run", "../configs/quickstart.yaml", "--hosts", hostsFile, "--ssh-config", h.config,
		"--run", "live", "--out", out, "--live", "--json", "--ids-per-process", "2", "--set", "duration=14s", "--set", "faults=[{at: 4s, crash: [8]}]")
	stderr := &syncBuf{}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { t.Logf("run --hosts --live:\n%s", stderr.String()) })
	defer func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	var url, token string
	for deadline := time.Now().Add(60 * time.Second); url == ""; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no page:\n%s", stderr.String())
		}
		if m := regexp.MustCompile(`live: http://(\S+)/\?token=([0-9a-f]+)`).FindStringSubmatch(stderr.String()); m != nil {
			url = "http://" + m[1]
			token = m[2]
		}
	}
	state := func() *live.Snapshot {
		var s live.Snapshot
		liveAPI(t, url, token, "GET", "/api/state", "", &s)
		return &s
	}
	logged := func(s *live.Snapshot, ev string, id protocol.NodeID) *live.Event {
		for i := range s.Log {
			if e := &s.Log[i]; e.Ev == ev && e.Node == id {
				return e
			}
		}
		return nil
	}
	// The scheduled crash of node 8 on h2 shows.
	var e *live.Event
	for deadline := time.Now().Add(40 * time.Second); e == nil; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("node 8's crash never showed:\n%s", stderr.String())
		}
		e = logged(state(), trace.EvCrash, 8)
	}
	t.Logf("node 8's crash read %s after it was applied", time.Duration(e.Got-e.Wall))
	if e.Host != "h2" {
		t.Errorf("node 8's crash came from %q, want h2", e.Host)
	}
	// A crash by hand of node 17, on h3.
	if code := liveAPI(t, url, token, "POST", "/api/crash", `{"node":17}`, nil); code != 200 {
		t.Fatalf("crash of node 17: status %d", code)
	}
	if e := logged(state(), trace.EvCrash, 17); e == nil || e.Host != "h3" {
		t.Errorf("node 17's crash on the page: %+v, want applied on h3", e)
	}
	// A cut by hand between node 2 (h1) and node 17 (h3).
	if code := liveAPI(t, url, token, "POST", "/api/cut", `{"node":2,"peer":17}`, nil); code != 200 {
		t.Fatalf("cut of the link 2–17: status %d", code)
	}
	s := state()
	if e := logged(s, trace.EvCut, 2); e == nil || e.Host != "h1" {
		t.Errorf("node 2's half of the cut on the page: %+v, want applied on h1", e)
	}
	if e := logged(s, trace.EvCut, 17); e == nil || e.Host != "h3" {
		t.Errorf("node 17's half of the cut on the page: %+v, want applied on h3", e)
	}
	if len(s.Cuts) != 1 || s.Cuts[0] != (live.Cut{A: 2, B: 17, Halves: 2}) {
		t.Errorf("cuts on the page: %+v", s.Cuts)
	}
	// Hosts h1 and h2 cut apart: every link between their nodes.
	on := map[string][]protocol.NodeID{}
	for _, n := range s.Nodes {
		on[n.Host] = append(on[n.Host], n.ID)
	}
	if len(on["h1"]) == 0 || len(on["h2"]) == 0 {
		t.Fatalf("nodes by host on the page: %v", on)
	}
	if code := liveAPI(t, url, token, "POST", "/api/cut", `{"hosts":["h1","h2"]}`, nil); code != 200 {
		t.Fatalf("cut of h1 from h2: status %d", code)
	}
	hostPairs := len(on["h1"]) * len(on["h2"])
	if s := state(); len(s.Cuts) != 1+hostPairs {
		t.Errorf("%d links cut on the page, want %d (2–17 and h1's %v with h2's %v)", len(s.Cuts), 1+hostPairs, on["h1"], on["h2"])
	}
	if err := <-done; err != nil && !undecided(err, stderr.String()) {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	done <- nil
	recs, err := trace.ReadFaults(trace.FaultsFile(out), func(protocol.NodeID) bool { return true }, 14*time.Second)
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
	slices.Sort(got) // gathered host by host
	var crossHost []string
	got = slices.DeleteFunc(got, func(r string) bool {
		var a, b protocol.NodeID
		var h string
		if n, _ := fmt.Sscanf(r, "cut %d %d on %s", &a, &b, &h); n == 3 && !(a == 2 && b == 17 || a == 17 && b == 2) {
			if !slices.Contains(on[h], a) || !slices.Contains(on[map[string]string{"h1": "h2", "h2": "h1"}[h]], b) {
				t.Errorf("a half of the hosts' cut %q is no link from %s to the other host", r, h)
			}
			crossHost = append(crossHost, r)
			return true
		}
		return false
	})
	if strings.Join(got, ", ") != "crash 17 on h3, crash 8 on h2, cut 17 2 on h3, cut 2 17 on h1" || len(crossHost) != 2*hostPairs {
		t.Errorf("home's faults.jsonl: %q and %d halves of the hosts' cut, want %d", got, len(crossHost), 2*hostPairs)
	}
	run, err := analysis.ReadDir(out)
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
	var sum report.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("summary not JSON: %v\n%s", err, stdout.String())
	}
	if len(runFaults) != 4+2*hostPairs || strings.Join(runFaults[:4], ", ") != "crash 8, crash 17, cut 2 17, cut 17 2" || sum.Alive != 18 {
		t.Errorf("run file faults %q, %d alive in the summary; want crash 8, crash 17, the cut's halves, and 18", runFaults, sum.Alive)
	}
	cuts := 0
	for _, m := range sum.Timeline {
		if strings.Contains(m.Event, "(link cut by hand)") {
			cuts++
		}
	}
	if cuts != 2+2*hostPairs {
		t.Errorf("the summary's timeline has %d halves of cuts, want %d: %+v", cuts, 2+2*hostPairs, sum.Timeline)
	}
	rep, err := analysis.Check(out, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Invalid() != (sum.Verdict == "invalid") {
		t.Errorf("trace check: invalid %v; the summary says %s", rep.Invalid(), sum.Verdict)
	}
}

// liveAPI calls the live page's API with its token; v, when not nil, takes
// the JSON answer.
func liveAPI(t *testing.T, url, token, method, path, body string, v any) int {
	t.Helper()
	req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
	req.Header.Set(studio.TokenHeader, token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		ss, _ := exec.Command("ss", "-ltnp").CombinedOutput()
		t.Fatalf("%v\n%s", err, ss)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 {
		t.Logf("%s %s: %d %s", method, path, r.StatusCode, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return r.StatusCode
}
