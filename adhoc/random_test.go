package adhoc

import (
	"math/rand/v2"
	"testing"
	"time"

	"manetlab/protocol"
)

// churn runs a random graph through random cuts, links, crashes,
// recoveries, value changes and Elect commands for up to five minutes,
// half the time with lossy broadcasts, then
// leaves it alone long enough for every timeout to expire, and returns the
// network for checking.
func churn(t testing.TB, seed uint64, variant string) *testNet {
	r := rand.New(rand.NewPCG(seed, 1))
	size := 4 + r.IntN(9)
	w := newNet(t, seed, params(variant), randomValues(r, size)...)
	randomLinks(w, r, r.IntN(size))
	if r.IntN(2) == 0 {
		w.startAll()
	} else {
		w.startKnowing()
	}
	if r.IntN(2) == 0 {
		// Lost broadcasts during the churn: lost Elections, Childs' parents
		// never hearing, lost Leader floods and beacons.
		w.loss = 0.2
	}
	ids := w.ids()
	pick := func() protocol.NodeID { return ids[r.IntN(len(ids))] }
	for range 40 + r.IntN(40) {
		w.run(time.Duration(r.IntN(4000)) * time.Millisecond)
		switch a, b := pick(), pick(); r.IntN(10) {
		case 0, 1, 2:
			w.cut(a, b)
		case 3, 4, 5:
			if a != b {
				w.link(a, b)
			}
		case 6:
			w.crash(a)
		case 7:
			w.recover(a)
		case 8:
			w.setValue(a, float64(r.IntN(100)))
		case 9:
			w.step(a, protocol.Command{Name: protocol.Elect})
		}
	}
	// Bring some crashed nodes back so recoveries late in the run count.
	for _, id := range ids {
		if r.IntN(2) == 0 {
			w.recover(id)
		}
	}
	w.loss = 0
	// Every wait is bounded: lease 6s, election_timeout 20s, ack_timeout
	// 30s, so after 2 minutes of quiet everything must have settled.
	w.run(2 * time.Minute)
	return w
}

func TestRandomChurnStabilises(t *testing.T) {
	seeds := uint64(200)
	if testing.Short() {
		seeds = 30
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		v := variants[seed%3]
		w := churn(t, seed, v)
		if err := w.checkStable(); err != nil {
			t.Errorf("seed %d variant %s: %v", seed, v, err)
			continue
		}
		if err := w.checkEpochs(); err != nil {
			t.Errorf("seed %d variant %s: %v", seed, v, err)
		}
		// And it stays settled: no election in another minute of quiet.
		n := 0
		for _, id := range w.ids() {
			n += len(w.notes(id, protocol.NoteElectionStart))
		}
		w.run(time.Minute)
		m := 0
		for _, id := range w.ids() {
			m += len(w.notes(id, protocol.NoteElectionStart))
		}
		if err := w.checkStable(); err != nil || m != n {
			t.Errorf("seed %d variant %s: after another minute: %v, %d new elections", seed, v, err, m-n)
		}
	}
}
