package launch

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"manetlab/node/launch/launchtest"
	"manetlab/protocol"
	"manetlab/trace"
)

// TestShareAppliesItsOwnFaultsAndRecordsThem: a launcher given nodes 2
// and 3 of 4, a start time and no player runs those two nodes only, with
// that start and --trace-sink; of the schedule it applies the faults of
// its own nodes (node 3's crash and recovery, not node 1's crash) and
// records each one in faults.jsonl when it applied it, on time.
func TestShareAppliesItsOwnFaultsAndRecordsThem(t *testing.T) {
	path := writeScenario(t, 4, "2500ms", "faults: [{at: 500ms, crash: [1]}, {at: 800ms, crash: [3]}, {at: 1600ms, recover: [3]}]\n")
	dir := t.TempDir()
	start := time.Now().Add(700 * time.Millisecond).Round(time.Millisecond)
	var ready Readiness
	res, err := launch(t, path, Options{Out: dir, IDs: []protocol.NodeID{2, 3}, NoPlayer: true, Start: start,
		TraceSink: "127.0.0.1:9", Host: "h2",
		Ready: func(r Readiness) { ready = r }})
	if err != nil {
		t.Fatal(err)
	}
	if ready.Procs != 2 || ready.Took <= 0 {
		t.Errorf("Ready called with %+v, want 2 processes and how long they took", ready)
	}
	if !res.Start.Equal(start) {
		t.Errorf("the run started at %v, want the start given %v", res.Start, start)
	}
	var names []string
	for _, p := range res.Procs {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ", "); got != "node 2, node 3" {
		t.Errorf("processes %q, want node 2, node 3 (no player, no node 1 or 4)", got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, launchtest.ArgsLog))
	// The first processes get the start once ready (--start-stdin); node
	// 3's recovery, on the command line.
	given := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(l, " --start "+itoa(start.UnixNano())+" ") {
			given++
		} else if !strings.Contains(l, " --start-stdin ") {
			t.Errorf("a node started without the given start or the handshake: %s", l)
		}
		if !strings.Contains(l, " --trace-sink 127.0.0.1:9") {
			t.Errorf("a node started without the trace sink: %s", l)
		}
	}
	if given != 1 {
		t.Errorf("%d processes given the start on their command line, want 1 (node 3's recovery)", given)
	}
	f, err := os.Open(trace.FaultsFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r trace.FaultRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("faults.jsonl line %q: %v", sc.Text(), err)
		}
		got = append(got, r.Ev+" "+itoa(int64(r.Node))+" "+r.Host)
		at := map[string]time.Duration{"crash": 800 * time.Millisecond, "recover": 1600 * time.Millisecond}[r.Ev]
		if d := time.Duration(r.T); d < at || d > at+500*time.Millisecond {
			t.Errorf("%s of node %d recorded at %s, want from %s to %s", r.Ev, r.Node, d, at, at+500*time.Millisecond)
		}
	}
	if g := strings.Join(got, ", "); g != "crash 3 h2, recover 3 h2" {
		t.Errorf("faults.jsonl holds %q, want the crash and recovery of node 3 on h2", g)
	}
	if res.Unapplied != "" {
		t.Errorf("unapplied %q: another launcher's fault counted here", res.Unapplied)
	}
}

// TestShareStartInThePastIsRefused: a start time already gone starts
// nothing and says so.
func TestShareStartInThePastIsRefused(t *testing.T) {
	path := writeScenario(t, 2, "1s", "")
	_, err := launch(t, path, Options{Start: time.Now().Add(-time.Second), NoPlayer: true})
	if err == nil || !strings.Contains(err.Error(), "the start time passed") {
		t.Fatalf("err %v, want the start time passed", err)
	}
}

// TestShareForeignIDsAreRefused: nodes the scenario does not have.
func TestShareForeignIDsAreRefused(t *testing.T) {
	path := writeScenario(t, 2, "1s", "")
	_, err := launch(t, path, Options{IDs: []protocol.NodeID{2, 7}})
	if err == nil || !strings.Contains(err.Error(), "nodes 7 are not members") {
		t.Fatalf("err %v, want node 7 named", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
