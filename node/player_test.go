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

// TestDilatedPlayer: dilated 10 times, a player of a 200 ms scenario
// plays for 2 s of the host's clock, a round every 50 ms of the model's
// (500 ms of the host's): 5 rounds (0, 50, 100, 150 ms and the start's),
// not 40, and a node dilated as much takes its positions, stamped on the
// host's clock up to 10 times the duration after the start.
func TestDilatedPlayer(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	const k = 10
	y := strings.Replace(fmtYAML(pairYAML, "5000"), "1500ms", "200ms", 1)
	start := time.Now().Add(300 * time.Millisecond)
	p, err := StartPlayer(context.Background(), PlayOptions{Scenario: parse(t, y), Run: "pair", Start: start.UnixNano(), Period: 50 * time.Millisecond, Dilation: k})
	if err != nil {
		t.Fatal(err)
	}
	played := make(chan time.Duration, 1)
	go func() { p.Wait(); played <- time.Since(start) }()
	res := runHost(t, Options{Scenario: parse(t, strings.Replace(fmtYAML(pairYAML, "50"), "1500ms", "200ms", 1)), IDs: ids(2), Out: t.TempDir(), Run: "pair",
		Start: start.UnixNano(), Dilation: k})
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	took := <-played
	t.Logf("stats: %s; player rounds %d in %v", res.Stats, p.Rounds(), took)
	if took < k*200*time.Millisecond {
		t.Errorf("the player stopped %v after the start, before 10 times the 200 ms", took)
	}
	if r := p.Rounds(); r < 4 || r > 6 {
		t.Errorf("player sent %d rounds, want 5 (one every 50 ms of the model)", r)
	}
	if res.Stats.Rejected["location"] != 0 || res.Stats.Rejected["clock"] != 0 {
		t.Errorf("location frames refused: %s", res.Stats)
	}
	// The nodes' own scenario puts them 50 m apart: frames out of range
	// come of the player's positions (those sent at the start, racing
	// the player's first round there, may be delivered).
	if res.Stats.Rejected["range"] == 0 {
		t.Errorf("want frames out of range, by the player's positions: %s", res.Stats)
	}
}
