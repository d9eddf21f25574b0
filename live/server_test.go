package live

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/studio"
)

type fakeFaults struct{ got []string }

func (f *fakeFaults) Fault(id protocol.NodeID, recover bool) error {
	if id == 5 {
		return errors.New("node 5 is down already")
	}
	f.got = append(f.got, map[bool]string{false: "crash", true: "recover"}[recover]+" "+string(rune('0'+id)))
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
	}
	if strings.Join(ff.got, ",") != "crash 3" {
		t.Errorf("the faulter got %q", ff.got)
	}
}
