package node

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "manetlab/mutex" // registers every shipped protocol
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	_ "manetlab/traffic" // traffic/beacon, to load the DCF medium
)

// linkEvents are the trace events of the network stack, which both
// drivers must write alike.
var linkEvents = []string{trace.EvSend, trace.EvRelay, trace.EvRecv, trace.EvDrop, trace.EvNbrUp, trace.EvNbrDown, trace.EvAck, trace.EvRetx,
	trace.EvRREQ, trace.EvRREP, trace.EvRERR}

// linkLine is a link-level event, with the fields the drivers must agree
// on (not the real driver's wall clock and hybrid logical clock).
func linkLine(e *trace.Event) string {
	return fmt.Sprintf("t=%d %s kind=%s from=%d to=%d seq=%d origin=%d oseq=%d hops=%d bytes=%d reason=%s peer=%d",
		e.T, e.Ev, e.Kind, e.From, e.To, e.Seq, e.Origin, e.OSeq, e.Hops, e.Bytes, e.Reason, e.Peer)
}

func readLinkLines(t *testing.T, dir string, id protocol.NodeID) []string {
	t.Helper()
	var out []string
	_, err := trace.ScanEvents(trace.NodeFile(dir, id), func(ev string) bool { return slices.Contains(linkEvents, ev) },
		func(e *trace.Event, _ int) error { out = append(out, linkLine(e)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runVirtualHost runs every node of s in one Host over the in-memory
// medium, applying the scenario's faults as the simulator does.
func runVirtualHost(t *testing.T, s *scenario.Scenario, dir string) *Result {
	t.Helper()
	h, err := startVirtual(Options{Scenario: s, IDs: s.MemberIDs(), Out: dir, Run: "parity", Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Faults {
		h.virt.at(f.At.D(), func() {
			for _, id := range f.Crash {
				h.crashNode(h.byID[id])
			}
			for _, id := range f.Recover {
				if err := h.recoverNode(h.byID[id]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	res, err := h.runVirtual()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestStackParityWithSim runs the real node's Host (its wire encoding,
// receive pipeline, radio at each receiver and network stack) over an
// in-memory medium in virtual time, side by side with the simulator, and
// expects the same link-level trace events, event for event, at every
// node: static and moving networks, loss, a crash and a recovery, a
// multi-hop ring election and a mutual exclusion workload.
func TestStackParityWithSim(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		file string
		sets []string
		// aodv: route requests and replies must happen; multiHop: some
		// message must be relayed; rerr: some route error must happen;
		// collisions: the DCF medium must lose frames to collisions.
		aodv, multiHop, rerr, collisions bool
	}{
		{name: "static", yaml: staticYAML},
		{name: "moving-lossy", yaml: `
name: moving
duration: 20s
nodes: {count: 8}
radio: {range: 250, loss: {model: bernoulli, p: 0.2}, hello: {period: 500ms}}
mobility: {model: random-waypoint, area: [600, 600], speed: [1, 15], pause: 1s}
protocol: {name: adhoc/vasudevan}
`},
		{name: "crash-recovery", yaml: `
name: crash
duration: 20s
nodes: {count: 6, placement: grid}
radio: {range: 250, loss: {model: bernoulli, p: 0.1}}
mobility: {model: static, area: [400, 300]}
protocol: {name: bully/garcia-molina}
faults: [{at: 5s, crash: [6]}, {at: 12s, recover: [6]}]
`},
		{name: "unicast-gilbert", yaml: `
name: gilbert
duration: 15s
nodes: {count: 5}
radio: {range: 250, loss: {model: gilbert-elliott, good_to_bad: 0.1, bad_to_good: 0.3}}
mobility: {model: static, area: [200, 200]}
protocol: {name: adhoc/vasudevan}
`},
		{name: "ring-chang-roberts", file: "ring-chang-roberts.yaml", sets: []string{"duration=10s"}},
		{name: "mutex-ricart-agrawala", file: "mutex-ricart-agrawala.yaml", sets: []string{"duration=12s"}},

		// AODV: routes found on demand, data acknowledged hop by hop.
		{name: "aodv-ring-chang-roberts", file: "ring-chang-roberts.yaml", sets: []string{"duration=10s", "routing.protocol=aodv"}, aodv: true},
		{name: "aodv-grid-ring", yaml: `
name: aodv-grid
duration: 15s
nodes: {count: 9, placement: grid, values: id}
radio: {range: 150}
mobility: {model: static, area: [400, 400]}
routing: {protocol: aodv}
protocol: {name: ring/chang-roberts, params: {ring: random, initiators: all}}
`, aodv: true, multiHop: true},
		{name: "aodv-mutex-ricart-agrawala", file: "mutex-ricart-agrawala.yaml", sets: []string{"duration=12s", "routing.protocol=aodv"}, aodv: true},
		{name: "aodv-moving-lossy", yaml: `
name: aodv-moving
duration: 30s
nodes: {count: 10}
radio: {range: 200, loss: {model: bernoulli, p: 0.1}, hello: {period: 500ms}}
mobility: {model: random-waypoint, area: [600, 600], speed: [2, 15], pause: 1s}
routing: {protocol: aodv}
protocol: {name: bully/garcia-molina}
`, aodv: true, multiHop: true, rerr: true},

		// The DCF medium (radio.mac dcf): carrier sense, backoff,
		// collisions and half duplex decided at each receiver from the
		// frames' air sections, exactly as the simulator decides them.
		{name: "dcf-beacons", yaml: `
name: dcf-beacons
duration: 3s
nodes: {count: 20, placement: uniform}
mobility: {model: static, area: [50, 50]}
radio: {propagation: log-distance, exponent: 3, tx_power: 20, range: 250, mac: dcf, hello: {period: 500ms}}
protocol: {name: traffic/beacon, params: {start: 1s, spread: 10ms, size: 38, count: 3, period: 300ms}}
`, collisions: true},
		{name: "dcf-unit-disk-aodv-crash", yaml: `
name: dcf-aodv
duration: 15s
nodes: {count: 10}
radio: {range: 200, mac: dcf, dcf: {cs_range: 300, interference_range: 260}, loss: {model: bernoulli, p: 0.05}, hello: {period: 300ms}}
mobility: {model: random-waypoint, area: [500, 500], speed: [2, 15], pause: 1s}
routing: {protocol: aodv}
protocol: {name: bully/garcia-molina}
faults: [{at: 5s, crash: [10]}, {at: 9s, recover: [10]}]
`, aodv: true, multiHop: true},
		// AODV as ns-3 runs it: hellos (the wire's aodv-hello frames),
		// jitter, gratuitous replies, on the DCF medium with a crash.
		{name: "dcf-aodv-ns3-preset", yaml: `
name: dcf-aodv-ns3
duration: 15s
nodes: {count: 10}
radio: {range: 200, mac: dcf, dcf: {idle_backoff: true}}
mobility: {model: random-waypoint, area: [500, 500], speed: [2, 15], pause: 1s, start: steady-state}
routing: {protocol: aodv, aodv: {preset: ns-3.37}}
protocol: {name: bully/garcia-molina}
faults: [{at: 5s, crash: [10]}, {at: 9s, recover: [10]}]
`, aodv: true, multiHop: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s *scenario.Scenario
			if c.file != "" {
				var err error
				if s, err = scenario.Load(filepath.Join("..", "configs", c.file), c.sets); err != nil {
					t.Fatal(err)
				}
			} else {
				s = parse(t, c.yaml, c.sets...)
			}
			simDir, nodeDir := t.TempDir(), t.TempDir()
			if _, err := sim.Run(s, sim.Options{Out: simDir}); err != nil {
				t.Fatal(err)
			}
			res := runVirtualHost(t, s, nodeDir)
			total, kinds, maxHops := 0, map[string]int{}, 0
			for _, id := range s.MemberIDs() {
				want, got := readLinkLines(t, simDir, id), readLinkLines(t, nodeDir, id)
				for i := range min(len(want), len(got)) {
					if want[i] != got[i] {
						t.Fatalf("node %d, link event %d:\n sim:  %s\n node: %s\n(%d and %d events)", id, i, want[i], got[i], len(want), len(got))
					}
				}
				if len(want) != len(got) {
					t.Fatalf("node %d: sim wrote %d link events, node %d", id, len(want), len(got))
				}
				total += len(want)
				for _, l := range want {
					kinds[fieldEv(l)]++
					if ev := fieldEv(l); ev == trace.EvRecv || ev == trace.EvRelay {
						maxHops = max(maxHops, fieldHops(l))
					}
				}
			}
			for _, f := range s.Faults {
				for _, id := range f.Recover {
					var after int
					for _, l := range readLinkLines(t, nodeDir, id) {
						var at int64
						fmt.Sscanf(l, "t=%d", &at)
						if at > int64(f.At.D()) {
							after++
						}
					}
					if after == 0 {
						t.Fatalf("node %d has no link event after its recovery at %s", id, f.At)
					}
				}
			}
			t.Logf("%d link events alike at %d nodes: %v, messages relayed or received over up to %d hops; node stats %s", total, len(s.MemberIDs()), kinds, maxHops, res.Stats)
			if total == 0 || kinds[trace.EvRecv] == 0 || kinds[trace.EvNbrUp] == 0 {
				t.Fatalf("too little happened to compare: %v", kinds)
			}
			if c.aodv && (kinds[trace.EvRREQ] == 0 || kinds[trace.EvRREP] == 0 || kinds[trace.EvAck] == 0) {
				t.Fatalf("no route discovery to compare: %v", kinds)
			}
			if c.multiHop && (kinds[trace.EvRelay] == 0 || maxHops < 2) {
				t.Fatalf("no message relayed on a route: %v", kinds)
			}
			if c.rerr && kinds[trace.EvRERR] == 0 {
				t.Fatalf("no route error to compare: %v", kinds)
			}
			if c.collisions && res.Stats.Rejected["collision"] == 0 {
				t.Fatalf("no collision to compare: node stats %s", res.Stats)
			}
		})
	}
}

// fieldHops is the hops of a linkLine.
func fieldHops(l string) int {
	var h int
	if i := strings.Index(l, " hops="); i >= 0 {
		fmt.Sscanf(l[i:], " hops=%d", &h)
	}
	return h
}

// fieldEv is the event type of a linkLine.
func fieldEv(l string) string {
	var t int64
	var ev string
	fmt.Sscanf(l, "t=%d %s", &t, &ev)
	return ev
}
