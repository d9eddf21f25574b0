package bully_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"manetlab/bully"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/analysis"
	"manetlab/trace/report"
)

// Property test over the simulator: seeded scenarios with crashes and
// recoveries, partitions (random waypoint motion over a large area, or two
// groups placed out of range that then move together) and loss from 0 to
// 20 %, with the protocols' default parameters. Motion and faults end by
// settleFrom; the run then goes on for settleFor, which covers a failure
// detector's delay (a check period, 2 s, and the channel giving up,
// 12.6 s), an election (timeout 1 s, leader-timeout 3 to 5 s), a merge (a
// probe or Check waiting out its retransmission backoff, up to 6.4 s, and
// the period) and a second round. By the end every connected component
// follows its highest live ID (report.Summarize: valid), and trace check
// finds no epoch with two leaders.
const (
	settleFrom = 30 * time.Second
	settleFor  = 50 * time.Second
)

// propertySeeds is how many scenarios each form runs (MANETLAB_SEEDS
// overrides it, e.g. for a longer soak).
func propertySeeds() int {
	if n, err := strconv.Atoi(os.Getenv("MANETLAB_SEEDS")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 40
	}
	return 300
}

// genScenario builds scenario number seed for form; the same seed always
// gives the same scenario.
func genScenario(form string, seed int) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xb0115))
	n := 3 + rng.IntN(6)
	loss := []float64{0, 0.05, 0.1, 0.2}[rng.IntN(4)]
	// At 20 % loss a multi-hop exchange fails the default 2 s timeout
	// (three tries of the reliable channel) often enough for a false
	// suspicion among 300 scenarios; 4 s (four tries) absorbs it.
	params := ""
	if loss >= 0.2 {
		params = ", params: {timeout: 4s}"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name: prop-%d\nseed: %d\nduration: %s\nprotocol: {name: %s%s}\nradio: {range: 250, loss: {model: bernoulli, p: %g}}\n",
		seed, seed, settleFrom+settleFor, form, params, loss)
	switch kind := seed % 4; kind {
	case 0: // static and connected: a grid of cells 150 m wide (diagonals in range)
		cols := 3
		fmt.Fprintf(&b, "nodes: {count: %d, values: id, placement: grid}\nmobility: {model: static, area: [%d, %d]}\n", n, 150*cols, 150*((n+cols-1)/cols))
	case 1: // moving over an area that partitions and merges
		side := 400 + rng.IntN(500)
		fmt.Fprintf(&b, "nodes: {count: %d, values: id}\nmobility: {model: random-waypoint, area: [%d, %d], speed: [1, %d], pause: %ds, stop: %s}\n",
			n, side, side, 3+rng.IntN(15), rng.IntN(4), settleFrom)
	case 2: // two groups out of range of each other that move together
		meet := 5 + rng.IntN(20)
		b.WriteString("nodes:\n  values: id\n  list:\n")
		for i := 1; i <= n; i++ {
			x, y := float64(150*((i-1)/2)), float64(150*((i-1)%2))
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&b, "    - {id: %d, pos: [%g, %g]}\n", i, x, y)
				continue
			}
			fmt.Fprintf(&b, "    - {id: %d, pos: [%g, %g], waypoints: [{at: %ds, pos: [%g, %g]}, {at: %ds, pos: [%g, %g]}]}\n",
				i, x+2000, y, meet, x+2000, y, meet+3, x+75, y+75)
		}
		b.WriteString("mobility: {model: waypoints, area: [3000, 1000]}\n")
	case 3: // crashes and recoveries on a small moving network
		fmt.Fprintf(&b, "nodes: {count: %d, values: id}\nmobility: {model: random-waypoint, area: [450, 450], speed: [1, 5], stop: %s}\n", n, settleFrom)
	}
	if seed%4 != 1 || rng.IntN(2) == 0 {
		b.WriteString("faults:\n")
		down := map[int]bool{}
		at := 0
		for range 1 + rng.IntN(4) {
			at += 1 + rng.IntN(int(settleFrom/time.Second)/4)
			if at >= int(settleFrom/time.Second) {
				break
			}
			id := 1 + rng.IntN(n)
			if rng.IntN(2) == 0 {
				id = n // the highest, most often the coordinator
			}
			verb := "crash"
			if down[id] {
				verb = "recover"
			}
			down[id] = !down[id]
			fmt.Fprintf(&b, "  - {at: %ds, %s: [%d]}\n", at, verb, id)
		}
	}
	return b.String()
}

func TestElectionSettlesOverManySeededScenarios(t *testing.T) {
	seeds := propertySeeds()
	for _, form := range []string{bully.Textbook, bully.GarciaMolina} {
		for seed := 1; seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("%s/%d", form, seed), func(t *testing.T) {
				t.Parallel()
				y := genScenario(form, seed)
				s, err := scenario.Parse([]byte(y), "prop.yaml", nil)
				if err != nil {
					t.Fatalf("seed %d: %v\n%s", seed, err, y)
				}
				dir := t.TempDir()
				if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				reproduce := fmt.Sprintf("reproduce: MANETLAB_SEEDS=%d go test ./bully -run 'TestElectionSettles/%s/^%d$'", seed, form, seed)
				sum, err := report.Summarize(dir)
				if err != nil {
					t.Fatal(err)
				}
				if sum.Verdict != "valid" {
					t.Fatalf("seed %d: verdict %s, components %+v\n%s\nscenario:\n%s", seed, sum.Verdict, sum.Components, reproduce, y)
				}
				chk, err := analysis.Check(dir, analysis.CheckOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range chk.Properties {
					if p.Name == analysis.PropEpochLeader && p.Verdict == analysis.Invalid {
						t.Fatalf("seed %d: %s %s %+v\n%s\nscenario:\n%s", seed, p.Name, p.Verdict, p.Witnesses, reproduce, y)
					}
				}
			})
		}
	}
}
