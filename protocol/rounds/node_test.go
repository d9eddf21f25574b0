package rounds_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"manetlab/node"
	"manetlab/node/netnstest"
	"manetlab/protocol"
	"manetlab/protocol/rounds"
	"manetlab/scenario"
	"manetlab/trace/report"
)

// TestRealNodes runs flood-max over the alpha synchronizer with the real
// node driver (five nodes in one process, multicast on the loopback of a
// fresh network namespace; skipped without one): the envelopes cross the
// wire codec, and the run gives the lockstep's rounds and messages.
func TestRealNodes(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	// ideal: the run must give the lockstep's exact rounds and messages;
	// real processes see the DCF medium's carrier sense late (docs/node.md,
	// "The DCF medium in real processes"), and the pulses of five nodes
	// that hear each other leave together.
	y := "name: real\nduration: 9s\nnodes: {count: 5, values: id}\nradio: {mac: ideal, range: 250, hello: {period: 500ms}}\n" +
		"mobility: {model: static, area: [150, 150]}\nprotocol: {name: test/flood-radio, params: {synchronizer: alpha, rounds: 4, settle: 2s}}\n"
	s, err := scenario.Parse([]byte(y), "real.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ids := []protocol.NodeID{1, 2, 3, 4, 5}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if _, err := node.Run(ctx, node.Options{Scenario: s, IDs: ids, Out: dir, Run: "real"}); err != nil {
		t.Fatal(err)
	}
	if err := node.WriteRunFile(dir, s, "real", nil, 0); err != nil {
		t.Fatal(err)
	}
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Complexity
	// 9 s is shorter than the default 15 s delay of a protocol without
	// Spec.Settle: nothing is judged at the end, which says so.
	if sum.Verdict != "unsettled" || !strings.HasPrefix(sum.Reason, "nothing judged") || c == nil {
		t.Fatalf("verdict %s %s, complexity %+v", sum.Verdict, sum.Reason, c)
	}
	// all five hear each other: a complete graph, 2E = 20
	nbrs := map[protocol.NodeID][]protocol.NodeID{}
	for _, a := range ids {
		for _, b := range ids {
			if a != b {
				nbrs[a] = append(nbrs[a], b)
			}
		}
	}
	algs := map[protocol.NodeID]rounds.Algorithm[maxMsg]{}
	for _, id := range ids {
		a, _ := newFloodMax(rounds.Context{ID: id, Members: ids, Neighbors: nbrs[id]}, protocol.Params{"rounds": 4}.Reader())
		algs[id] = a
	}
	ref, err := rounds.RunLockstep(algs, nbrs, allWake(5), 20)
	if err != nil {
		t.Fatal(err)
	}
	if c.Rounds != ref.Rounds || c.Messages != uint64(ref.Messages) || sum.Messages.ByKind["sync-safe"] != 20*4 {
		t.Fatalf("rounds %d messages %d (%v); lockstep %d, %d", c.Rounds, c.Messages, sum.Messages.ByKind, ref.Rounds, ref.Messages)
	}
	t.Logf("%+v %v", *c, sum.Messages.ByKind)
}
