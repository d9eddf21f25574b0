package node

import (
	"context"
	"testing"
	"time"

	"manetlab/baseline"
	"manetlab/protocol"
	"manetlab/scenario"
)

func parse(t testing.TB, y string, sets ...string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse([]byte(y), "test.yaml", sets)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testLog writes the node's log lines through t.Logf.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) { l.t.Logf("%s", p); return len(p), nil }

// runHost runs a Host to its end, failing t on an error.
func runHost(t testing.TB, opt Options) *Result {
	t.Helper()
	if opt.Log == nil {
		opt.Log = testLog{t}
	}
	ctx, cancel := context.WithTimeout(context.Background(), opt.Scenario.Duration.D()+20*time.Second)
	defer cancel()
	res, err := Run(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ids(n int) []protocol.NodeID {
	out := make([]protocol.NodeID, n)
	for i := range out {
		out[i] = protocol.NodeID(i + 1)
	}
	return out
}

func mustSpec(name string) protocol.Spec {
	s, err := protocol.Lookup(name)
	if err != nil {
		panic(err)
	}
	return s
}

// announce is a floodmax announcement for leader id with value v.
func announce(id protocol.NodeID, v float64) protocol.Message {
	return baseline.Announce{Leader: id, Value: v, Inc: 1, Seq: 1, TTL: time.Second}
}
