package node

import (
	"reflect"
	"testing"
	"time"

	"manetlab/netstack"
	"manetlab/node/wire"
)

// TestStackFrameMapping sends a stack frame of every type through
// hostLink.Transmit and the wire, and reads it back with stackFrame: the
// stack sees what it sent (a route reply's lifetime in whole
// milliseconds, as the wire carries it).
func TestStackFrameMapping(t *testing.T) {
	if wire.MaxUnreachable != netstack.MaxUnreachable {
		t.Fatalf("a route error carries %d destinations on the wire, the stack sends %d", wire.MaxUnreachable, netstack.MaxUnreachable)
	}
	s := parse(t, `
name: mapping
duration: 1s
nodes: {count: 4}
radio: {range: 250}
mobility: {model: static, area: [100, 100]}
routing: {protocol: aodv}
protocol: {name: bully/garcia-molina}
`)
	h, err := startVirtual(Options{Scenario: s, IDs: s.MemberIDs(), Out: t.TempDir(), Run: "mapping", Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.runVirtual()
	sender := h.nodes[1]
	l := &hostLink{h: h, n: sender}
	body := []byte{0x80} // an empty msgpack map: not decoded here
	frames := []netstack.Frame{
		{Type: netstack.Hello, To: -1},
		{Type: netstack.Broadcast, To: -1, Code: 1, Body: body},
		{Type: netstack.Unicast, To: 2, Code: 1, Body: body},
		{Type: netstack.Ack, To: 2, AckSeq: 9},
		{Type: netstack.Flood, To: -1, Origin: 3, OSeq: 4, Hops: 2, HopLimit: 32, Final: 1, Code: 1, Body: body},
		{Type: netstack.Data, To: 2, Origin: 3, OSeq: 5, Hops: 1, HopLimit: 32, Final: h.members[0].ID, Code: 1, Body: body},
		{Type: netstack.RREQ, To: -1, Origin: 3, OSeq: 6, OrigSeq: 7, Final: h.members[2].ID, DestSeq: 8, Hops: 3, TTL: 4},
		{Type: netstack.RREP, To: 2, Origin: 0, Final: h.members[3].ID, DestSeq: 9, Hops: 2, Lifetime: 2*time.Second + 999_999*time.Nanosecond},
		// A destination outside the run goes through: the stack ignores it.
		{Type: netstack.RERR, To: -1, Unreachable: []netstack.Unreachable{{Dest: h.members[3].ID, Seq: 10}, {Dest: 99, Seq: 11}}},
	}
	for i, f := range frames {
		f.From, f.Seq = int32(sender.idx), uint64(100+i)
		if f.Type.HasBody() {
			f.Bytes = len(f.Body)
		}
		l.Transmit(&f)
		var rf rxFrame
		if err := wire.Decode(h.txbuf, nil, &rf.f); err != nil {
			t.Fatalf("%s: %v", f.Type, err)
		}
		if rf.f.Type != wireTypes[f.Type] || stackType(rf.f.Type) != f.Type {
			t.Errorf("%s: sent as wire type %s", f.Type, rf.f.Type)
		}
		h.stackFrame(&rf, sender.idx)
		want := f
		want.Lifetime = want.Lifetime.Truncate(time.Millisecond)
		if !reflect.DeepEqual(rf.nf, want) {
			t.Errorf("%s: the stack hears\n%+v\nit sent\n%+v", f.Type, rf.nf, want)
		}
	}
}

// TestReceiveRoutingOrigin: a route request, reply or routed data from an
// origin outside the scenario is refused as a flood's is (sender); a
// route error naming one is not.
func TestReceiveRoutingOrigin(t *testing.T) {
	s := parse(t, `
name: origin
duration: 1s
nodes: {count: 3}
radio: {range: 250}
mobility: {model: static, area: [100, 100]}
routing: {protocol: aodv}
protocol: {name: bully/garcia-molina}
`)
	h, err := startVirtual(Options{Scenario: s, IDs: s.MemberIDs(), Out: t.TempDir(), Run: "origin", Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.runVirtual()
	from, to := h.members[0].ID, h.members[1].ID
	clock := wire.NewClock(nil)
	frames := []wire.Frame{
		{Type: wire.TypeRREQ, Origin: 99, OriginSeq: 1, Final: to, TTL: 2},
		{Type: wire.TypeRREP, To: to, Origin: 99, Final: to, LifetimeMS: 1000},
		{Type: wire.TypeData, To: to, Origin: 99, OriginSeq: 1, HopLimit: 8, Final: to, Code: 1, Body: []byte{0x80}},
	}
	sender := h.cnt.rejected["sender"]
	for i, f := range frames {
		f.From, f.Seq, f.Clock = from, uint64(i+1), clock.Now()
		before := sender.Load()
		h.receive(&rxFrame{f: f})
		if sender.Load() != before+1 {
			t.Errorf("%s from origin 99: not refused as sender", f.Type)
		}
	}
	before := sender.Load()
	h.receive(&rxFrame{f: wire.Frame{Type: wire.TypeRERR, From: from, Seq: 10, Clock: clock.Now(),
		Unreachable: []wire.Unreachable{{Dest: 99, Seq: 1}, {Dest: to, Seq: 2}}}})
	if sender.Load() != before {
		t.Errorf("a route error naming a non-member was refused")
	}
}
