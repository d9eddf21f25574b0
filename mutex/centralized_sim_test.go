package mutex_test

import (
	"fmt"
	"testing"
	"time"

	"manetlab/protocol"
)

// centralScenario is n static nodes on a multi-hop grid (cells 200 m,
// range 250 m), lossless, running mutex/centralized with params (YAML
// flow map entries) and the workload and faults given.
func centralScenario(name string, n int, dur string, params, rest string) string {
	return fmt.Sprintf(`name: %s
seed: 1
duration: %s
nodes: {count: %d, values: id, placement: grid}
radio: {range: 250}
mobility: {model: static, area: [%d, %d]}
protocol:
  name: mutex/centralized
  params: {%s}
%s`, name, dur, n, 200*3, 200*((n+2)/3), params, rest)
}

// fastElection makes the channels give up on a silent peer in 1.5 s
// (rto 100ms, 3 retries) for the algorithm and the election alike.
const fastElection = "rto: 100ms, retries: 3, election_params: {rto: 100ms, retries: 3}"

// TestCentralizedThreeMessagesPerEntry: one request at a time, every
// entry of a client that is not the coordinator costs exactly one request,
// one grant and one release; the coordinator's own entry costs none.
func TestCentralizedThreeMessagesPerEntry(t *testing.T) {
	var w []wl
	at := 3 * time.Second
	for id := protocol.NodeID(1); id <= 8; id++ {
		w = append(w, wl{node: id, at: at, hold: 200 * time.Millisecond})
		at += 500 * time.Millisecond
	}
	r := runSim(t, "central-3", centralScenario("central-3", 8, "10s", fastElection, workload(w...)))
	enters := r.notes(protocol.NoteCSEnter)
	if len(enters) != 8 {
		t.Fatalf("%d entries, want 8: %+v", len(enters), enters)
	}
	from, to := 3*time.Second, 10*time.Second
	for _, k := range []string{"request", "grant", "release"} {
		if got := r.count(0, "send", k, from, to); got != 7 {
			t.Errorf("%d %s messages for 7 client entries and the coordinator's own, want 7", got, k)
		}
	}
	for _, k := range []string{"inquire", "report", "check", "outdated"} {
		if got := r.count(0, "send", k, from, to); got != 0 {
			t.Errorf("%d %s messages under light load, want 0", got, k)
		}
	}
	r.mutexValid(t, 28)
}
