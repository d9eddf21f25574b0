package traffic

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

// env records what a generator does.
type env struct {
	now    time.Duration
	timers []time.Duration
	sent   []protocol.NodeID
}

func (e *env) Now() time.Duration                             { return e.now }
func (e *env) Send(protocol.NodeID, protocol.Message)         {}
func (e *env) Broadcast(protocol.Message)                     {}
func (e *env) Deliver(to protocol.NodeID, _ protocol.Message) { e.sent = append(e.sent, to) }
func (e *env) Flood(protocol.Message)                         {}
func (e *env) SetTimer(d time.Duration, _ string, _ int64) protocol.TimerID {
	e.timers = append(e.timers, d)
	return protocol.TimerID(len(e.timers))
}
func (e *env) CancelTimer(protocol.TimerID) {}
func (e *env) Rand() *rand.Rand             { return rand.New(rand.NewPCG(1, 2)) }
func (e *env) Note(protocol.Note)           {}
func (e *env) Logf(string, ...any)          {}

var members = []protocol.NodeID{1, 2, 3, 4}

func build(t *testing.T, id protocol.NodeID, params protocol.Params) (*CBR, *env, error) {
	t.Helper()
	e := &env{}
	p, err := New(protocol.Config{ID: id, Members: members, Params: params, Seed: 7, Env: e})
	if err != nil {
		return nil, e, err
	}
	return p.(*CBR), e, nil
}

func TestFlowsAndTimers(t *testing.T) {
	c, e, err := build(t, 2, protocol.Params{"flows": []any{[]any{2, 4}, []any{1, 3}, []any{2, 1}}, "interval": "250ms", "start": "2s"})
	if err != nil {
		t.Fatal(err)
	}
	c.Step(protocol.Start{})
	// Node 2 is the source of flows 0 and 2: two timers at start.
	if len(e.timers) != 2 || e.timers[0] != 2*time.Second || e.timers[1] != 2*time.Second {
		t.Fatalf("timers %v", e.timers)
	}
	e.now = 2 * time.Second
	c.Step(protocol.Timeout{Name: "send", Arg: 2})
	c.Step(protocol.Timeout{Name: "send", Arg: 0})
	if len(e.sent) != 2 || e.sent[0] != 1 || e.sent[1] != 4 || e.timers[2] != 250*time.Millisecond {
		t.Fatalf("sent %v, timers %v", e.sent, e.timers)
	}
	// The default: one flow from the lowest member to the highest.
	d, _, err := build(t, 1, nil)
	if err != nil || len(d.flows) != 1 || d.flows[0] != (Flow{1, 4}) {
		t.Fatalf("default flows %v, %v", d, err)
	}
}

func TestRandomFlowsAgreeAtEveryNode(t *testing.T) {
	a, _, err := build(t, 1, protocol.Params{"flows": "random 5", "phase": "random"})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := build(t, 3, protocol.Params{"flows": "random 5", "phase": "random"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.flows {
		if a.flows[i] != b.flows[i] || a.flows[i].From == a.flows[i].To || a.phase[i] != b.phase[i] {
			t.Fatalf("flow %d: %v/%v at two nodes, phases %v/%v", i, a.flows[i], b.flows[i], a.phase[i], b.phase[i])
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, c := range []struct {
		params protocol.Params
		want   string
	}{
		{protocol.Params{"flows": []any{[]any{1, 9}}}, "not a member"},
		{protocol.Params{"flows": []any{[]any{2, 2}}}, "both 2"},
		{protocol.Params{"flows": "random zero"}, "random N"},
		{protocol.Params{"flows": []any{}}, "empty"},
		{protocol.Params{"interval": "0s"}, "interval"},
		{protocol.Params{"start": "5s", "stop": "2s"}, "start, stop"},
		{protocol.Params{"size": 5000}, "size"},
		{protocol.Params{"rate": 4}, "rate"},
	} {
		_, _, err := build(t, 1, c.params)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("params %v: error %v, want one naming %q", c.params, err, c.want)
		}
	}
}

// TestPermutationAndRandomFlows: "permutation" gives every member one
// flow to another member and every member one flow in; "random" every
// member one flow to another; both the same at every node.
func TestPermutationAndRandomFlows(t *testing.T) {
	for _, kind := range []string{"permutation", "random"} {
		a, _, err := build(t, 1, protocol.Params{"flows": kind})
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := build(t, 4, protocol.Params{"flows": kind})
		in := map[protocol.NodeID]int{}
		for i, f := range a.flows {
			if f != b.flows[i] || f.From != members[i] || f.From == f.To {
				t.Fatalf("%s: flow %d is %v at node 1, %v at node 4", kind, i, f, b.flows[i])
			}
			in[f.To]++
		}
		if kind == "permutation" && len(in) != len(members) {
			t.Fatalf("permutation: destinations %v", in)
		}
	}
}

// recEnv is env with a real random source and the one-hop sends kept.
type recEnv struct {
	env
	rng    *rand.Rand
	oneHop []protocol.NodeID
}

func (e *recEnv) Rand() *rand.Rand                            { return e.rng }
func (e *recEnv) Send(to protocol.NodeID, _ protocol.Message) { e.oneHop = append(e.oneHop, to) }

// TestPoissonOneHop: with arrivals poisson the gaps are exponential of
// mean interval (2000 gaps: mean within 5 %, a third of them above the
// mean, e^-1), and with hop one the packets go by Env.Send.
func TestPoissonOneHop(t *testing.T) {
	e := &recEnv{rng: rand.New(rand.NewPCG(3, 4))}
	p, err := New(protocol.Config{ID: 1, Members: members, Seed: 7, Env: e,
		Params: protocol.Params{"flows": []any{[]any{1, 2}}, "interval": "100ms", "arrivals": "poisson", "hop": "one"}})
	if err != nil {
		t.Fatal(err)
	}
	c := p.(*CBR)
	c.Step(protocol.Start{})
	for range 2000 {
		c.Step(protocol.Timeout{Name: "send", Arg: 0})
	}
	var sum time.Duration
	above := 0
	for _, g := range e.timers[1:] {
		sum += g
		if g > 100*time.Millisecond {
			above++
		}
	}
	mean := sum / time.Duration(len(e.timers)-1)
	if mean < 95*time.Millisecond || mean > 105*time.Millisecond || above < 650 || above > 820 {
		t.Fatalf("mean gap %s, %d of 2000 above the mean", mean, above)
	}
	if len(e.oneHop) != 2000 || e.oneHop[0] != 2 || len(e.sent) != 0 {
		t.Fatalf("%d one-hop sends, %d routed", len(e.oneHop), len(e.sent))
	}
}
