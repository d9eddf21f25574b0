package ring

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// receives reports whether ev delivers a first transmission of an
// algorithm message of type typ.
func receives(ev protocol.Event, typ MsgType) bool {
	r, ok := ev.(protocol.Receive)
	if !ok {
		return false
	}
	d, ok := r.Msg.(reliable.Data[Msg])
	return ok && d.Msg.Type == typ
}

// TestTanenbaumSkipsAMemberCrashedBeforeTheElection: a member down before
// the election is skipped; with one initiator the count is 2m plus the
// one failed attempt (classic.md), the attempt's retransmissions being
// transport.
func TestTanenbaumSkipsAMemberCrashedBeforeTheElection(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8, 13} {
		members := ids(n)
		for _, a := range arrangements()[:4] {
			for _, dead := range members {
				for _, init := range []string{"one", "all"} {
					if init == "one" && dead == members[0] {
						continue // nobody would initiate
					}
					name := fmt.Sprintf("n=%d/%s/dead=%d/%s", n, a.name, dead, init)
					net := newNetwork(t, Tanenbaum, members, protocol.Params{"ring": a.ring, "initiators": init}, a.seed)
					net.Run(90*time.Second, action{At: 500 * time.Millisecond, Fn: func() { net.Crash(dead) }})
					epoch := net.CheckElected()
					if init == "all" {
						continue
					}
					el, co, _, _ := net.Counts()
					m := n - 1
					wantEl, wantCo := m+1, m
					if m == 1 { // a live ring of one: only the failed attempt
						wantEl, wantCo = 1, 0
					}
					if epoch != "1" || el != wantEl || co != wantCo {
						t.Fatalf("%s: epoch %s, %d election + %d coordinator messages, want epoch 1, m+1=%d and m=%d",
							name, epoch, el, co, m+1, m)
					}
				}
			}
		}
	}
}

// TestTanenbaumSurvivesCrashesMidElection: a member that acknowledges the
// election message and crashes before forwarding it (the message is lost:
// the initiator's timeout restarts the election), the highest ID doing the
// same, the highest ID crashing right after forwarding it (the coordinator
// names a dead leader, comes back without having reached it, and the
// initiator re-initiates: seed 002's example), and the highest ID crashing
// when the coordinator reaches it.
func TestTanenbaumSurvivesCrashesMidElection(t *testing.T) {
	type tc struct {
		name  string
		typ   MsgType
		keeps bool
		who   func(members []protocol.NodeID) protocol.NodeID
	}
	cases := []tc{
		{"member-acks-election-then-crashes", TypeElection, false, func(m []protocol.NodeID) protocol.NodeID { return m[len(m)/2] }},
		{"highest-acks-election-then-crashes", TypeElection, false, func(m []protocol.NodeID) protocol.NodeID { return m[len(m)-1] }},
		{"highest-forwards-election-then-crashes", TypeElection, true, func(m []protocol.NodeID) protocol.NodeID { return m[len(m)-1] }},
		{"highest-acks-coordinator-then-crashes", TypeCoordinator, false, func(m []protocol.NodeID) protocol.NodeID { return m[len(m)-1] }},
		{"member-acks-coordinator-then-crashes", TypeCoordinator, false, func(m []protocol.NodeID) protocol.NodeID { return m[1] }},
	}
	for _, c := range cases {
		for _, n := range []int{3, 4, 8, 13} {
			members := ids(n)
			victim := c.who(members)
			for _, a := range arrangements()[:4] {
				for _, init := range []string{"one", "all"} {
					if init == "one" && victim == members[0] {
						continue
					}
					for _, order := range []uint64{0, 5} {
						t.Run(fmt.Sprintf("%s/n=%d/%s/%s/%d", c.name, n, a.name, init, order), func(t *testing.T) {
							var opts []func(*network)
							if order != 0 {
								opts = append(opts, shuffled(order))
							}
							crashed := false
							opts = append(opts, func(net *network) {
								net.CrashKeeps = c.keeps
								net.CrashAfter = func(id protocol.NodeID, ev protocol.Event) bool {
									if crashed || id != victim || !receives(ev, c.typ) {
										return false
									}
									crashed = true
									return true
								}
							})
							net := newNetwork(t, Tanenbaum, members, protocol.Params{"ring": a.ring, "initiators": init}, a.seed, opts...)
							net.Run(120 * time.Second)
							if !crashed {
								t.Fatal("the victim never crashed")
							}
							net.CheckElected()
						})
					}
				}
			}
		}
	}
}

// TestTanenbaumRecoveredHigherIDTakesOver: the highest ID crashes after
// the election; the members' checks find it unreachable and elect the next
// highest; it recovers (a fresh process that has forgotten the epoch),
// starts an election after the start delay, and takes over in a later
// epoch.
func TestTanenbaumRecoveredHigherIDTakesOver(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8, 16} {
		members := ids(n)
		top := members[n-1]
		for _, a := range arrangements()[:4] {
			for _, init := range []string{"one", "all"} {
				net := newNetwork(t, Tanenbaum, members, protocol.Params{"ring": a.ring, "initiators": init}, a.seed)
				net.Run(10*time.Second, action{At: 5 * time.Second, Fn: func() { net.Crash(top) }})
				net.Run(60 * time.Second)
				e1 := net.CheckElected()
				if l, _, _ := net.Follows(members[0]); n > 1 && l == top {
					t.Fatalf("n=%d %s: still following the crashed %d", n, a.name, top)
				}
				net.Recover(top)
				net.Run(120 * time.Second)
				e2 := net.CheckElected()
				if l, _, _ := net.Follows(members[0]); l != top || epochNumber(t, e2) <= epochNumber(t, e1) {
					t.Fatalf("n=%d %s: after the recovery node %d follows %d in epoch %s (before: epoch %s)", n, a.name, members[0], l, e2, e1)
				}
			}
		}
	}
}

func epochNumber(t *testing.T, e string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(e, 10, 64)
	if err != nil {
		t.Fatalf("epoch %q is not a number", e)
	}
	return v
}

// TestTanenbaumScenarioOfTheConfig mirrors configs/ring-tanenbaum.yaml with
// the default parameters: 8 members, one initiator, node 5 down before the
// election, node 8 crashing at 4s and recovering at 7s.
func TestTanenbaumScenarioOfTheConfig(t *testing.T) {
	members := []protocol.NodeID{1, 2, 3, 4, 5, 6, 7, 8}
	net := newNetwork(t, Tanenbaum, members, protocol.Params{"ring": "ascending", "initiators": "one"}, 1)
	net.Run(60*time.Second,
		action{At: 500 * time.Millisecond, Fn: func() { net.Crash(5) }},
		action{At: 4 * time.Second, Fn: func() { net.Crash(8) }},
		action{At: 7 * time.Second, Fn: func() { net.Recover(8) }})
	net.CheckElected()
}

// faultRun is one run of the deterministic simulation: a random ring of 2
// to maxN members, random initiators, random delivery order, loss as given
// until 40s, and 1 to 6 crashes and recoveries at random times before
// 40s; then the network runs without loss until 400s.
func faultRun(t *testing.T, seed uint64, loss float64, extra protocol.Params, maxN int) *network {
	rng := rand.New(rand.NewPCG(seed, 99))
	n := 2 + rng.IntN(maxN-1)
	members := ids(n)
	inits := []any{"all", "one", []any{int(members[rng.IntN(n)])}}
	params := protocol.Params{"ring": "random", "initiators": inits[rng.IntN(len(inits))]}
	for k, v := range extra {
		params[k] = v
	}
	// Faults at random times; in time order, each one crashes a live node
	// or recovers a crashed one.
	actions := make([]action, 1+rng.IntN(6))
	for i := range actions {
		actions[i].At = time.Duration(rng.Int64N(int64(40 * time.Second)))
	}
	slices.SortFunc(actions, func(a, b action) int { return int(a.At - b.At) })
	down := map[protocol.NodeID]bool{}
	var net *network
	for i := range actions {
		id := members[rng.IntN(n)]
		if down[id] {
			actions[i].Fn = func() { net.Recover(id) }
		} else {
			actions[i].Fn = func() { net.Crash(id) }
		}
		down[id] = !down[id]
	}
	net = newNetwork(t, Tanenbaum, members, params, seed, lossy(loss, seed), func(n *network) { n.Jitter = true })
	net.Run(40*time.Second, actions...)
	net.Loss = 0
	net.Run(400 * time.Second)
	if len(net.Live()) == 0 {
		return nil // everyone ended down
	}
	return net
}

// TestTanenbaumRandomFaults is a deterministic simulation over many seeds
// within the algorithm's failure model: crashes and recoveries at random
// times, with 5% loss that the channel repairs (rto 100ms, 3 retries: a
// live peer is given up on about once in 10^4 messages). Every epoch has
// at most one leader, and once the faults stop every live member follows
// the highest live ID in one epoch.
func TestTanenbaumRandomFaults(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		for _, c := range []struct {
			loss   float64
			params protocol.Params
		}{{0, nil}, {0.05, protocol.Params{"rto": "100ms", "retries": 3}}} {
			t.Run(fmt.Sprintf("seed=%d/loss=%g", seed, c.loss), func(t *testing.T) {
				if net := faultRun(t, seed, c.loss, c.params, 20); net != nil {
					net.CheckElected()
				}
			})
		}
	}
}

// TestTanenbaumConvergesAfterFalseSuspicions: with 20% loss and 2 retries
// the channel gives up on live peers every few dozen messages, which
// splits the ring as a partition would. Two disjoint elections can then
// share an epoch (no ring algorithm without quorums prevents that), but
// once the loss stops the skipped members are probed back, a member that
// sees two leaders in one epoch or a lower leader than itself starts a new
// election, and every live member ends up following the highest live ID in
// one epoch.
func TestTanenbaumConvergesAfterFalseSuspicions(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			net := faultRun(t, seed, 0.2, protocol.Params{"rto": "100ms", "retries": 2}, 20)
			if net == nil {
				return
			}
			live := net.Live()
			want := slices.Max(live)
			_, epoch, _ := net.Follows(live[0])
			for _, id := range live {
				if l, e, _ := net.Follows(id); l != want || e != epoch {
					t.Fatalf("node %d follows %d in epoch %s; want %d, in one epoch (node %d: %s)", id, l, e, want, live[0], epoch)
				}
			}
		})
	}
}
