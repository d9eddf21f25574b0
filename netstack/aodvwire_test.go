package netstack

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// recorder is a Driver that keeps what the stack transmits and traces.
type recorder struct {
	now    time.Duration
	frames []Frame
	events []trace.Event
	timers []Timer
}

func (r *recorder) Now() time.Duration { return r.now }
func (r *recorder) Transmit(f *Frame) {
	c := *f
	c.Unreachable = slices.Clone(f.Unreachable)
	r.frames = append(r.frames, c)
}
func (r *recorder) Encode(f *Frame) bool              { f.Bytes = 1; return true }
func (r *recorder) Decode(f *Frame) bool              { return true }
func (r *recorder) Up(protocol.Event)                 {}
func (r *recorder) SetTimer(_ time.Duration, t Timer) { r.timers = append(r.timers, t) }
func (r *recorder) Trace(ev *trace.Event)             { r.events = append(r.events, *ev) }
func (r *recorder) sent(t Type) (out []Frame) {
	for _, f := range r.frames {
		if f.Type == t {
			out = append(out, f)
		}
	}
	return out
}

// aodvStack is member 0 of n (IDs 1 to n) under AODV.
func aodvStack(n int) (*Stack, *recorder) {
	ids := make([]protocol.NodeID, n)
	for i := range ids {
		ids[i] = protocol.NodeID(i + 1)
	}
	cfg := NewConfig(ids, time.Second, 3*time.Second, time.Millisecond, false)
	cfg.Routing = RoutingAODV
	d := &recorder{now: time.Second}
	s := &Stack{}
	s.Init(cfg, 0, d, rand.New(rand.NewPCG(1, 2)), 0)
	return s, d
}

// An intermediate node's reply gives the rest of its route's lifetime,
// in whole milliseconds as the wire carries it.
func TestRREPLifetimeWholeMilliseconds(t *testing.T) {
	s, d := aodvStack(4)
	d.now = 1_234_567_891 * time.Nanosecond
	s.learn(3, 2, 2, 7, true, 2*time.Second+345_678*time.Nanosecond)
	d.now += 10*time.Millisecond + 1234*time.Nanosecond
	s.Heard(&Frame{Type: RREQ, From: 1, To: -1, Seq: 1, Origin: 1, OSeq: 1, OrigSeq: 1, Final: 4, TTL: 5}, Received)
	reps := d.sent(RREP)
	if len(reps) != 1 {
		t.Fatalf("%d replies, want 1: %+v", len(reps), d.frames)
	}
	want := (2*time.Second + 345_678*time.Nanosecond - 10*time.Millisecond - 1234*time.Nanosecond).Truncate(time.Millisecond)
	if got := reps[0].Lifetime; got != want || got%time.Millisecond != 0 {
		t.Errorf("reply lifetime %v, want %v", got, want)
	}
}

// A node losing more routes at once than a route error carries sends
// several, in destination order.
func TestRERRSplit(t *testing.T) {
	const n = 150
	s, d := aodvStack(n)
	for dest := int32(2); dest < n; dest++ {
		r := s.learn(dest, 1, 2, 1, true, time.Minute)
		addPrecursor(r, 2)
	}
	s.linkBroken(1)
	errs := d.sent(RERR)
	var got []Unreachable
	var sizes []int
	for _, f := range errs {
		sizes = append(sizes, len(f.Unreachable))
		got = append(got, f.Unreachable...)
	}
	if !slices.Equal(sizes, []int{64, 64, 20}) {
		t.Errorf("route errors of %v destinations, want [64 64 20]", sizes)
	}
	for i, u := range got {
		if u.Dest != protocol.NodeID(i+3) || u.Seq != 2 {
			t.Fatalf("destination %d: %+v, want node %d seq 2", i, u, i+3)
		}
	}
	var traced []int
	for _, e := range d.events {
		if e.Ev == trace.EvRERR {
			traced = append(traced, e.Hops)
		}
	}
	if !slices.Equal(traced, sizes) {
		t.Errorf("traced rerr events of %v destinations, sent %v", traced, sizes)
	}
}

// TestRouteDelay: the expanding ring's waits at RFC 3561's defaults, TTL
// 1, 3, 5 and 7: 2 · 40 ms · (TTL + 2) each, 1.92 s; none under flooding.
func TestRouteDelay(t *testing.T) {
	c := NewConfig([]protocol.NodeID{1, 2}, time.Second, 3*time.Second, 2*time.Millisecond, false)
	if d := c.RouteDelay(); d != 0 {
		t.Fatalf("flood: %v", d)
	}
	c.Routing = RoutingAODV
	if d := c.RouteDelay(); d != 1920*time.Millisecond {
		t.Fatalf("aodv: %v, want 1.92s", d)
	}
	c.AODV.TTLStart, c.AODV.TTLIncrement = 35, 35 // every try network-wide
	if d := c.RouteDelay(); d != 0 {
		t.Fatalf("aodv without a ring: %v, want 0", d)
	}
}

// TestRERRStale: with rerr_stale (ns-3's route errors) a route error
// over a route already invalid is passed on, and a lost neighbour's
// error lists every route through it, the neighbour's own included;
// without it (RFC 3561) only active routes with precursors count. Either
// way, with rerr_stale, an error whose precursors have no valid route
// stays unsent.
func TestRERRStale(t *testing.T) {
	setup := func(stale bool) (*Stack, *recorder) {
		s, d := aodvStack(5)
		s.cfg.AODV.RERRStale = stale
		s.learn(1, 1, 1, 1, true, time.Minute)                  // neighbour ID 2
		s.learn(2, 2, 1, 1, true, time.Minute)                  // precursor ID 3
		addPrecursor(s.learn(3, 1, 2, 5, true, time.Minute), 2) // ID 4 via ID 2
		s.invalidate(s.routing().routes[3])
		return s, d
	}
	heard := &Frame{Type: RERR, From: 1, To: -1, Seq: 9, Unreachable: []Unreachable{{Dest: 4, Seq: 6}}}
	for _, stale := range []bool{false, true} {
		s, d := setup(stale)
		f := *heard
		s.Heard(&f, Received)
		if n := len(d.sent(RERR)); n != map[bool]int{false: 0, true: 1}[stale] {
			t.Errorf("stale %v: %d route errors passed on over an invalid route", stale, n)
		}
		s, d = setup(stale)
		s.linkBroken(1)
		var got []protocol.NodeID
		for _, f := range d.sent(RERR) {
			for _, u := range f.Unreachable {
				got = append(got, u.Dest)
			}
		}
		if want := map[bool][]protocol.NodeID{false: nil, true: {2, 4}}[stale]; !slices.Equal(got, want) {
			t.Errorf("stale %v: link to ID 2 lost: errors list %v, want %v", stale, got, want)
		}
	}
	s, d := setup(true)
	s.invalidate(s.routing().routes[2]) // the precursor's route
	s.linkBroken(1)
	if n := len(d.sent(RERR)); n != 0 {
		t.Errorf("%d route errors sent with no precursor reachable", n)
	}
}
