package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/studio"
	"manetlab/trace"
)

type fakeFaults struct{ got []string }

func (f *fakeFaults) Fault(id protocol.NodeID, recover bool) error {
	if id == 5 {
		return errors.New("node 5 is down already")
	}
	f.got = append(f.got, map[bool]string{false: "crash", true: "recover"}[recover]+" "+string(rune('0'+id)))
	return nil
}

func (f *fakeFaults) CutHosts(a, b string, heal bool) error {
	if a == "h9" {
		return errors.New(`no host "h9" in the run`)
	}
	f.got = append(f.got, fmt.Sprintf("%s %s %s", map[bool]string{false: "cut", true: "heal"}[heal], a, b))
	return nil
}

func (f *fakeFaults) Cut(a, b protocol.NodeID, heal bool) error {
	if a == 6 {
		return errors.New("the link 6–7 is cut already")
	}
	f.got = append(f.got, fmt.Sprintf("%s %d %d", map[bool]string{false: "cut", true: "heal"}[heal], a, b))
	return nil
}

// TestServerGuardAndFaults: the page's API refuses another Host and a
// request without the token (the studio's guard), serves the state of
// the run, hands a crash or recovery of a member to the Faulter and says
// why one failed; without a Faulter (trace watch) it is read-only.
func TestServerGuardAndFaults(t *testing.T) {
	dir := simulated(t, "duration=5s")
	ff := &fakeFaults{}
	// Before anything is known, every list is a list (the page iterates).
	b, _ := json.Marshal(NewState().Snapshot(0))
	if strings.Contains(string(b), "null") {
		t.Errorf("an empty state has null lists: %s", b)
	}
	for _, c := range []struct {
		name string
		f    Faulter
	}{{"run", ff}, {"watch", nil}} {
		l := New(Config{Dir: dir, Faults: c.f})
		if _, err := l.fol.Poll(); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(l.Handler())
		t.Cleanup(srv.Close)
		do := func(method, path, body string, hdr map[string]string) (int, string) {
			req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			if strings.HasPrefix(path, "/evil") {
				req.URL.Path = "/api/state"
				req.Host = "evil.example:80"
			}
			r, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Body.Close()
			var b strings.Builder
			buf := make([]byte, 1<<20)
			for {
				n, err := r.Body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			return r.StatusCode, b.String()
		}
		tok := map[string]string{studio.TokenHeader: l.Token()}
		js := map[string]string{studio.TokenHeader: l.Token(), "Content-Type": "application/json"}
		if code, _ := do("GET", "/api/state", "", nil); code != http.StatusForbidden {
			t.Errorf("%s: no token: %d", c.name, code)
		}
		if code, _ := do("GET", "/evil", "", tok); code != http.StatusForbidden {
			t.Errorf("%s: another Host: %d", c.name, code)
		}
		if code, body := do("GET", "/", "", nil); code != 200 || !strings.Contains(body, "function drawMap(") || strings.Contains(body, "/*map.js*/") {
			t.Errorf("%s: the page (%d) lacks the studio's map", c.name, code)
		}
		code, body := do("GET", "/api/state", "", tok)
		var s Snapshot
		if err := json.Unmarshal([]byte(body), &s); err != nil || code != 200 || len(s.Nodes) != 20 || s.Faults != (c.f != nil) {
			t.Fatalf("%s: state %d %v: %d nodes, faults %v", c.name, code, err, len(s.Nodes), s.Faults)
		}
		code, body = do("POST", "/api/crash", `{"node":3}`, js)
		switch {
		case c.f == nil && code != http.StatusForbidden:
			t.Errorf("watch: a crash got %d %s, want refused (read-only)", code, body)
		case c.f != nil && (code != 200 || body != "node 3 crashed"):
			t.Errorf("run: a crash got %d %q", code, body)
		}
		if c.f == nil {
			continue
		}
		if code, body := do("POST", "/api/recover", `{"node":5}`, js); code != http.StatusConflict || !strings.Contains(body, "down already") {
			t.Errorf("a failed recovery: %d %q", code, body)
		}
		if code, _ := do("POST", "/api/crash", `{"node":99}`, js); code != http.StatusBadRequest {
			t.Errorf("a crash of a non-member: %d", code)
		}
		if code, _ := do("POST", "/api/crash", `{"node":4}`, tok); code != http.StatusUnsupportedMediaType {
			t.Errorf("a crash not in JSON: %d", code)
		}
		for _, x := range []struct {
			path, body string
			code       int
			want       string
		}{
			{"/api/cut", `{"node":1,"peer":2}`, 200, "link 1–2 cut"},
			{"/api/heal", `{"node":2,"peer":1}`, 200, "link 2–1 healed"},
			{"/api/cut", `{"node":6,"peer":7}`, http.StatusConflict, "cut already"},
			{"/api/cut", `{"node":3,"peer":3}`, http.StatusBadRequest, "no link between node 3 and itself"},
			{"/api/cut", `{"node":3,"peer":99}`, http.StatusBadRequest, "node 99 is not a member"},
			{"/api/cut", `{"hosts":["h1","h3"]}`, 200, "hosts h1 and h3 cut apart"},
			{"/api/heal", `{"hosts":["h1","h3"]}`, 200, "hosts h1 and h3 no longer apart"},
			{"/api/cut", `{"hosts":["h9","h3"]}`, http.StatusConflict, `no host "h9"`},
			{"/api/cut", `{"hosts":["h1"]}`, http.StatusBadRequest, "want two host names"},
		} {
			if code, body := do("POST", x.path, x.body, js); code != x.code || !strings.Contains(body, x.want) {
				t.Errorf("%s %s: %d %q, want %d %q", x.path, x.body, code, body, x.code, x.want)
			}
		}
	}
	if strings.Join(ff.got, ",") != "crash 3,cut 1 2,heal 2 1,cut h1 h3,heal h1 h3" {
		t.Errorf("the faulter got %q", ff.got)
	}
}

// TestStateCuts: the halves of a cut link in the faults record show on
// the map as one cut link with how many halves are cut, in the event
// log, and among the faults the verdict so far is judged with; a heal
// takes its half away, and a record seen twice counts once.
func TestStateCuts(t *testing.T) {
	l := New(Config{Dir: simulated(t, "duration=5s")})
	if _, err := l.fol.Poll(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, r := range []trace.FaultRecord{
		{Node: 4, Peer: 2, Ev: trace.EvCut, T: 1e9, Host: "h1"},
		{Node: 2, Peer: 4, Ev: trace.EvCut, T: 1e9 + 1, Host: "h2"},
		{Node: 2, Peer: 4, Ev: trace.EvCut, T: 1e9 + 1, Host: "h2"},
		{Node: 9, Peer: 3, Ev: trace.EvCut, T: 2e9},
		{Node: 9, Peer: 3, Ev: trace.EvHeal, T: 3e9},
		{Node: 1, Peer: 1, Ev: trace.EvCut, T: 3e9},
	} {
		l.st.Fault(r, now)
	}
	s := l.st.Snapshot(0)
	if len(s.Cuts) != 1 || s.Cuts[0] != (Cut{A: 2, B: 4, Halves: 2}) {
		t.Errorf("cuts %+v, want the link 2–4 cut both ways", s.Cuts)
	}
	for _, n := range s.Nodes {
		if want := map[protocol.NodeID]string{2: "[4]"}[n.ID]; fmt.Sprint(n.Cut) != want && (want != "" || n.Cut != nil) {
			t.Errorf("node %d on the map: cut %v, want %s", n.ID, n.Cut, want)
		}
	}
	var logged []string
	for _, e := range s.Log {
		if e.Ev == trace.EvCut || e.Ev == trace.EvHeal {
			logged = append(logged, e.Text+" "+e.Host)
		}
	}
	if want := "node 4 no longer hears 2 (link cut) h1,node 2 no longer hears 4 (link cut) h2,node 9 no longer hears 3 (link cut) ,node 9 hears 3 again (link healed) "; strings.Join(logged, ",") != want {
		t.Errorf("log %q, want %q", strings.Join(logged, ","), want)
	}
	if n := len(l.st.faults); n != 4 {
		t.Errorf("%d faults kept for the verdict, want 4", n)
	}
}
