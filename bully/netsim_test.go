package bully

import (
	"fmt"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// The tests in this package run the forms on protonet's in-memory network
// in virtual time: seeded loss, crashes and recoveries with stable storage,
// cut links, random delivery order.

var forms = []string{Textbook, GarciaMolina}

type network = protonet.Network

func at(d time.Duration, fn func()) protonet.Action { return protonet.Action{At: d, Fn: fn} }

// ids are the members 1..n: ranks and IDs coincide, as in the seeds.
func ids(n int) []protocol.NodeID {
	out := make([]protocol.NodeID, n)
	for i := range out {
		out[i] = protocol.NodeID(i + 1)
	}
	return out
}

// TestFirstElectionElectsTheHighest: every size, every form, initiators all,
// the lowest, the highest or two in the middle, FIFO and shuffled delivery:
// every node follows the highest ID in one epoch, numbered 1.
func TestFirstElectionElectsTheHighest(t *testing.T) {
	for _, form := range forms {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 10, 16, 32} {
			members := protonet.IDs(n)
			inits := []any{"all", "one", []any{int(members[n-1])}}
			if n > 3 {
				inits = append(inits, []any{int(members[1]), int(members[n/2])})
			}
			for _, init := range inits {
				for _, order := range []uint64{0, 1, 2} {
					t.Run(fmt.Sprintf("%s/n=%d/%v/%d", form, n, init, order), func(t *testing.T) {
						var opts []func(*network)
						if order != 0 {
							opts = append(opts, protonet.Shuffled(order))
						}
						net := protonet.New(t, form, members, protocol.Params{"initiators": init}, 1, opts...)
						net.Run(20 * time.Second)
						if e := net.CheckElected(); e != fmt.Sprintf("%d.1", members[n-1]) {
							t.Fatalf("epoch %s, want %d.1", e, members[n-1])
						}
						if r := net.Sent["transport-retx"]; r != 0 {
							t.Fatalf("%d retransmissions without loss", r)
						}
					})
				}
			}
		}
	}
}

// TestDetectionCounts is the theory's scenario run as it happens: every
// member up, the first election, then at time T the highest crashes and
// one configured detector (the second highest: the best case; the lowest:
// the worst; every rank between) notices it through its checks. The
// messages sent from T on are exactly DetectionCounts' for that rank, the
// second highest leads, and no message was retransmitted but to the dead.
func TestDetectionCounts(t *testing.T) {
	for _, form := range forms {
		for _, n := range []int{2, 3, 4, 5, 7, 10, 16} {
			for r := 1; r < n; r++ {
				t.Run(fmt.Sprintf("%s/n=%d/detector=%d", form, n, r), func(t *testing.T) {
					members := ids(n)
					net := protonet.New(t, form, members, protocol.Params{"detectors": []any{r}}, 1)
					crash := 10 * time.Second
					net.Run(crash, at(crash, func() {
						net.Crash(protocol.NodeID(n))
						net.Sent = map[string]int{}
					}))
					net.Run(crash + time.Minute)
					net.CheckElected()
					if l, _, _ := net.Follows(1); l != protocol.NodeID(n-1) {
						t.Fatalf("node 1 follows %d", l)
					}
					el, ann, _, _ := net.Counts()
					want := DetectionCounts(form, n, r)
					if el != want.Election || ann != want.Announce {
						t.Fatalf("from the crash on: %d election and %d announcement messages, want %d and %d (sent %v)",
							el, ann, want.Election, want.Announce, net.Sent)
					}
				})
			}
		}
	}
}

// TestBoundScenarioCounts is the scenario the Complexity bound describes:
// the highest member down before the first election, the initiators (the
// lowest of them detects) start it, no failure detection: the run's counts
// equal the bound's Exact, its best and worst cases equal the closed forms,
// and the same holds with the delivery order shuffled.
func TestBoundScenarioCounts(t *testing.T) {
	for _, form := range forms {
		spec, _ := protocol.Lookup(form)
		for _, n := range []int{2, 3, 5, 8, 13} {
			members := protonet.IDs(n)
			for r := 1; r < n; r++ {
				inits := []any{[]any{int(members[r-1])}}
				if r < n-1 {
					inits = append(inits, []any{int(members[r-1]), int(members[n-2])})
				}
				for _, init := range inits {
					for _, order := range []uint64{0, 3} {
						params := protocol.Params{"initiators": init, "check": 0}
						var opts []func(*network)
						if order != 0 {
							opts = append(opts, protonet.Shuffled(order))
						}
						net := protonet.New(t, form, members, params, 1, opts...)
						net.Run(time.Minute, at(500*time.Millisecond, func() { net.Crash(members[n-1]) }))
						net.CheckElected()
						b, err := spec.Complexity.Bound(members, params, 1)
						if err != nil {
							t.Fatal(err)
						}
						el, ann, ctl, _ := net.Counts()
						want := DetectionCounts(form, n, r)
						if b.Exact == nil || el != *b.Exact || el != want.Election || ann != want.Announce || ctl != 0 {
							t.Fatalf("%s n=%d rank %d %v order %d: %d election, %d announcement, %d control; bound %+v, want %+v (sent %v)",
								form, n, r, init, order, el, ann, ctl, b, want, net.Sent)
						}
						if *b.Best != DetectionCounts(form, n, n-1).Election || *b.Worst != DetectionCounts(form, n, 1).Election || b.Value != float64(*b.Worst) {
							t.Fatalf("%s n=%d: bound %+v", form, n, b)
						}
					}
				}
			}
		}
	}
}

// TestClosedForms pins DetectionCounts to the textbook figures.
func TestClosedForms(t *testing.T) {
	for n := 2; n <= 40; n++ {
		tb, gm := DetectionCounts(Textbook, n, n-1), DetectionCounts(GarciaMolina, n, n-1)
		if tb != (Counts{1, n - 2}) || gm != (Counts{n - 1, 2 * (n - 2)}) {
			t.Fatalf("n=%d best: textbook %+v, Garcia-Molina %+v", n, tb, gm)
		}
		tb, gm = DetectionCounts(Textbook, n, 1), DetectionCounts(GarciaMolina, n, 1)
		if tb.Election != n*(n-1)/2+(n-1)*(n-2)/2 || tb.Election != (n-1)*(n-1) || gm.Election != n*(n-1)/2+n-2 {
			t.Fatalf("n=%d worst: textbook %+v, Garcia-Molina %+v", n, tb, gm)
		}
	}
}
