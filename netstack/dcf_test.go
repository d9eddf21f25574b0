package netstack

import (
	"slices"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/trace"
)

// air is a test medium for the DCF model: nodes with a fixed power
// matrix, stacks driven in virtual time, every event recorded.

type testMsg struct{ N int }

func (testMsg) Kind() string { return "m" }

type event struct {
	at  time.Duration
	seq int
	fn  func()
}

type bench struct {
	t      *testing.T
	now    time.Duration
	seq    int
	q      []event
	stacks []*Stack
	power  [][]float64 // mW from i at j; 0: out of range
	txs    [][]time.Duration
	traces [][]trace.Event
	got    [][]protocol.Receive
	id     uint64
	lag    map[int]time.Duration // frames from a node reach the others this much later
}

type benchDriver struct {
	b *bench
	i int
}

func (d *benchDriver) Now() time.Duration { return d.b.now }
func (d *benchDriver) Encode(f *Frame) bool {
	f.Bytes = 52
	return true
}
func (d *benchDriver) Decode(*Frame) bool { return true }
func (d *benchDriver) Up(ev protocol.Event) {
	if r, ok := ev.(protocol.Receive); ok {
		d.b.got[d.i] = append(d.b.got[d.i], r)
	}
}
func (d *benchDriver) SetTimer(after time.Duration, t Timer) {
	s := d.b.stacks[d.i]
	d.b.at(d.b.now+after, func() { s.Timer(t) })
}
func (d *benchDriver) Trace(ev *trace.Event) { d.b.traces[d.i] = append(d.b.traces[d.i], *ev) }
func (d *benchDriver) Transmit(f *Frame) {
	b := d.b
	b.txs[d.i] = append(b.txs[d.i], b.now)
	c := *f
	b.id++
	lag := b.lag[d.i]
	id, start, end := b.id, b.now+SignalDelay+lag, b.now+SignalDelay+lag+f.Airtime
	for j, s := range b.stacks {
		if p := b.power[d.i][j]; j != d.i && p > 0 {
			b.at(start, func() {
				s.SignalStart(Signal{ID: id, Frame: &c, End: end, Power: p, Sensed: true, Outcome: Received})
			})
			b.at(end, func() { s.SignalEnd(id) })
		}
	}
}

func (b *bench) at(t time.Duration, fn func()) {
	b.seq++
	b.q = append(b.q, event{t, b.seq, fn})
}

// run runs every event due until end.
func (b *bench) run(end time.Duration) {
	for len(b.q) > 0 {
		i := 0
		for k, e := range b.q {
			if e.at < b.q[i].at || e.at == b.q[i].at && e.seq < b.q[i].seq {
				i = k
			}
		}
		e := b.q[i]
		if e.at > end {
			return
		}
		b.q = slices.Delete(b.q, i, i+1)
		b.now = e.at
		e.fn()
	}
}

// newBench makes n nodes that all hear each other at 1 mW unless power
// says otherwise; dcf adjusts the model's constants.
func newBench(t *testing.T, n int, dcf func(*radio.DCFConfig)) *bench {
	ids := make([]protocol.NodeID, n)
	for i := range ids {
		ids[i] = protocol.NodeID(i + 1)
	}
	cfg := NewConfig(ids, 1000*time.Second, 3500*time.Second, 2*time.Millisecond, false)
	rc := radio.Config{MAC: radio.MACDCF}
	rc.Defaults()
	if dcf != nil {
		dcf(&rc.DCF)
	}
	if err := rc.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg.MAC = NewDCF(rc.DCF)
	b := &bench{t: t, stacks: make([]*Stack, n), txs: make([][]time.Duration, n),
		traces: make([][]trace.Event, n), got: make([][]protocol.Receive, n)}
	for i := range n {
		b.stacks[i] = new(Stack)
		b.stacks[i].Init(cfg, int32(i), &benchDriver{b, i}, Source(1, StackStream, ids[i], 1), 0)
		b.power = append(b.power, make([]float64, n))
		for j := range n {
			b.power[i][j] = 1
		}
	}
	return b
}

// drops lists node i's drop reasons.
func (b *bench) drops(i int) []string {
	var r []string
	for _, e := range b.traces[i] {
		if e.Ev == trace.EvDrop {
			r = append(r, e.Reason)
		}
	}
	return r
}

func (b *bench) broadcastAt(i int, at time.Duration, n int) {
	b.at(at, func() { b.stacks[i].Broadcast(testMsg{n}) })
}

// Two frames that start within the preamble window of each other are
// both lost at a third node; their senders hear nothing (half duplex).
// Started further apart at equal power, the first is kept (0 dB is above
// 1 Mbps's threshold) and the second is lost; a frame 10 dB stronger
// than the other is kept even within the window.
func TestDCFCollisions(t *testing.T) {
	for _, c := range []struct {
		name   string
		gap    time.Duration
		powerB float64
		want   []int // beacons received at node 3
	}{
		{"same instant", 0, 1, nil},
		{"within the window", 3 * time.Microsecond, 1, nil},
		{"after the window", 10 * time.Microsecond, 1, []int{1}},
		{"a weak second frame", 2 * time.Microsecond, 0.1, []int{1}},
		{"a strong second frame", 2 * time.Microsecond, 10, []int{2}},
	} {
		b := newBench(t, 3, nil)
		// Nodes 1 and 2 cannot sense each other (hidden terminals).
		b.power[0][1], b.power[1][0] = 0, 0
		b.power[1][2] = c.powerB
		b.broadcastAt(0, time.Second, 1)
		b.broadcastAt(1, time.Second+c.gap, 2)
		b.run(2 * time.Second)
		var got []int
		for _, r := range b.got[2] {
			got = append(got, r.Msg.(testMsg).N)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: node 3 received %v, want %v (drops %v)", c.name, got, c.want, b.drops(2))
		}
		if len(got)+len(b.drops(2)) != 2 {
			t.Errorf("%s: node 3 received %v and dropped %v: every frame must be accounted for", c.name, got, b.drops(2))
		}
	}
	b := newBench(t, 3, nil)
	b.broadcastAt(0, time.Second, 1)
	b.broadcastAt(1, time.Second, 2)
	b.run(2 * time.Second)
	if d := b.drops(0); !slices.Equal(d, []string{"half-duplex"}) {
		t.Errorf("a sender hearing a frame while it transmits: drops %v, want [half-duplex]", d)
	}
}

// A frame queued while the medium is busy waits for its end, DIFS and a
// backoff; one queued at an idle medium goes DIFS later; the airtime of a
// 100-byte broadcast at 1 Mbps is 1280 µs (192 + 8·(100 + 36)).
func TestDCFCarrierSense(t *testing.T) {
	b := newBench(t, 3, nil)
	b.broadcastAt(0, time.Second, 1)
	b.broadcastAt(1, time.Second+500*time.Microsecond, 2)
	b.run(2 * time.Second)
	difs := 50 * time.Microsecond
	if b.txs[0][0] != time.Second+difs {
		t.Errorf("an idle medium: sent at %s, want %s (DIFS after)", b.txs[0][0], time.Second+difs)
	}
	aEnd := b.txs[0][0] + SignalDelay + 1280*time.Microsecond
	bStart := b.txs[1][0]
	if bStart < aEnd+difs || bStart > aEnd+difs+31*20*time.Microsecond {
		t.Errorf("a busy medium: sent at %s, want DIFS and 0-31 slots after %s", bStart, aEnd)
	}
	if (bStart-aEnd-difs)%(20*time.Microsecond) != 0 {
		t.Errorf("a busy medium: sent at %s, not on a slot boundary after %s + DIFS", bStart, aEnd)
	}
	if len(b.got[2]) != 2 {
		t.Errorf("node 3 received %d frames, want both", len(b.got[2]))
	}
}

// A unicast frame is acknowledged SIFS after it; one whose receiver is
// out of range is sent retry_limit times (802.11 counts attempts), then
// dropped "no-ack".
func TestDCFUnicast(t *testing.T) {
	b := newBench(t, 2, nil)
	b.at(time.Second, func() { b.stacks[0].Send(2, testMsg{1}) })
	b.run(2 * time.Second)
	if len(b.got[1]) != 1 || len(b.txs[0]) != 1 || len(b.txs[1]) != 1 {
		t.Fatalf("received %d, sent %d frames and %d acknowledgements; want 1, 1, 1", len(b.got[1]), len(b.txs[0]), len(b.txs[1]))
	}
	if want := b.txs[0][0] + SignalDelay + b.stacks[0].cfg.MAC.Airtime(&Frame{Type: Unicast, Bytes: 52}) + 10*time.Microsecond; b.txs[1][0] != want {
		t.Errorf("acknowledged at %s, want SIFS after the frame's end, %s", b.txs[1][0], want)
	}
	if d := b.drops(0); len(d) != 0 {
		t.Errorf("sender dropped %v", d)
	}

	b = newBench(t, 2, func(c *radio.DCFConfig) { r := 3; c.RetryLimit = &r })
	b.power[0][1] = 0
	b.at(time.Second, func() { b.stacks[0].Send(2, testMsg{1}) })
	b.at(time.Second, func() { b.stacks[0].Send(2, testMsg{2}) })
	b.run(3 * time.Second)
	if len(b.txs[0]) != 6 {
		t.Errorf("two frames to a node out of range: %d transmissions, want 2 x 3 attempts", len(b.txs[0]))
	}
	if d := b.drops(0); !slices.Equal(d, []string{"no-ack", "no-ack"}) {
		t.Errorf("drops %v, want two no-ack", d)
	}
	retx := 0
	for _, e := range b.traces[0] {
		if e.Ev == trace.EvRetx {
			retx++
		}
	}
	if retx != 4 {
		t.Errorf("%d retx events, want 4", retx)
	}
}

// The interface queue holds radio.dcf.queue frames; more are dropped.
func TestDCFQueue(t *testing.T) {
	b := newBench(t, 2, func(c *radio.DCFConfig) { c.Queue = 2 })
	for n := range 5 {
		b.broadcastAt(0, time.Second, n)
	}
	b.run(2 * time.Second)
	if d := b.drops(0); !slices.Equal(d, []string{"queue", "queue", "queue"}) {
		t.Errorf("drops %v, want three queue", d)
	}
	if len(b.got[1]) != 2 {
		t.Errorf("received %d, want the 2 queued", len(b.got[1]))
	}
}

// In real processes an acknowledgement may come after its wait, by the
// arrival lag: it still counts while its frame is the head, so the frame
// is not sent to the retry limit and dropped.
func TestDCFLateAck(t *testing.T) {
	b := newBench(t, 2, nil)
	b.lag = map[int]time.Duration{1: 2 * time.Millisecond}
	b.at(time.Second, func() { b.stacks[0].Send(2, testMsg{1}) })
	b.at(time.Second+100*time.Millisecond, func() { b.stacks[0].Send(2, testMsg{2}) })
	b.run(2 * time.Second)
	if d := b.drops(0); len(d) != 0 {
		t.Errorf("sender dropped %v", d)
	}
	if len(b.got[1]) != 2 {
		t.Errorf("received %d messages, want 2", len(b.got[1]))
	}
	// The acknowledgement comes 2 ms late: one to three retransmissions
	// a frame before it counts, far below the retry limit's 14 in all.
	if n := len(b.txs[0]); n < 4 || n > 8 {
		t.Errorf("%d transmissions, want 2 to 4 a frame", n)
	}
}

// The first frame of a life, sent at once on an idle medium, doubles the
// contention window from cw_min when it is not acknowledged: its first
// retransmission waits DIFS and 0 to 63 slots, not 0 or 1.
func TestDCFFirstRetryDoublesCWMin(t *testing.T) {
	waits := map[time.Duration]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		b := newBench(t, 2, func(c *radio.DCFConfig) { r := 2; c.RetryLimit = &r })
		b.stacks[0].rng = Source(seed, StackStream, 1, 1)
		b.power[0][1] = 0
		b.at(time.Second, func() { b.stacks[0].Send(2, testMsg{1}) })
		b.run(2 * time.Second)
		if len(b.txs[0]) != 2 {
			t.Fatalf("seed %d: %d transmissions, want 2", seed, len(b.txs[0]))
		}
		cfg := b.stacks[0].cfg.MAC
		first := b.txs[0][0] + cfg.Airtime(&Frame{Type: Unicast, Bytes: 52}) + cfg.ackWait + cfg.difs
		waits[(b.txs[0][1]-first)/cfg.Slot.D()] = true
	}
	if len(waits) < 10 {
		t.Errorf("the first retransmission waited %d distinct slot counts over 40 seeds, want a window of 64", len(waits))
	}
}

// TestDCFRTSCTS: with rts_threshold, a unicast goes after an RTS, its
// receiver's CTS SIFS later, the frame SIFS after the CTS and the
// acknowledgement SIFS after the frame; a node that hears only the CTS
// (hidden from the sender) keeps off the medium until the exchange's
// end (its NAV), then waits DIFS. An RTS never answered is sent
// retry_limit times, the frame itself never.
func TestDCFRTSCTS(t *testing.T) {
	b := newBench(t, 3, func(c *radio.DCFConfig) { c.RTSThreshold = 1 })
	b.power[0][2], b.power[2][0] = 0, 0
	m := b.stacks[0].cfg.MAC
	sifs, difs := 10*time.Microsecond, 50*time.Microsecond
	data := m.Airtime(&Frame{Type: Unicast, Bytes: 52})
	b.at(time.Second, func() { b.stacks[0].Send(2, testMsg{1}) })
	rts := time.Second + difs
	cts := rts + SignalDelay + 352*time.Microsecond + sifs
	frame := cts + SignalDelay + 304*time.Microsecond + sifs
	ack := frame + SignalDelay + data + sifs
	b.broadcastAt(2, frame, 7) // during the frame, heard by node 2's NAV only
	b.run(2 * time.Second)
	if !slices.Equal(b.txs[0], []time.Duration{rts, frame}) || len(b.txs[1]) != 2 || b.txs[1][0] != cts || b.txs[1][1] != ack {
		t.Fatalf("sender at %v, receiver at %v; want RTS %v and frame %v, CTS %v and ack %v", b.txs[0], b.txs[1], rts, frame, cts, ack)
	}
	if len(b.got[1]) != 2 || b.got[1][0].Msg != (testMsg{1}) || b.got[1][1].Msg != (testMsg{7}) {
		t.Errorf("received %v, want the unicast, then the hidden node's broadcast", b.got[1])
	}
	nav := cts + SignalDelay + 304*time.Microsecond + (3*sifs + 304*time.Microsecond + data + 304*time.Microsecond - sifs - 304*time.Microsecond)
	if len(b.txs[2]) != 1 || b.txs[2][0] < nav+difs {
		t.Errorf("the hidden node sent at %v, want after its NAV's end %v and DIFS", b.txs[2], nav)
	}

	b = newBench(t, 2, func(c *radio.DCFConfig) { r := 3; c.RetryLimit, c.RTSThreshold = &r, 1 })
	b.power[0][1] = 0
	b.at(time.Second, func() { b.stacks[0].Send(2, testMsg{1}) })
	b.run(3 * time.Second)
	if len(b.txs[0]) != 3 {
		t.Errorf("to a node out of range: %d transmissions, want 3 RTSs", len(b.txs[0]))
	}
	if d := b.drops(0); !slices.Equal(d, []string{"no-ack"}) {
		t.Errorf("drops %v, want one no-ack", d)
	}
}
