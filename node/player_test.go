package node

import (
	"context"
	"strings"
	"testing"
	"time"

	"manetlab/node/netnstest"
)

const pairYAML = `
name: pair
duration: 1500ms
nodes:
  list:
    - {id: 1, pos: [0, 0]}
    - {id: 2, pos: [%s, 0]}
radio: {range: 250, hello: {period: 100ms}}
protocol: {name: baseline/floodmax, params: {period: 200ms}}
`

// TestPositionsFromPlayer: the nodes' own scenario puts the two nodes in
// range, the player says node 2 is 5 km away, and the player wins: every
// frame between them is dropped for range once its positions arrive.
func TestPositionsFromPlayer(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	start := time.Now().Add(300 * time.Millisecond).UnixNano()
	p, err := StartPlayer(context.Background(), PlayOptions{Scenario: parse(t, fmtYAML(pairYAML, "5000")), Run: "pair", Start: start, Period: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res := runHost(t, Options{Scenario: parse(t, fmtYAML(pairYAML, "50")), IDs: ids(2), Out: t.TempDir(), Run: "pair", Start: start})
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("stats: %s; player rounds %d", res.Stats, p.Rounds())
	if p.Rounds() < 10 {
		t.Errorf("player sent %d rounds", p.Rounds())
	}
	if res.Stats.Delivered != 0 || res.Stats.Rejected["range"] == 0 {
		t.Errorf("want every frame out of range: %s", res.Stats)
	}
	if res.Leaders[1] != 1 || res.Leaders[2] != 2 {
		t.Errorf("leaders %v: each node should lead itself", res.Leaders)
	}
}

func fmtYAML(y, x string) string { return strings.Replace(y, "%s", x, 1) }
