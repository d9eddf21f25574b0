package node

import (
	"context"
	"strings"
	"testing"
	"time"

	"manetlab/node/netnstest"
	"manetlab/trace"
)

const startLaterScenario = `name: later
duration: 1s
nodes: {count: 2, values: id, placement: grid}
radio: {propagation: unit-disk, range: 500}
mobility: {model: static, area: [100, 100]}
protocol: {name: baseline/floodmax}
`

// TestStartLater: a Host started with Options.StartLater is ready (its
// traces open) before it knows its start, and runs from the start it is
// then given: on time when the start is still ahead (no late-start in
// its stats), at once and saying by how much when the start has passed
// (its stats carry late-start-ms and the load then); a channel closed
// first stops it with its nodes never booted.
func TestStartLater(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	s := parse(t, startLaterScenario)
	run := func(t *testing.T, give func(chan<- int64) int64) (*Result, []trace.Event) {
		t.Helper()
		dir := t.TempDir()
		ch := make(chan int64, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		h, err := Start(ctx, Options{Scenario: s, IDs: ids(2), Out: dir, Run: "later", StartLater: ch, Log: testLog{t}})
		if err != nil {
			t.Fatal(err)
		}
		start := give(ch)
		res, err := h.Wait()
		if err != nil {
			t.Fatal(err)
		}
		evs, _, err := trace.ReadFile(trace.NodeFile(dir, 1))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Ev == trace.EvStart && e.Wall < start {
				t.Errorf("node 1 started at %d, before the start given %d", e.Wall, start)
			}
		}
		return res, evs
	}
	t.Run("ahead", func(t *testing.T) {
		res, evs := run(t, func(ch chan<- int64) int64 {
			start := time.Now().Add(200 * time.Millisecond).UnixNano()
			ch <- start
			return start
		})
		if res.Stats.LateStart != 0 || strings.Contains(res.Stats.String(), "late-start") {
			t.Errorf("a start given ahead: stats %q", res.Stats.String())
		}
		if !hasEv(evs, trace.EvStart) || !hasEv(evs, trace.EvEnd) {
			t.Errorf("node 1 did not run: %v", evs)
		}
	})
	t.Run("passed", func(t *testing.T) {
		res, _ := run(t, func(ch chan<- int64) int64 {
			start := time.Now().Add(-300 * time.Millisecond).UnixNano()
			ch <- start
			return start
		})
		if res.Stats.LateStart < 300*time.Millisecond || !strings.Contains(res.Stats.String(), " late-start-ms=") ||
			!strings.Contains(res.Stats.String(), " load-at-start=") {
			t.Errorf("a start given 300 ms late: stats %q, late %v", res.Stats.String(), res.Stats.LateStart)
		}
	})
	t.Run("closed", func(t *testing.T) {
		_, evs := run(t, func(ch chan<- int64) int64 {
			close(ch)
			return 0
		})
		if hasEv(evs, trace.EvStart) {
			t.Errorf("node 1 booted without a start: %v", evs)
		}
	})
}

func hasEv(evs []trace.Event, ev string) bool {
	for _, e := range evs {
		if e.Ev == ev {
			return true
		}
	}
	return false
}
