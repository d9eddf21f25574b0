package synchronous

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/sim/simtest"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// hexagon places six nodes 200 m apart on a circle (range 250 m: each
// hears its two ring neighbours only), node i at angle 60°·(i-1) about
// (300, 300).
var hexagon = [][2]float64{{500, 300}, {400, 473.2}, {200, 473.2}, {100, 300}, {200, 126.8}, {400, 126.8}}

// hexagonYAML is a run on the hexagon with the radio's delay at 20 ms (so
// that a round lasts long enough to break it in the middle); mover moves
// in 1 ms at time at to pos (mover 0: nothing moves).
// ideal: radio.delay (the 20 ms hop that times the break) exists only on
// the ideal medium, and the test checks which nodes a broken link stalls,
// which the DCF medium's colliding same-instant pulses blur.
func hexagonYAML(proto, params string, mover int, at time.Duration, pos [2]float64) string {
	var list strings.Builder
	for i, p := range hexagon {
		fmt.Fprintf(&list, "    - {id: %d, pos: [%g, %g]", i+1, p[0], p[1])
		if i+1 == mover {
			fmt.Fprintf(&list, ", waypoints: [{at: %dus, pos: [%g, %g]}, {at: %dus, pos: [%g, %g]}]",
				at.Microseconds(), p[0], p[1], (at + time.Millisecond).Microseconds(), pos[0], pos[1])
		}
		list.WriteString("}\n")
	}
	return fmt.Sprintf("name: fault\nseed: 1\nduration: 20s\nnodes:\n  list:\n%s"+
		"radio: {mac: ideal, range: 250, delay: 20ms}\nmobility: {model: waypoints, area: [600, 600]}\n"+
		"protocol: {name: %s, params: {%s}}\n", list.String(), proto, params)
}

// roundSpan is when the first round 1 and the last round ran, from the
// nodes' round notes.
func roundSpan(t *testing.T, dir string, n int) (first, last time.Duration) {
	t.Helper()
	first = -1
	for id := protocol.NodeID(1); id <= protocol.NodeID(n); id++ {
		evs, _, err := trace.ReadFile(trace.NodeFile(dir, id))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Ev == string(protocol.NoteRound) {
				at := time.Duration(e.T)
				if first < 0 || at < first {
					first = at
				}
				last = max(last, at)
			}
		}
	}
	return first, last
}

// TestBrokenLinkStalls: a link of the algorithm's graph breaks in the
// middle of the rounds (the radio graph: node 5 moves out of node 4's
// range but stays by node 6, so the graph stays connected; the ring: node
// 4 leaves, a partition). The run, clean, is valid; broken, it ends at the
// scenario's duration with the verdict stalled at round r, naming the
// nodes that never started round r+1 (and, for alpha and beta, those never
// safe for r) — never with a wrong leader. The check's synchronizer
// property says the same.
func TestBrokenLinkStalls(t *testing.T) {
	for _, sync := range []string{rounds.Simple, rounds.Alpha, rounds.Beta} {
		for _, c := range []struct {
			what, proto, params string
			mover               int
			to                  [2]float64
			stuck               protocol.NodeID // a node the reason must say never started round r+1
			unsafe              protocol.NodeID // a node it must say never became safe for r (alpha, beta; 0: none)
		}{
			// node 5 halts in round 3 inviting 4, which waits for that
			// envelope (simple) or 5's safe (alpha, beta) in vain
			{"radio graph, link 4-5 broken", BFSName, "root: 1", 5, [2]float64{300, 60}, 4, 5},
			// node 6 alone wakes: 6·7 = 42 rounds, the first 36 empty
			{"ring, node 4 cut off", TimeSliceName, "ring: ascending, wake: {6: 1}", 4, [2]float64{3000, 3000}, 4, 0},
		} {
			what := fmt.Sprintf("%s over %s (%s)", c.proto, sync, c.what)
			params := "synchronizer: " + sync + ", " + c.params
			dir, sum := simtest.RunYAML(t, "clean.yaml", hexagonYAML(c.proto, params, 0, 0, [2]float64{}))
			if sum.Verdict != "valid" {
				t.Fatalf("%s, clean: %s %s", what, sum.Verdict, sum.Reason)
			}
			first, last := roundSpan(t, dir, 6)
			mid := first + (last-first)/2
			dir, sum = simtest.RunYAML(t, "broken.yaml", hexagonYAML(c.proto, params, c.mover, mid, c.to))
			if sum.Verdict != analysis.Stalled || !strings.HasPrefix(sum.Reason, "stalled at round ") {
				t.Fatalf("%s, broken at %v (rounds %v to %v): verdict %s: %s", what, mid, first, last, sum.Verdict, sum.Reason)
			}
			var r int
			fmt.Sscanf(sum.Reason, "stalled at round %d", &r)
			stuck, rest, _ := strings.Cut(strings.TrimPrefix(sum.Reason, fmt.Sprintf("stalled at round %d: node(s) ", r)), " never started")
			if !namesID(stuck, c.stuck) {
				t.Errorf("%s: %q: node %d is not among those stuck (%s)", what, sum.Reason, c.stuck, stuck)
			}
			if c.unsafe != 0 && sync != rounds.Simple {
				_, after, found := strings.Cut(rest, "; node(s) ")
				unsafe, _, _ := strings.Cut(after, fmt.Sprintf(" never became safe for round %d", r))
				if !found || !namesID(unsafe, c.unsafe) {
					t.Errorf("%s: %q does not say node %d never became safe", what, sum.Reason, c.unsafe)
				}
			}
			if r < 1 || strings.Contains(sum.Reason, "crashed") {
				t.Errorf("%s: %q", what, sum.Reason)
			}
			p := prop(t, dir, analysis.PropSync)
			if p.Verdict != analysis.Stalled || p.Reason != sum.Reason || len(p.Witnesses) == 0 {
				t.Errorf("%s: property %+v, summary %q", what, p, sum.Reason)
			}
			// the rounds stopped; the run went on to its duration and ended
			_, stop := roundSpan(t, dir, 6)
			if stop > last || sum.Duration != 20 {
				t.Errorf("%s: last round at %v (clean %v), run of %gs", what, stop, last, sum.Duration)
			}
			t.Logf("%s, broken at %v: %s", what, mid, sum.Reason)
		}
	}
}

// namesID reports that list, as protocol.DescribeIDs writes it ("3-5, 8"),
// includes id.
func namesID(list string, id protocol.NodeID) bool {
	for _, part := range strings.Split(list, ", ") {
		var lo, hi protocol.NodeID
		if n, _ := fmt.Sscanf(part, "%d-%d", &lo, &hi); n == 2 && lo <= id && id <= hi {
			return true
		} else if n == 1 && lo == id {
			return true
		}
	}
	return false
}
