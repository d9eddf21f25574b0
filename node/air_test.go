package node

import (
	"strings"
	"testing"
	"time"

	"manetlab/netstack"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/traffic"
)

const airYAML = `
name: air
duration: 1s
nodes: {count: 3}
mobility: {model: static, area: [50, 50]}
radio: {propagation: log-distance, exponent: 3, tx_power: 20, range: 250, mac: %s, hello: {period: 1000s, timeout: 3500s}}
protocol: {name: traffic/beacon, params: {count: 0}}
`

// beaconFrame is a beacon from node 1 as its Host would send it, with
// the given air section, encoded for h's run.
func beaconFrame(t *testing.T, h *Host, seq uint64, air wire.Air) []byte {
	t.Helper()
	return beaconFrom(t, h, 1, seq, air)
}

// beaconFrom is a beacon from node from.
func beaconFrom(t *testing.T, h *Host, from protocol.NodeID, seq uint64, air wire.Air) []byte {
	t.Helper()
	code, body, err := h.codec.Encode(traffic.Beacon{N: 1, Pad: make([]byte, 38)})
	if err != nil {
		t.Fatal(err)
	}
	f := wire.Frame{Type: wire.TypeBroadcast, Run: h.runID, From: from, Seq: seq, Clock: wire.HLC{Wall: time.Now().UnixNano()},
		Code: code, Body: body, Air: air}
	b, err := f.AppendTo(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAirSectionChecked: on the DCF medium a frame must carry an air
// section with the airtime the scenario gives it, on the ideal medium
// none; a stamp further than AirSkew from the receiver's clock is judged
// by the frame's arrival, and the frame is still received.
func TestAirSectionChecked(t *testing.T) {
	h, err := startVirtual(Options{Scenario: parse(t, strings.Replace(airYAML, "%s", "dcf", 1)), IDs: []protocol.NodeID{2, 3}, Out: t.TempDir(), Run: "air", Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	var probe netstack.Frame
	code, body, _ := h.codec.Encode(traffic.Beacon{N: 1, Pad: make([]byte, 38)})
	probe.Type, probe.Code, probe.Body, probe.Bytes = netstack.Broadcast, code, body, len(body)
	airtime := h.net.MAC.Airtime(&probe)
	if airtime < time.Millisecond {
		t.Fatalf("a 100-byte frame at 1 Mbps takes %v", airtime)
	}
	h.virt.arrive(h, beaconFrame(t, h, 1, wire.Air{}))                                     // no air section
	h.virt.arrive(h, beaconFrame(t, h, 2, wire.Air{Start: 0, Airtime: airtime + 1}))       // not the scenario's airtime
	h.virt.arrive(h, beaconFrame(t, h, 3, wire.Air{Start: time.Second, Airtime: airtime})) // a second ahead: judged by arrival
	h.virt.at(100*time.Millisecond, func() {
		h.virt.arrive(h, beaconFrame(t, h, 4, wire.Air{Start: 100*time.Millisecond - 50*time.Microsecond, Airtime: airtime})) // 50 µs late: by its stamp
	})
	res, err := h.runVirtual()
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Rejected["air"] != 2 || st.Delivered != 4 || st.Air != 2 || st.AirSkewed != 1 {
		t.Fatalf("stats %s: want 2 air rejects, 2 frames on the air (1 skewed) delivered at both nodes", st)
	}

	h, err = startVirtual(Options{Scenario: parse(t, strings.Replace(airYAML, "%s", "ideal", 1)), IDs: []protocol.NodeID{2}, Out: t.TempDir(), Run: "air", Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	h.virt.arrive(h, beaconFrame(t, h, 1, wire.Air{Start: 0, Airtime: airtime}))
	h.virt.arrive(h, beaconFrame(t, h, 2, wire.Air{}))
	if res, err = h.runVirtual(); err != nil {
		t.Fatal(err)
	}
	if st := res.Stats; st.Rejected["air"] != 1 || st.Delivered != 1 || st.Air != 0 {
		t.Fatalf("ideal medium: stats %s, want the frame with an air section rejected, the other delivered", st)
	}
}

// TestAirJudgedByStamps: two frames stamped 2 µs apart, within the
// preamble-detection window, are both lost at the receiver although
// their datagrams arrive 50 µs apart; and a frame stamped while the
// receiver was transmitting is lost to half duplex although it arrives
// after the transmission; a frame told after one that started after it
// ended is judged all the same (it was left on the air, unjudged, when
// the preamble window counted from the later frame).
func TestAirJudgedByStamps(t *testing.T) {
	h, err := startVirtual(Options{Scenario: parse(t, strings.Replace(airYAML, "%s", "dcf", 1)), IDs: []protocol.NodeID{2}, Out: t.TempDir(), Run: "air", Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	code, body, _ := h.codec.Encode(traffic.Beacon{N: 1, Pad: make([]byte, 38)})
	probe := netstack.Frame{Type: netstack.Broadcast, Code: code, Body: body, Bytes: len(body)}
	airtime := h.net.MAC.Airtime(&probe)
	at := 200 * time.Millisecond
	h.virt.at(at, func() {
		h.virt.arrive(h, beaconFrom(t, h, 1, 1, wire.Air{Start: at - 100*time.Microsecond, Airtime: airtime}))
	})
	h.virt.at(at+50*time.Microsecond, func() {
		h.virt.arrive(h, beaconFrom(t, h, 3, 1, wire.Air{Start: at - 98*time.Microsecond, Airtime: airtime}))
	})
	// Node 2 sends a hello at 400 ms: its MAC puts it on the air a DIFS
	// later, for 832 µs; a beacon stamped 100 µs into it arrives after
	// it ended.
	tx := 400 * time.Millisecond
	h.virt.at(tx, func() { h.byID[2].stack.Timer(netstack.Timer{Kind: netstack.TimerHello}) })
	h.virt.at(tx+2*time.Millisecond, func() {
		h.virt.arrive(h, beaconFrom(t, h, 1, 2, wire.Air{Start: tx + 100*time.Microsecond, Airtime: airtime}))
	})
	// A frame told out of order: at 600 ms one starts, and a microsecond
	// later comes one that started 3 ms before and has already ended.
	// Both are judged, as overlapping (the receiver's model has no
	// history: what it is told late it takes as on the air with what is
	// on it now).
	late := 600 * time.Millisecond
	h.virt.at(late, func() {
		h.virt.arrive(h, beaconFrom(t, h, 1, 3, wire.Air{Start: late - time.Microsecond, Airtime: airtime}))
	})
	h.virt.at(late+time.Microsecond, func() {
		h.virt.arrive(h, beaconFrom(t, h, 3, 2, wire.Air{Start: late - 3*time.Millisecond, Airtime: airtime}))
	})
	res, err := h.runVirtual()
	if err != nil {
		t.Fatal(err)
	}
	if st := res.Stats; st.Rejected["collision"] != 4 || st.Rejected["half-duplex"] != 1 || st.Delivered != 0 || st.Sent != 1 {
		t.Fatalf("stats %s: want the first two frames lost to a collision, the third to half duplex, node 2's hello sent, the last two judged together", st)
	}
}

// TestAirLagQuantiles: the lag's median and 90th percentile, rounded up
// to a power of two microseconds.
func TestAirLagQuantiles(t *testing.T) {
	c := newCounters(nil)
	for range 5 {
		c.lag(30 * time.Microsecond) // bucket [16, 32)
	}
	for range 4 {
		c.lag(100 * time.Microsecond) // [64, 128)
	}
	c.lag(3 * time.Millisecond) // [2048, 4096)
	st := c.snapshot()
	if st.Air != 10 || st.AirLag != [2]time.Duration{32 * time.Microsecond, 128 * time.Microsecond} {
		t.Fatalf("air %d, lag %v", st.Air, st.AirLag)
	}
	if s := st.String(); !strings.Contains(s, " air-frames=10 air-skewed=0 air-lag-p50-us=32 air-lag-p90-us=128") {
		t.Fatalf("stats line %q", s)
	}
}

// TestWireBytes: the sizes the DCF medium's airtime counts
// (netstack.WireBytes) are the node's encodings, unsigned, without the
// air section.
func TestWireBytes(t *testing.T) {
	body := make([]byte, 31)
	un := []netstack.Unreachable{{Dest: 1, Seq: 2}, {Dest: 3, Seq: 4}}
	for typ := netstack.Type(1); int(typ) < len(wireTypes); typ++ {
		nf := netstack.Frame{Type: typ, Bytes: len(body), Unreachable: un}
		wf := wire.Frame{Type: wireTypes[typ], Body: body}
		if typ == netstack.RERR {
			for _, u := range un {
				wf.Unreachable = append(wf.Unreachable, wire.Unreachable(u))
			}
		}
		if !typ.HasBody() {
			nf.Bytes, wf.Body = 0, nil
		}
		if got, want := netstack.WireBytes(&nf), wf.Size(false); got != want {
			t.Errorf("%s: WireBytes %d, the encoding %d bytes", wf.Type, got, want)
		}
		wf.Air = wire.Air{Start: 1, Airtime: 1}
		if wf.Size(false) != netstack.WireBytes(&nf)+wire.AirSize {
			t.Errorf("%s: with an air section %d bytes", wf.Type, wf.Size(false))
		}
	}
}
