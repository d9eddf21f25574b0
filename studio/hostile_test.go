package studio_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/studio"
)

// TestServerHoldsUnderHalfSentRequests: a local user opens more
// connections than the cap, each with half a request; the oldest are
// closed, the server holds at most MaxConns, and a real request is
// answered at once.
func TestServerHoldsUnderHalfSentRequests(t *testing.T) {
	s := loadScenario(t, "../configs/ring-chang-roberts.yaml")
	dir := t.TempDir()
	st, err := studio.New(studio.Config{Scenario: s, Path: "ring", Out: filepath.Join(dir, "trace"), Save: filepath.Join(dir, "schedule.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := st.Server(ln)
	go srv.Run()
	defer srv.Close()

	const attackers = studio.MaxConns + 36
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range attackers {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, "GET /api/state HTTP/1.1\r\nHost: "+ln.Addr().String()+"\r\nX-Slow: "); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/api/state", nil)
	req.Header.Set(studio.TokenHeader, st.Token())
	r, err := client.Do(req)
	if err != nil {
		t.Fatalf("a real request with %d half-sent ones held: %v", attackers, err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("a real request with %d half-sent ones held: %s", attackers, r.Status)
	}
	if held := srv.Held(); held > studio.MaxConns {
		t.Fatalf("the server holds %d connections, more than its cap %d", held, studio.MaxConns)
	}
	// The oldest half-sent requests were closed to make room.
	closed := 0
	for _, c := range conns[:attackers-studio.MaxConns] {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := bufio.NewReader(c).ReadByte(); err == io.EOF || err != nil && !isTimeout(err) {
			closed++
		}
	}
	if closed != attackers-studio.MaxConns {
		t.Fatalf("%d of the %d oldest half-sent requests were closed", closed, attackers-studio.MaxConns)
	}
	if srv.ReadHeaderTimeout == 0 || srv.ReadTimeout == 0 || srv.IdleTimeout == 0 || srv.WriteTimeout == 0 {
		t.Fatalf("a timeout is missing: header %v, read %v, idle %v, write %v", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout, srv.WriteTimeout)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestSaveRefusesALink: studio --save pointing at a link (planted, or
// left there) does not overwrite the link's target (issue 40, item 9).
func TestSaveRefusesALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	save := filepath.Join(dir, "schedule.json")
	if err := os.Symlink(victim, save); err != nil {
		t.Fatal(err)
	}
	s := loadScenario(t, "../configs/ring-chang-roberts.yaml")
	st, err := studio.New(studio.Config{Scenario: s, Path: "ring", Out: filepath.Join(dir, "trace"), Save: save})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptestServer(t, st)
	state := post(t, srv, "/api/save", map[string]any{})
	if !strings.Contains(state.Error, save+" is a symbolic link: refusing to write through it") {
		t.Fatalf("save through a link: error %q", state.Error)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the link's target now holds %q", b)
	}
}
