package node

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"manetlab/node/netnstest"
	"manetlab/trace"
)

// TestRunClockDilated checks the run clock against a host clock the test
// sets: the model's time is the wall time since the start over k, rounded
// down (before the start too: nothing is due early), and a model
// duration takes k times as long on the wall.
func TestRunClockDilated(t *testing.T) {
	base := time.Unix(1000, 0)
	start := base.Add(time.Second).UnixNano() // the run starts 1 s after start-up
	var elapsed time.Duration                 // the host's time since base
	for _, k := range []int{1, 7, 200} {
		c := newRunClock(base, start, k)
		c.since = func(time.Time) time.Duration { return elapsed }
		kd := time.Duration(k)
		if c.start() != start || c.dilation() != k {
			t.Fatalf("k %d: start %d dilation %d, want %d and %d", k, c.start(), c.dilation(), start, k)
		}
		for _, w := range []time.Duration{0, 999 * time.Millisecond, time.Second - 1, time.Second, time.Second + 1,
			time.Second + 3*time.Millisecond, 11 * time.Second, time.Hour} {
			elapsed = w
			since := w - time.Second // wall time since the run's start
			want := since / kd
			if since < 0 && since%kd != 0 {
				want--
			}
			if got := c.now(); got != want {
				t.Errorf("k %d, %v after start-up: now %v, want %v", k, w, got, want)
			}
			if got := c.now(); got*kd > since || (got+1)*kd <= since {
				t.Errorf("k %d, %v after start-up: now %v is not the wall time since the start (%v) over k, rounded down", k, w, got, since)
			}
			// A timer due at model time m waits k·m less what has passed.
			for _, m := range []time.Duration{0, time.Microsecond, 20 * time.Millisecond} {
				if got, want := c.until(m), kd*m-since; got != want {
					t.Errorf("k %d, %v after start-up: until(%v) = %v, want %v", k, w, m, got, want)
				}
			}
		}
		if got := c.wall(5 * time.Millisecond); got != kd*5*time.Millisecond {
			t.Errorf("k %d: wall(5ms) = %v", k, got)
		}
	}
	// Before the start, a dilated clock reads below zero, never zero:
	// the Host boots only at 0.
	c := newRunClock(base, start, 200)
	c.since = func(time.Time) time.Duration { return time.Second - 1 }
	if c.now() != -1 {
		t.Errorf("1 ns before the start, dilated 200: now %v, want -1ns", c.now())
	}
	if err := checkDilation(-1); err == nil {
		t.Error("dilation -1 accepted")
	}
	if err := checkDilation(MaxDilation + 1); err == nil {
		t.Error("a dilation above MaxDilation accepted")
	}
}

// dilatedBeacons: three nodes in one process broadcast a beacon each at
// 40 ms, spread over 10 ms, on the DCF medium; no hellos.
const dilatedBeacons = `name: dilated
duration: 100ms
nodes: {count: 3, placement: uniform}
mobility: {model: static, area: [50, 50]}
radio: {propagation: log-distance, exponent: 3, tx_power: 20, range: 250, mac: dcf, hello: {period: 1000s, timeout: 3500s}}
protocol: {name: traffic/beacon, params: {start: 40ms, spread: 10ms, size: 38}}
`

// TestDilatedHost runs a Host dilated 20 times over loopback multicast:
// the protocol's timers fire at their model times, 20 times later on the
// wall (every event's wall time is at least 20 times its t after the
// start: nothing comes early), the run lasts 20 times its duration, the
// stack's DCF timers and the air stamps follow the same clock (every
// beacon is judged at the two other nodes, within the model's few
// milliseconds of airtime and backoff), and the stats line says the
// dilation.
func TestDilatedHost(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	const k = 20
	s := parse(t, dilatedBeacons)
	dir := t.TempDir()
	start := time.Now().Add(300 * time.Millisecond).Round(time.Millisecond)
	began := time.Now()
	res := runHost(t, Options{Scenario: s, IDs: ids(3), Out: dir, Run: "dilated", Start: start.UnixNano(), Dilation: k})
	took := time.Since(began)
	if want := time.Until(start) + k*s.Duration.D(); took < k*s.Duration.D() {
		t.Errorf("the run took %v, want about %v (%d times its duration after the start)", took, want, k)
	}
	if res.Stats.Dilation != k {
		t.Errorf("stats: dilation %d, want %d", res.Stats.Dilation, k)
	}
	sends := map[uint64]int64{} // by sender<<32 | seq: send's t
	judged := 0
	var stats []string
	var all []trace.Event
	for _, id := range ids(3) {
		evs, _, err := trace.ReadFile(trace.NodeFile(dir, id))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, evs...)
	}
	{
		evs := all
		for _, e := range evs {
			id := e.Node
			if e.Ev == trace.EvHeader {
				continue
			}
			since := time.Duration(e.Wall - start.UnixNano())
			if since < k*time.Duration(e.T) {
				t.Errorf("node %d: %s at t %v came %v after the start on the wall, before %d times its t", id, e.Ev, time.Duration(e.T), since, k)
			}
			switch {
			case e.Ev == trace.EvSend && e.Kind == "beacon":
				if e.T < int64(40*time.Millisecond) || e.T > int64(60*time.Millisecond) {
					t.Errorf("node %d: beacon sent at t %v, want within 40-50 ms and its backoff", id, time.Duration(e.T))
				}
				// Late by the host's load at most, which dilation divides.
				if late := since - k*time.Duration(e.T); late > 500*time.Millisecond {
					t.Logf("node %d: beacon sent %v after its model time on the wall (a loaded host)", id, late)
				}
				sends[uint64(e.Node)<<32|e.Seq] = e.T
			case e.Ev == trace.EvStats:
				stats = append(stats, e.Text)
			}
		}
		for _, e := range evs {
			id := e.Node
			if e.Kind == "beacon" && (e.Ev == trace.EvRecv || e.Ev == trace.EvDrop) {
				judged++
				if at, ok := sends[uint64(e.From)<<32|e.Seq]; !ok || (e.T < at || e.T > at+int64(5*time.Millisecond)) {
					t.Errorf("node %d: %s of node %d's beacon at t %v, sent at %v: want within its airtime after", id, e.Ev, e.From, time.Duration(e.T), time.Duration(at))
				}
			}
		}
	}
	if len(sends) != 3 || judged != 6 {
		t.Errorf("%d beacons sent, %d (beacon, receiver) pairs judged; want 3 and 6", len(sends), judged)
	}
	for _, st := range stats {
		if !strings.Contains(st, fmt.Sprintf("dilation=%d", k)) {
			t.Errorf("stats line without dilation=%d: %s", k, st)
		}
	}
	t.Logf("took %v; stats %s", took.Round(time.Millisecond), res.Stats)
}
