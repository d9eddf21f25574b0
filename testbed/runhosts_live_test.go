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
// on h2 crashing at 4 s): the page shows node 8's crash, applied on h2,
// and a crash of node 17 asked of the page goes to h3's launcher, which
// applies it and records it; home's faults record, the run file and the
// summary carry both.
func (h *sshHosts) liveFaults(t *testing.T, hostsFile string) {
	out := filepath.Join(h.dir, "home-live")
	cmd := exec.Command(h.bin, "run", "../configs/quickstart.yaml", "--hosts", hostsFile, "--ssh-config", h.config,
		"--run", "live", "--out", out, "--live", "--json", "--set", "duration=14s", "--set", "faults=[{at: 4s, crash: [8]}]")
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
		got = append(got, fmt.Sprintf("%s %d on %s", r.Ev, r.Node, r.Host))
	}
	if strings.Join(got, ", ") != "crash 8 on h2, crash 17 on h3" {
		t.Errorf("home's faults.jsonl: %q", got)
	}
	run, err := analysis.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var runFaults []string
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			runFaults = append(runFaults, fmt.Sprintf("%s %d", e.Ev, e.Node))
		}
	}
	var sum report.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("summary not JSON: %v\n%s", err, stdout.String())
	}
	if strings.Join(runFaults, ", ") != "crash 8, crash 17" || sum.Alive != 18 {
		t.Errorf("run file faults %q, %d alive in the summary; want crash 8, crash 17 and 18", runFaults, sum.Alive)
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
