package baseline

import (
	"math/rand/v2"
	"testing"
	"time"

	"manetlab/protocol"
)

// fakeEnv records what a process does, with a clock the test moves.
type fakeEnv struct {
	now    time.Duration
	bcasts []protocol.Message
	notes  []protocol.Note
	timers int
	rng    *rand.Rand
}

func (e *fakeEnv) Now() time.Duration                        { return e.now }
func (e *fakeEnv) Send(protocol.NodeID, protocol.Message)    {}
func (e *fakeEnv) Broadcast(m protocol.Message)              { e.bcasts = append(e.bcasts, m) }
func (e *fakeEnv) Deliver(protocol.NodeID, protocol.Message) {}
func (e *fakeEnv) Flood(protocol.Message)                    {}
func (e *fakeEnv) SetTimer(time.Duration, string, int64) protocol.TimerID {
	e.timers++
	return protocol.TimerID(e.timers)
}
func (e *fakeEnv) CancelTimer(protocol.TimerID) {}
func (e *fakeEnv) Rand() *rand.Rand             { return e.rng }
func (e *fakeEnv) Note(n protocol.Note)         { e.notes = append(e.notes, n) }
func (e *fakeEnv) Logf(string, ...any)          {}

func newFlood(t *testing.T, id protocol.NodeID, value float64, params protocol.Params) (*FloodMax, *fakeEnv) {
	t.Helper()
	env := &fakeEnv{rng: rand.New(rand.NewPCG(1, uint64(id)))}
	p, err := NewFloodMax(protocol.Config{ID: id, Value: value, Params: params, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	p.Step(protocol.Start{})
	return p.(*FloodMax), env
}

func lastLeader(env *fakeEnv) protocol.NodeID { return env.notes[len(env.notes)-1].Leader }

func TestFloodMaxAdoptsBetterAndForwardsOnce(t *testing.T) {
	f, env := newFlood(t, 2, 10, nil)
	if lastLeader(env) != 2 || len(env.bcasts) != 1 {
		t.Fatalf("at start: leader %d, %d broadcasts", lastLeader(env), len(env.bcasts))
	}
	better := Announce{Leader: 7, Value: 20, Inc: 1, Seq: 3, TTL: 6 * time.Second}
	f.Step(protocol.Receive{From: 5, Msg: better})
	if lastLeader(env) != 7 || len(env.bcasts) != 2 {
		t.Fatalf("after a better announcement: leader %d, %d broadcasts", lastLeader(env), len(env.bcasts))
	}
	f.Step(protocol.Receive{From: 6, Msg: better}) // the same announcement again
	f.Step(protocol.Receive{From: 6, Msg: Announce{Leader: 4, Value: 15, Seq: 9, TTL: time.Second}})
	if len(env.bcasts) != 2 || lastLeader(env) != 7 {
		t.Fatalf("a duplicate or a worse announcement was forwarded or adopted: %d broadcasts", len(env.bcasts))
	}
	newer := better
	newer.Seq = 4
	f.Step(protocol.Receive{From: 6, Msg: newer})
	if len(env.bcasts) != 3 {
		t.Fatal("a newer announcement of the leader was not forwarded")
	}
	// Equal values: the higher ID wins.
	f.Step(protocol.Receive{From: 6, Msg: Announce{Leader: 9, Value: 20, Seq: 1, TTL: time.Second}})
	if lastLeader(env) != 9 {
		t.Fatalf("tie on value: leader %d, want 9", lastLeader(env))
	}
}

func TestFloodMaxForgetsADepartedLeader(t *testing.T) {
	f, env := newFlood(t, 2, 10, protocol.Params{"period": "1s", "lease": "3s"})
	f.Step(protocol.Receive{From: 5, Msg: Announce{Leader: 7, Value: 20, Seq: 1, TTL: 3 * time.Second}})
	for env.now = time.Second; env.now < 3*time.Second; env.now += time.Second {
		f.Step(protocol.Timeout{Name: "tick"})
		if lastLeader(env) != 7 {
			t.Fatalf("at %v, within the lease: leader %d", env.now, lastLeader(env))
		}
	}
	env.now = 3 * time.Second
	f.Step(protocol.Timeout{Name: "tick"})
	if lastLeader(env) != 2 {
		t.Fatalf("after the lease: leader %d, want itself", lastLeader(env))
	}
	// A stale re-advertisement carries only what is left of the lease.
	g, genv := newFlood(t, 3, 1, nil)
	genv.now = 10 * time.Second
	g.Step(protocol.Receive{From: 2, Msg: Announce{Leader: 7, Value: 20, Seq: 1, TTL: 500 * time.Millisecond}})
	genv.now += 600 * time.Millisecond
	g.Step(protocol.Timeout{Name: "tick"})
	if lastLeader(genv) != 3 {
		t.Fatalf("a re-advertised lease outlived its origin: leader %d", lastLeader(genv))
	}
}

func TestFloodMaxRejectsUnknownParams(t *testing.T) {
	_, err := NewFloodMax(protocol.Config{ID: 1, Params: protocol.Params{"perod": "1s"}, Env: &fakeEnv{}})
	if err == nil {
		t.Fatal("a misspelt parameter was accepted")
	}
}

// TestSettle: a lease and a period, from the parameters or their
// defaults; bad values give the defaults, other keys are ignored.
func TestSettle(t *testing.T) {
	for _, c := range []struct {
		params protocol.Params
		want   time.Duration
	}{
		{nil, 8 * time.Second},
		{protocol.Params{"period": "20s", "lease": "120s"}, 140 * time.Second},
		{protocol.Params{"period": "1s"}, 4 * time.Second},
		{protocol.Params{"period": "-1s", "other": 3}, 8 * time.Second},
	} {
		if got := Settle(c.params); got != c.want {
			t.Errorf("Settle(%v) = %v, want %v", c.params, got, c.want)
		}
	}
}
