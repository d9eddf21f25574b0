package mutex_test

import (
	"reflect"
	"strings"
	"testing"

	"manetlab/mutex"
	"manetlab/protocol"
	"manetlab/protocol/protonet"
	"manetlab/protocol/reliable"
)

func coordProc(t *testing.T, name string, id protocol.NodeID, members []protocol.NodeID, params protocol.Params) (protocol.Process, *protonet.Env, error) {
	t.Helper()
	spec, err := protocol.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	env := protonet.NewEnv(t, id)
	p, err := spec.New(protocol.Config{ID: id, Members: members, Params: params, Env: env, Store: &protocol.MemStore{}})
	return p, env, err
}

// TestCentralizedBadParams: errors name the field and what is allowed.
func TestCentralizedBadParams(t *testing.T) {
	members := []protocol.NodeID{1, 2, 3}
	cases := []struct {
		params protocol.Params
		want   []string
	}{
		{protocol.Params{"election": "bully/nonesuch"}, []string{"protocol.params.election", `"bully/nonesuch"`, "bully/garcia-molina", "ring/tanenbaum"}},
		{protocol.Params{"election": "firewire/tree-identify"}, []string{"protocol.params.election", "not a supported election"}},
		{protocol.Params{"election": 7}, []string{"protocol.params.election"}},
		{protocol.Params{"election_params": "fast"}, []string{"protocol.params.election_params", "not a map"}},
		{protocol.Params{"election_params": map[string]any{"rto": "soon"}}, []string{"protocol.params.election_params", "rto", "bully/garcia-molina"}},
		{protocol.Params{"election_params": map[string]any{"bogus": 1}}, []string{"protocol.params.election_params", "bogus: unknown parameter"}},
		{protocol.Params{"election": "ring/tanenbaum", "election_params": map[string]any{"ring": []any{1, 2}}}, []string{"protocol.params.election_params", "ring", "leaves out member 3"}},
		{protocol.Params{"chek": "1s"}, []string{"protocol.params.chek: unknown parameter"}},
		{protocol.Params{"check": "-1s"}, []string{"protocol.params.check"}},
		{protocol.Params{"retries": -2}, []string{"protocol.params.retries"}},
	}
	for _, c := range cases {
		_, _, err := coordProc(t, mutex.Centralized, 1, members, c.params)
		if err == nil {
			t.Errorf("%v: no error", c.params)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not say %q", c.params, err, w)
			}
		}
	}
	if _, _, err := coordProc(t, mutex.Centralized, 1, members, protocol.Params{"election": "ring/chang-roberts", "election_params": map[string]any{"ring": "descending"}, "check": "0s"}); err != nil {
		t.Errorf("good parameters refused: %v", err)
	}
}

// TestCentralizedSpec: the messages are the algorithm's, then each
// election's, every Go type once; the spec says what the algorithm
// implements and costs.
func TestCentralizedSpec(t *testing.T) {
	spec, err := protocol.Lookup(mutex.Centralized)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.Implements(protocol.Request) || !spec.Implements(protocol.Release) || spec.Goal != protocol.GoalMutex {
		t.Errorf("spec: commands %v, goal %q", spec.Commands, spec.Goal)
	}
	if spec.Mutex == nil || spec.Mutex.Messages != "3" || spec.Mutex.Delay != "2" || !strings.Contains(spec.Mutex.Problems, "coordinator crash") {
		t.Errorf("spec.Mutex = %+v", spec.Mutex)
	}
	if lo, hi := spec.Mutex.PerEntry(8); lo != 0 || hi != 3 {
		t.Errorf("PerEntry(8) = %v, %v; want 0 (the coordinator's own) and 3", lo, hi)
	}
	seen := map[reflect.Type]int{}
	for i, m := range spec.Messages {
		if j, dup := seen[reflect.TypeOf(m)]; dup {
			t.Errorf("message %d (%T) repeats message %d", i, m, j)
		}
		seen[reflect.TypeOf(m)] = i
	}
	if seen[reflect.TypeOf(reliable.Ack{})] != 1 {
		t.Errorf("messages start %T, %T: want the algorithm's Data and the Ack first", spec.Messages[0], spec.Messages[1])
	}
	for _, name := range mutex.CentralElections {
		e, err := protocol.Lookup(name)
		if err != nil {
			t.Fatalf("supported election %s: %v", name, err)
		}
		for _, m := range e.Messages {
			if _, ok := seen[reflect.TypeOf(m)]; !ok {
				t.Errorf("%s's message %T is not in the union", name, m)
			}
		}
	}
}
