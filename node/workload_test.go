package node

import (
	"testing"
	"time"

	"manetlab/mutex/mutextest"
	"manetlab/node/netnstest"
	"manetlab/protocol"
	"manetlab/sim"
	"manetlab/trace"
)

const genYAML = `
name: gen
duration: 6s
nodes: {count: 4}
radio: {range: 250, hello: {period: 500ms}}
mobility: {model: static, area: [100, 100]}
protocol: {name: ` + mutextest.Name + `}
workload:
  rate: 2
  hold: 50ms
  nodes: [2, 3, 4]
  stop: 5s
  commands:
    - {at: 2s, node: 1, command: request}
    - {at: 2.5s, node: 1, command: release}
`

// sectionLog counts what one node's trace says of the section.
type sectionLog struct {
	requests, notes, enters, exits int
	first                          time.Duration // first request
}

func readSections(t *testing.T, dir string, id protocol.NodeID) sectionLog {
	t.Helper()
	evs, _, err := trace.ReadFile(trace.NodeFile(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	var l sectionLog
	for _, e := range evs {
		switch e.Ev {
		case trace.EvCommand:
			if e.Text == string(protocol.Request) {
				if l.requests == 0 {
					l.first = time.Duration(e.T)
				}
				l.requests++
			}
		case string(protocol.NoteCSRequest):
			l.notes++
		case string(protocol.NoteCSEnter):
			l.enters++
		case string(protocol.NoteCSExit):
			l.exits++
		}
	}
	return l
}

// TestGeneratorParity runs the generator with real nodes (four in one
// process) and in the simulator: the real driver wraps the processes too,
// and the Poisson schedule, which depends on the seed alone, gives each
// node the same number of requests in both (stop at 5s keeps the last one
// clear of the run's end). Node 1 runs no generator: its explicit
// request and release are all it does.
func TestGeneratorParity(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, genYAML)
	simDir, nodeDir := t.TempDir(), t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: simDir}); err != nil {
		t.Fatal(err)
	}
	runHost(t, Options{Scenario: s, IDs: ids(4), Out: nodeDir, Run: "gen"})
	for _, id := range ids(4) {
		want, got := readSections(t, simDir, id), readSections(t, nodeDir, id)
		t.Logf("node %d: sim %+v, node %+v", id, want, got)
		if got.requests != want.requests || got.notes != got.requests {
			t.Errorf("node %d: %d requests (%d noted) with real nodes, %d in the simulator", id, got.requests, got.notes, want.requests)
		}
		if id == 1 {
			if got.requests != 1 || got.enters != 1 || got.exits != 1 {
				t.Errorf("node 1 (no generator): %+v; want the explicit request and release, one section", got)
			}
			continue
		}
		if got.requests == 0 || got.first < time.Second {
			t.Errorf("node %d: %+v; want generated requests from 1s", id, got)
		}
		if got.exits != got.enters && got.exits+1 != got.enters {
			t.Errorf("node %d: %d entries, %d exits: the generator did not release", id, got.enters, got.exits)
		}
	}
}
