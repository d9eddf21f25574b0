package main

import (
	"fmt"
	"slices"
	"testing"

	"manetlab/internal/netnstest"
	"manetlab/protocol"
	"manetlab/trace"
)

// bootCounter is a test protocol that counts its boots in its stable
// storage and notes the count ("boots=N") at every start. It is
// registered in this test binary, which the run tests start as the node
// processes.
type bootCounter struct{ cfg protocol.Config }

func init() {
	protocol.Register(protocol.Spec{
		Name:    "test/boots",
		Summary: "test only: counts its boots in stable storage",
		New: func(cfg protocol.Config) (protocol.Process, error) {
			return &bootCounter{cfg: cfg}, cfg.Params.Reader().Err()
		},
	})
}

func (p *bootCounter) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); !ok {
		return
	}
	n := 0
	if b, ok := p.cfg.Store.Get("boots"); ok {
		fmt.Sscan(string(b), &n)
	}
	n++
	text := fmt.Sprintf("boots=%d", n)
	if err := p.cfg.Store.Put("boots", []byte(fmt.Sprint(n))); err != nil {
		text = "put: " + err.Error()
	}
	p.cfg.Env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: text})
}

// TestRunStoreSurvivesKill runs real node processes whose node 2 the
// launcher kills and restarts twice: the restarted processes read the
// store the killed ones wrote, as the simulator's nodes do.
func TestRunStoreSurvivesKill(t *testing.T) {
	if findCommand(newApp().Commands, "node") == nil {
		t.Skip("no node command in this build")
	}
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	useHelper(t, "main")
	dir := t.TempDir()
	path := writeRunScenario(t, 3, "6s", "protocol: {name: test/boots}\n"+
		"faults: [{at: 1500ms, crash: [2]}, {at: 2500ms, recover: [2]}, {at: 3500ms, crash: [2]}, {at: 4500ms, recover: [2]}]\n")
	if _, err := runCLI(t, "run", path, "--out", dir, "--quiet"); err != nil {
		t.Fatal(err)
	}
	want := map[protocol.NodeID][]string{1: {"boots=1"}, 2: {"boots=1", "boots=2", "boots=3"}, 3: {"boots=1"}}
	for id, w := range want {
		var got []string
		if _, err := trace.ScanEvents(trace.NodeFile(dir, id), func(ev string) bool { return ev == string(protocol.NoteInfo) },
			func(e *trace.Event, _ int) error { got = append(got, e.Text); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, w) {
			t.Errorf("node %d noted %q, want %q", id, got, w)
		}
	}
}
