package rounds_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/rounds"
)

// nopEnv is an Env that does nothing, enough to build a Process.
type nopEnv struct{}

func (nopEnv) Now() time.Duration                                     { return 0 }
func (nopEnv) Send(protocol.NodeID, protocol.Message)                 {}
func (nopEnv) Broadcast(protocol.Message)                             {}
func (nopEnv) Deliver(protocol.NodeID, protocol.Message)              {}
func (nopEnv) Flood(protocol.Message)                                 {}
func (nopEnv) SetTimer(time.Duration, string, int64) protocol.TimerID { return 1 }
func (nopEnv) CancelTimer(protocol.TimerID)                           {}
func (nopEnv) Rand() *rand.Rand                                       { return rand.New(rand.NewPCG(1, 2)) }
func (nopEnv) Note(protocol.Note)                                     {}
func (nopEnv) Logf(string, ...any)                                    {}

func build(name string, p protocol.Params) error {
	spec, err := protocol.Lookup(name)
	if err != nil {
		return err
	}
	_, err = spec.New(protocol.Config{ID: 1, Members: []protocol.NodeID{1, 2, 3, 5, 8}, Params: p, Env: nopEnv{}, Seed: 1})
	return err
}

// TestBadParamsNameTheField: every bad framework parameter is refused
// with an error naming it; good ones are accepted.
func TestBadParamsNameTheField(t *testing.T) {
	for _, c := range []struct {
		p    protocol.Params
		want string
	}{
		{protocol.Params{"synchronizer": "gamma"}, "protocol.params.synchronizer: gamma is not a synchronizer (known: simple, alpha, beta, abd, none)"},
		{protocol.Params{"synchronizer": 3}, "protocol.params.synchronizer: 3 is not a synchronizer"},
		{protocol.Params{"wake": map[string]any{"4": 1}}, "protocol.params.wake: 4 is not a member"},
		{protocol.Params{"wake": map[string]any{"1": 0}}, "protocol.params.wake: node 1 wakes at round 0, not a round"},
		{protocol.Params{"wake": map[any]any{5: -2}}, "protocol.params.wake: node 5 wakes at round -2"},
		{protocol.Params{"wake": []any{1, 2}}, "protocol.params.wake: [1 2] is not a map"},
		{protocol.Params{"synchronizer": "abd"}, "protocol.params.d: the abd synchronizer needs d"},
		{protocol.Params{"synchronizer": "abd", "d": "fast"}, "protocol.params.d: fast is not a non-negative duration"},
		{protocol.Params{"settle": "-1s"}, "protocol.params.settle"},
		{protocol.Params{"rounds": 0}, "protocol.params.rounds: 0 is not a positive integer"},
		{protocol.Params{"synchroniser": "alpha"}, "protocol.params.synchroniser: unknown parameter"},
		{protocol.Params{"ring": []any{1, 2}}, "protocol.params.ring: leaves out member 3"},
		{protocol.Params{"ring": "ascending", "channels": "unidirectional"}, "protocol.params.channels: unidirectional"},
	} {
		name := "test/flood-radio"
		if _, ok := c.p["ring"]; ok {
			name = "test/flood-ring"
		}
		err := build(name, c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.p, err, c.want)
		}
	}
	for _, p := range []protocol.Params{
		{},
		{"synchronizer": "beta", "wake": map[string]any{"1": 1, "5": 1, "8": 1, "3": 2}},
		{"synchronizer": "abd", "d": "20ms", "settle": "2s", "rto": "100ms", "retries": 3},
		{"synchronizer": "none", "wake": map[any]any{8: 1}},
	} {
		if err := build("test/flood-radio", p); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
	if err := build("test/flood-ring", protocol.Params{"ring": []any{8, 5, 3, 2, 1}, "synchronizer": "alpha"}); err != nil {
		t.Error(err)
	}
	if info, ok := rounds.Lookup("test/flood-ring"); !ok || info.Graph != rounds.GraphRing {
		t.Errorf("Lookup: %+v %v", info, ok)
	}
}
