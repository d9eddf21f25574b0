package mutex_test

import (
	"os"
	"testing"
	"time"

	"manetlab/protocol"
)

// TestConfigsCoord runs configs/mutex-centralized.yaml and
// configs/mutex-token-ring.yaml and checks what their comments claim.
func TestConfigsCoord(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	c := coordRun(t, "mutex-centralized.yaml", read("../configs/mutex-centralized.yaml"))
	got := c.entered()
	for id := protocol.NodeID(1); id <= 8; id++ {
		want := 1
		if id == 1 || id == 2 || id == 4 {
			want = 2
		}
		if len(got[id]) != want {
			t.Errorf("centralized: node %d entered %d times, want %d", id, len(got[id]), want)
		}
	}
	for _, k := range []string{"request", "grant", "release"} {
		if n := c.count(0, "send", k, 3*time.Second, 6900*time.Millisecond); n != 7 {
			t.Errorf("centralized: %d %s messages for the 8 entries of 3-7 s, want 7", n, k)
		}
	}
	if g := got[4]; len(g) == 2 && (g[1] > 8*time.Second || c.count(4, string(protocol.NoteCSExit), "", 16*time.Second, 16*time.Second) != 1) {
		t.Errorf("centralized: node 4 did not hold from before the crash to 16 s: entries %v", g)
	}
	if !c.hasInfo("coordinator in term 7.") {
		t.Errorf("centralized: node 7 never coordinated")
	}
	c.mutexValid(t, 50)

	r := coordRun(t, "mutex-token-ring.yaml", read("../configs/mutex-token-ring.yaml"))
	got = r.entered()
	for id := protocol.NodeID(1); id <= 8; id++ {
		if len(got[id]) != 1 {
			t.Errorf("token ring: node %d entered %d times, want 1", id, len(got[id]))
		}
	}
	r.mutexValid(t, 28)
}
