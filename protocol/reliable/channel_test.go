package reliable

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

func newChan(id protocol.NodeID, now time.Duration, cfg Config) (*Channel[msg], *fakeEnv) {
	env := &fakeEnv{now: now}
	c := New[msg](env, id, cfg)
	c.Start()
	return c, env
}

// step passes ev to c and fails the test if c does not claim it.
func step(t *testing.T, c *Channel[msg], ev protocol.Event) Output[msg] {
	t.Helper()
	out, ok := c.Step(ev)
	if !ok {
		t.Fatalf("channel did not claim %#v", ev)
	}
	return out
}

func data(f frame) Data[msg] { return f.m.(Data[msg]) }

func ns(out Output[msg]) []int {
	var got []int
	for _, d := range out.Delivered {
		got = append(got, d.Msg.N)
	}
	return got
}

func TestKinds(t *testing.T) {
	first := Data[msg]{Seq: 1, Msg: msg{1}}
	retx := Data[msg]{Seq: 1, Retx: true, Msg: msg{1}}
	if first.Kind() != "msg" || retx.Kind() != "transport-retx" || (Ack{}).Kind() != "transport-ack" {
		t.Fatalf("kinds %q %q %q", first.Kind(), retx.Kind(), Ack{}.Kind())
	}
	if !protocol.IsTransport(retx.Kind()) || !protocol.IsTransport(Ack{}.Kind()) || protocol.IsTransport(first.Kind()) {
		t.Fatal("IsTransport must hold for acks and retransmissions only")
	}
	if got := Messages[msg](); !reflect.DeepEqual(got, []protocol.Message{Data[msg]{}, Ack{}}) {
		t.Fatalf("Messages: %#v", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "concrete") {
			t.Fatalf("Messages of an interface type: %v", r)
		}
	}()
	Messages[protocol.Message]()
}

func TestFirstSendAndRetransmissionsAreMarked(t *testing.T) {
	c, env := newChan(1, 0, Config{})
	c.Send(2, msg{7})
	f := env.take()
	if len(f) != 1 || f[0].to != 2 || f[0].m.Kind() != "msg" {
		t.Fatalf("first send: %#v", f)
	}
	if d := data(f[0]); d.Retx || d.Seq != 1 || d.Conn != 1 || d.Base != 1 || d.Msg.N != 7 {
		t.Fatalf("first frame %+v", d)
	}
	to, _ := env.fire()
	step(t, c, to)
	f = env.take()
	if len(f) != 1 || !data(f[0]).Retx || f[0].m.Kind() != KindRetx || data(f[0]).Seq != 1 {
		t.Fatalf("retransmission: %#v", f)
	}
}

func TestCumulativeAcks(t *testing.T) {
	c, env := newChan(1, 5*time.Second, Config{})
	inc := uint64(5 * time.Second)
	for i := 1; i <= 3; i++ {
		c.Send(2, msg{i})
	}
	if f := env.take(); len(f) != 3 || data(f[2]).Seq != 3 || data(f[2]).Inc != inc {
		t.Fatalf("sent %#v", f)
	}
	if len(env.timers) != 1 || env.timers[0].after != 200*time.Millisecond || env.timers[0].name != "reliable" || env.timers[0].arg != 2 {
		t.Fatalf("one timer for peer 2: %+v", env.timers)
	}
	// One ack covers 1 and 2; the timer restarts for 3.
	step(t, c, protocol.Receive{From: 2, Msg: Ack{Chan: DefaultTimer, Inc: inc, Conn: 1, Seq: 2}})
	if c.Unacked(2) != 1 || len(env.timers) != 1 || env.timers[0].id == 1 {
		t.Fatalf("after ack 2: %d unacked, timers %+v", c.Unacked(2), env.timers)
	}
	to, _ := env.fire()
	step(t, c, to)
	if f := env.take(); len(f) != 1 || data(f[0]).Seq != 3 || data(f[0]).Base != 3 || !data(f[0]).Retx {
		t.Fatalf("retransmitted %#v, want only 3", f)
	}
	// Another channel's ack (a composed protocol's) is not this channel's.
	if _, ok := c.Step(protocol.Receive{From: 2, Msg: Ack{Chan: "other", Inc: inc, Conn: 1, Seq: 3}}); ok || c.Unacked(2) != 1 {
		t.Fatalf("channel took another channel's ack")
	}
	// Stale, foreign-session and never-sent acks change nothing.
	for _, a := range []Ack{{DefaultTimer, inc, 1, 1}, {DefaultTimer, inc - 1, 1, 3}, {DefaultTimer, inc, 2, 3}, {DefaultTimer, inc, 1, 4}} {
		step(t, c, protocol.Receive{From: 2, Msg: a})
		if c.Unacked(2) != 1 {
			t.Fatalf("ack %+v acknowledged something", a)
		}
	}
	step(t, c, protocol.Receive{From: 2, Msg: Ack{Chan: DefaultTimer, Inc: inc, Conn: 1, Seq: 3}})
	if c.Unacked(2) != 0 || len(env.timers) != 0 {
		t.Fatalf("all acknowledged: %d unacked, timers %+v", c.Unacked(2), env.timers)
	}
}

func TestReceiverDeliversInOrderOnceAndAcksEverything(t *testing.T) {
	r, env := newChan(2, 0, Config{})
	d := func(seq uint32) protocol.Receive {
		return protocol.Receive{From: 1, Msg: Data[msg]{Inc: 9, Conn: 1, Seq: seq, Base: 1, Msg: msg{int(seq)}}}
	}
	for _, c := range []struct {
		seq     uint32
		deliver []int
		ack     uint32
	}{
		{1, []int{1}, 1},
		{3, nil, 1},            // early: held
		{1, nil, 1},            // duplicate: acked again
		{4, nil, 1},            // early
		{2, []int{2, 3, 4}, 4}, // fills the gap
		{3, nil, 4},
	} {
		out := step(t, r, d(c.seq))
		if !reflect.DeepEqual(ns(out), c.deliver) {
			t.Fatalf("seq %d delivered %v, want %v", c.seq, ns(out), c.deliver)
		}
		f := env.take()
		if len(f) != 1 || f[0].to != 1 || f[0].m != (Ack{Chan: DefaultTimer, Inc: 9, Conn: 1, Seq: c.ack}) {
			t.Fatalf("seq %d: acks %#v, want cumulative %d", c.seq, f, c.ack)
		}
	}
}

func TestReceiverHoldsAtMostWindowAhead(t *testing.T) {
	r, _ := newChan(2, 0, Config{})
	d := func(seq uint32) protocol.Receive {
		return protocol.Receive{From: 1, Msg: Data[msg]{Inc: 9, Conn: 1, Seq: seq, Base: 1, Msg: msg{int(seq)}}}
	}
	step(t, r, d(1+Window))   // next is 1: too far ahead, dropped
	step(t, r, d(1+Window-1)) // the last one held
	var got []int
	for seq := uint32(1); seq < Window; seq++ {
		got = append(got, ns(step(t, r, d(seq)))...)
	}
	if len(got) != Window || got[Window-1] != Window {
		t.Fatalf("delivered %d, last %d; want 1..%d", len(got), got[len(got)-1], Window)
	}
}

func TestSenderKeepsAtMostWindowInFlight(t *testing.T) {
	c, env := newChan(1, 0, Config{})
	for i := 1; i <= Window+10; i++ {
		c.Send(2, msg{i})
	}
	if n := len(env.take()); n != Window {
		t.Fatalf("%d frames in flight, want %d", n, Window)
	}
	step(t, c, protocol.Receive{From: 2, Msg: Ack{Chan: DefaultTimer, Conn: 1, Seq: 4}})
	f := env.take()
	if len(f) != 4 || data(f[0]).Seq != Window+1 || data(f[0]).Retx {
		t.Fatalf("after ack 4: %d frames, first %+v", len(f), f[0].m)
	}
}

func TestUnreachableAfterRetriesWithBackoff(t *testing.T) {
	c, env := newChan(1, 0, Config{})
	c.Send(3, msg{1})
	c.Send(3, msg{2})
	env.take()
	var schedule []time.Duration
	var failures []Failure[msg]
	retx := 0
	for {
		if len(env.timers) == 1 {
			schedule = append(schedule, env.timers[0].after)
		}
		to, ok := env.fire()
		if !ok {
			break
		}
		out := step(t, c, to)
		failures = append(failures, out.Unreachable...)
		for _, f := range env.take() {
			if d := data(f); !d.Retx || f.to != 3 {
				t.Fatalf("timer sent %+v", d)
			}
			retx++
		}
	}
	ms := time.Millisecond
	if want := []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms}; !reflect.DeepEqual(schedule, want) {
		t.Fatalf("backoff %v, want %v", schedule, want)
	}
	if retx != 2*DefaultRetries {
		t.Fatalf("%d retransmissions, want %d of each message", retx, DefaultRetries)
	}
	if env.now != 12600*ms {
		t.Fatalf("declared unreachable at %v, want 12.6s", env.now)
	}
	if want := []Failure[msg]{{Peer: 3, Unacked: []msg{{1}, {2}}}}; !reflect.DeepEqual(failures, want) {
		t.Fatalf("failures %+v, want %+v", failures, want)
	}
	if c.Unacked(3) != 0 || len(env.timers) != 0 {
		t.Fatal("the session did not end")
	}
	// The next send opens session 2 from Seq 1.
	c.Send(3, msg{3})
	if d := data(env.take()[0]); d.Conn != 2 || d.Seq != 1 || d.Base != 1 || d.Retx {
		t.Fatalf("after unreachable: %+v, want Conn 2 Seq 1", d)
	}
}

func TestNoRetriesDeclaresAtFirstTimeout(t *testing.T) {
	c, env := newChan(1, 0, Config{Retries: NoRetries, Timeout: time.Second, Timer: "rc"})
	c.Send(2, msg{1})
	env.take()
	to, _ := env.fire()
	if to.Name != "rc" || env.now != time.Second {
		t.Fatalf("timer %+v at %v", to, env.now)
	}
	if out := step(t, c, to); len(out.Unreachable) != 1 || len(env.take()) != 0 {
		t.Fatalf("out %+v", out)
	}
}

func TestStaleTimerIsIgnored(t *testing.T) {
	c, env := newChan(1, 0, Config{})
	c.Send(2, msg{1})
	env.take()
	stale := protocol.Timeout{ID: 99, Name: "reliable", Arg: 2}
	if out := step(t, c, stale); len(out.Unreachable) != 0 || len(env.take()) != 0 {
		t.Fatal("a timer the channel did not set retransmitted")
	}
}

func TestReceiverAcceptsANewSessionAndDropsTheOld(t *testing.T) {
	s, senv := newChan(1, 0, Config{Retries: 1})
	r, renv := newChan(2, 0, Config{})
	pump := func() (delivered []int) { // one round trip, no loss
		for _, f := range senv.take() {
			delivered = append(delivered, ns(step(t, r, protocol.Receive{From: 1, Msg: f.m}))...)
		}
		for _, f := range renv.take() {
			step(t, s, protocol.Receive{From: 2, Msg: f.m})
		}
		return delivered
	}
	s.Send(2, msg{1})
	pump()
	s.Send(2, msg{2})
	lost := senv.take() // Conn 1 Seq 2, lost
	for range 2 {
		to, _ := senv.fire()
		step(t, s, to)
		senv.take()
	}
	s.Send(2, msg{3})
	if got := pump(); !reflect.DeepEqual(got, []int{3}) {
		t.Fatalf("new session delivered %v, want [3]", got)
	}
	// The old session's frame arrives late: not delivered, not acked.
	if out := step(t, r, protocol.Receive{From: 1, Msg: lost[0].m}); len(out.Delivered) != 0 || len(renv.take()) != 0 {
		t.Fatalf("a frame of the old session was delivered or acked: %+v", out)
	}
}

func TestRecoveredSenderIsAcceptedAndItsPastIgnored(t *testing.T) {
	r, renv := newChan(2, 0, Config{})
	old, oenv := newChan(1, 0, Config{})
	for i := 1; i <= 3; i++ {
		old.Send(2, msg{i})
	}
	frames := oenv.take()
	step(t, r, protocol.Receive{From: 1, Msg: frames[0].m})
	// Node 1 crashes and recovers at 5s: a fresh channel, Inc 5e9.
	fresh, fenv := newChan(1, 5*time.Second, Config{})
	fresh.Send(2, msg{10})
	f := fenv.take()
	if d := data(f[0]); d.Inc != uint64(5*time.Second) || d.Seq != 1 {
		t.Fatalf("recovered sender sent %+v", d)
	}
	if got := ns(step(t, r, protocol.Receive{From: 1, Msg: f[0].m})); !reflect.DeepEqual(got, []int{10}) {
		t.Fatalf("recovered sender's message: delivered %v", got)
	}
	renv.take()
	// Frames of the crashed incarnation still in the air are dropped unacked.
	for _, f := range frames[1:] {
		if out := step(t, r, protocol.Receive{From: 1, Msg: f.m}); len(out.Delivered) != 0 {
			t.Fatalf("stale incarnation delivered %v", ns(out))
		}
	}
	if a := renv.take(); len(a) != 0 {
		t.Fatalf("stale incarnation acked: %#v", a)
	}
}

func TestRecoveredReceiverPicksUpAtTheUnacknowledged(t *testing.T) {
	s, senv := newChan(1, 0, Config{})
	r, renv := newChan(2, 0, Config{})
	s.Send(2, msg{1})
	step(t, r, protocol.Receive{From: 1, Msg: senv.take()[0].m})
	step(t, s, protocol.Receive{From: 2, Msg: renv.take()[0].m})
	// Node 2 crashes and recovers knowing nothing; 1 keeps its session.
	r, renv = newChan(2, 3*time.Second, Config{})
	s.Send(2, msg{2})
	s.Send(2, msg{3})
	f := senv.take()
	if out := step(t, r, protocol.Receive{From: 1, Msg: f[1].m}); len(out.Delivered) != 0 {
		t.Fatalf("Seq 3 before 2 delivered %v", ns(out))
	}
	if got := ns(step(t, r, protocol.Receive{From: 1, Msg: f[0].m})); !reflect.DeepEqual(got, []int{2, 3}) {
		t.Fatalf("recovered receiver delivered %v, want [2 3]", got)
	}
	acks := renv.take()
	step(t, s, protocol.Receive{From: 2, Msg: acks[len(acks)-1].m})
	if s.Unacked(2) != 0 {
		t.Fatal("the recovered receiver's ack was not taken")
	}
}

func TestForeignEventsAreNotClaimed(t *testing.T) {
	c, env := newChan(1, 0, Config{Timer: "rc"})
	for _, ev := range []protocol.Event{
		protocol.Start{},
		protocol.Receive{From: 2, Msg: other{}},
		protocol.Receive{From: 2, Msg: Data[other]{Seq: 1}},
		protocol.Timeout{ID: 1, Name: "reliable", Arg: 2},
		protocol.Timeout{ID: 1, Name: "tick"},
		protocol.NeighborUp{ID: 2},
		protocol.Command{Name: protocol.Elect},
	} {
		if out, ok := c.Step(ev); ok || len(out.Delivered)+len(out.Unreachable) != 0 {
			t.Errorf("%#v claimed", ev)
		}
	}
	if len(env.frames) != 0 {
		t.Fatal("a foreign event made the channel send")
	}
}

func TestSendToSelfPanics(t *testing.T) {
	c, _ := newChan(1, 0, Config{})
	defer func() {
		if recover() == nil {
			t.Fatal("sending to self did not panic")
		}
	}()
	c.Send(1, msg{1})
}

// TestFirstWaitAddsRouteDelay: with Config.RouteDelay (AODV's wait for a
// route), the first wait of a transmission is rto + RouteDelay and the
// retransmissions after it double from rto as before; the channel gives up
// RouteDelay later than without it. After an acknowledgement, the next
// message's first wait is rto + RouteDelay again.
func TestFirstWaitAddsRouteDelay(t *testing.T) {
	ms := time.Millisecond
	cfg := Config{Retries: 2, RouteDelay: 1920 * ms}
	c, env := newChan(1, 0, cfg)
	c.Send(3, msg{1})
	env.take()
	var schedule []time.Duration
	for {
		if len(env.timers) == 1 {
			schedule = append(schedule, env.timers[0].after)
		}
		to, ok := env.fire()
		if !ok {
			break
		}
		step(t, c, to)
		env.take()
	}
	if want := []time.Duration{2120 * ms, 400 * ms, 800 * ms}; !reflect.DeepEqual(schedule, want) {
		t.Fatalf("backoff %v, want %v", schedule, want)
	}
	if env.now != cfg.GiveUp() || cfg.GiveUp() != 3320*ms || cfg.FirstWait() != 2120*ms {
		t.Fatalf("declared unreachable at %v; GiveUp %v, FirstWait %v, want 3.32s and 2.12s", env.now, cfg.GiveUp(), cfg.FirstWait())
	}
	c.Send(2, msg{2})
	env.take()
	step(t, c, protocol.Receive{From: 2, Msg: Ack{Chan: DefaultTimer, Conn: 1, Seq: 1}})
	c.Send(2, msg{3})
	env.take()
	if len(env.timers) != 1 || env.timers[0].after != 2120*ms {
		t.Fatalf("timers after an ack and a new message: %+v, want one of 2.12s", env.timers)
	}
}
