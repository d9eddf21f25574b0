package bully

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// faultsEnd is when faultRun's crashes and partitions stop; settle is
// how long it then runs: the failure detectors' delay (the channel gives
// up after 12.6 s; a check waits up to 2 periods), an election (timeout
// and leader-timeout), a merge (a coordinator's probe, one period) and
// room for a second round.
const (
	faultsEnd = 60 * time.Second
	settle    = 90 * time.Second
)

// faultRun is one run of the deterministic simulation: 2 to 12 members,
// random initiators, every member a detector, random delivery order, loss
// of 0 to 20 % throughout (the channel repairs it), 1 to 6 crashes and
// recoveries and up to 3 partitions (the members cut in two groups,
// healed later) at random times before faultsEnd; then the partitions
// heal and the network runs for settle. It returns nil when every node
// ended down.
func faultRun(t *testing.T, form string, seed uint64) *network {
	rng := rand.New(rand.NewPCG(seed, 0xb011))
	n := 2 + rng.IntN(11)
	members := ids(n)
	inits := []any{"all", "one", []any{1 + rng.IntN(n)}}
	params := protocol.Params{"initiators": inits[rng.IntN(len(inits))]}
	loss := []float64{0, 0.05, 0.1, 0.2}[rng.IntN(4)]
	var actions []protonet.Action
	var net *network
	down := map[protocol.NodeID]bool{}
	var times []time.Duration
	for range 1 + rng.IntN(6) {
		times = append(times, time.Duration(rng.Int64N(int64(faultsEnd))))
	}
	slices.Sort(times)
	for _, when := range times {
		id := protocol.NodeID(1 + rng.IntN(n))
		if down[id] {
			actions = append(actions, at(when, func() { net.Recover(id) }))
		} else {
			actions = append(actions, at(when, func() { net.Crash(id) }))
		}
		down[id] = !down[id]
	}
	for range rng.IntN(4) {
		var a, b []protocol.NodeID
		for _, id := range members {
			if rng.IntN(2) == 0 {
				a = append(a, id)
			} else {
				b = append(b, id)
			}
		}
		from := time.Duration(rng.Int64N(int64(faultsEnd)))
		to := from + time.Duration(rng.Int64N(int64(faultsEnd-from)))
		actions = append(actions, at(from, func() { net.Cut(a, b) }), at(to, func() { net.Heal() }))
	}
	net = protonet.New(t, form, members, params, seed, protonet.Lossy(loss, seed), func(n *network) { n.Jitter = true })
	net.Run(faultsEnd, actions...)
	net.Heal()
	net.Run(faultsEnd + settle)
	if len(net.Live()) == 0 {
		return nil
	}
	return net
}

// TestRandomFaults: over many seeds, crashes, recoveries, partitions and
// loss; every epoch has at most one leader, and once the faults stop every
// live member follows the highest live ID, in one epoch.
func TestRandomFaults(t *testing.T) {
	seeds := uint64(300)
	if n, err := strconv.Atoi(os.Getenv("MANETLAB_SEEDS")); err == nil && n > 0 {
		seeds = uint64(n)
	} else if testing.Short() {
		seeds = 50
	}
	for _, form := range forms {
		for seed := uint64(1); seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", form, seed), func(t *testing.T) {
				if net := faultRun(t, form, seed); net != nil {
					net.CheckElected()
				}
			})
		}
	}
}
