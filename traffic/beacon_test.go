package traffic

import (
	"math/rand/v2"
	"testing"
	"time"

	"manetlab/protocol"
)

// TestBeaconRandomPoisson: with to random every beacon goes by Env.Send to
// another member (each of the three others about a third of the time),
// and with arrivals poisson the gaps are exponential of mean period.
func TestBeaconRandomPoisson(t *testing.T) {
	e := &recEnv{rng: rand.New(rand.NewPCG(5, 6))}
	p, err := NewBeacon(protocol.Config{ID: 2, Members: members, Env: e,
		Params: protocol.Params{"to": "random", "arrivals": "poisson", "period": "10ms", "count": 3001}})
	if err != nil {
		t.Fatal(err)
	}
	p.Step(protocol.Start{})
	for range 3000 {
		e.now += e.timers[len(e.timers)-1]
		p.Step(protocol.Timeout{Name: "beacon"})
	}
	to := map[protocol.NodeID]int{}
	for _, id := range e.oneHop {
		to[id]++
	}
	if len(e.oneHop) != 3000 || to[2] != 0 || to[1] < 900 || to[3] < 900 || to[4] < 900 {
		t.Fatalf("%d sends, by destination %v", len(e.oneHop), to)
	}
	mean := (e.now - e.timers[0]) / 2999
	if mean < 9500*time.Microsecond || mean > 10500*time.Microsecond {
		t.Fatalf("mean gap %s, want 10ms", mean)
	}
}
