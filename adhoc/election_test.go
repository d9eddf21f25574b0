package adhoc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

var variants = []string{Unicast, Broadcast, Optimised}

func params(variant string, kv ...any) protocol.Params {
	p := protocol.Params{"variant": variant}
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i].(string)] = kv[i+1]
	}
	return p
}

// randomValues draws distinct-ish values so the best node is not simply
// the highest ID.
func randomValues(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(r.IntN(100))
	}
	return v
}

func lineLinks(w *testNet) {
	ids := w.ids()
	for i := 1; i < len(ids); i++ {
		w.link(ids[i-1], ids[i])
	}
}

func starLinks(w *testNet) {
	ids := w.ids()
	for _, id := range ids[1:] {
		w.link(ids[0], id)
	}
}

// randomLinks builds a random connected graph: a random tree plus extra
// edges.
func randomLinks(w *testNet, r *rand.Rand, extra int) {
	ids := w.ids()
	for i := 1; i < len(ids); i++ {
		w.link(ids[r.IntN(i)], ids[i])
	}
	for range extra {
		a, b := ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]
		if a != b {
			w.link(a, b)
		}
	}
}

func TestStaticGraphsElectTheBest(t *testing.T) {
	shapes := []struct {
		name  string
		size  int
		build func(*testNet, *rand.Rand)
	}{
		{"line", 8, func(w *testNet, _ *rand.Rand) { lineLinks(w) }},
		{"star", 7, func(w *testNet, _ *rand.Rand) { starLinks(w) }},
		{"random", 14, func(w *testNet, r *rand.Rand) { randomLinks(w, r, 8) }},
	}
	for _, v := range variants {
		for _, sh := range shapes {
			for seed := uint64(1); seed <= 5; seed++ {
				t.Run(fmt.Sprintf("%s/%s/%d", v, sh.name, seed), func(t *testing.T) {
					r := rand.New(rand.NewPCG(seed, 7))
					w := newNet(t, seed, params(v), randomValues(r, sh.size)...)
					sh.build(w, r)
					w.startAll()
					w.run(30 * time.Second)
					w.mustStable()
					// The leader stays put once elected: no election runs
					// in a stable network.
					before := len(w.notes(1, protocol.NoteElectionStart))
					w.run(60 * time.Second)
					w.mustStable()
					if after := len(w.notes(1, protocol.NoteElectionStart)); after != before {
						t.Errorf("node 1 started %d elections in a stable network", after-before)
					}
				})
			}
		}
	}
}

// TestElectionFromScratch starts every node with its links already in
// place, so that the boot elections, not merges, must find the best.
func TestElectionFromScratch(t *testing.T) {
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			w := newNet(t, 3, params(v), 5, 9, 2, 7, 3, 8, 1)
			lineLinks(w)
			w.link(2, 6)
			w.startKnowing()
			w.run(20 * time.Second)
			w.mustStable()
			if w.sent["election"] == 0 || w.sent["leader"] == 0 {
				t.Errorf("no election ran: sent %v", w.sent)
			}
			switch v {
			case Unicast:
				if w.sent["child"] != 0 {
					t.Errorf("unicast sent %d Child messages", w.sent["child"])
				}
			default:
				if w.sent["child"] == 0 {
					t.Errorf("%s sent no Child message: %v", v, w.sent)
				}
			}
		})
	}
}

func TestConcurrentElections(t *testing.T) {
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 7))
			w := newNet(t, 11, params(v), randomValues(r, 12)...)
			randomLinks(w, r, 6)
			w.startAll()
			w.run(30 * time.Second)
			w.mustStable()
			// The best node loses value, so the leader is no longer the
			// best, and three nodes start elections at the same instant.
			best := w.bestOf(w.ids())
			w.setValue(best, -1)
			for _, id := range []protocol.NodeID{2, 5, 9} {
				w.step(id, protocol.Command{Name: protocol.Elect})
			}
			starts := 0
			for _, id := range []protocol.NodeID{2, 5, 9} {
				ns := w.notes(id, protocol.NoteElectionStart)
				if last := ns[len(ns)-1]; strings.HasSuffix(last.Epoch, fmt.Sprintf(".%d", id)) {
					starts++
				}
			}
			if starts != 3 {
				t.Fatalf("only %d of 3 nodes started their own election", starts)
			}
			w.run(40 * time.Second)
			w.mustStable()
			if w.nodes[best].proc.leader == best {
				t.Errorf("node %d still leads with value -1", best)
			}
		})
	}
}

func TestPartitionAndMerge(t *testing.T) {
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			// Line 1..8; the best is 6, the best of 1..4 is 2.
			w := newNet(t, 5, params(v), 10, 40, 30, 20, 15, 90, 50, 60)
			lineLinks(w)
			w.startAll()
			w.run(20 * time.Second)
			w.mustStable()
			w.cut(4, 5)
			w.run(30 * time.Second)
			w.mustStable()
			if w.nodes[1].proc.leader != 2 || w.nodes[8].proc.leader != 6 {
				t.Fatalf("after partition leaders %d and %d, want 2 and 6", w.nodes[1].proc.leader, w.nodes[8].proc.leader)
			}
			w.link(1, 8) // the two halves merge at their far ends
			w.run(20 * time.Second)
			w.mustStable()
			if w.nodes[1].proc.leader != 6 {
				t.Fatalf("after merge node 1 follows %d, want 6", w.nodes[1].proc.leader)
			}
		})
	}
}

// TestMergeOfIndependentComponents lets two components elect on their own
// before a link joins them.
func TestMergeOfIndependentComponents(t *testing.T) {
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			w := newNet(t, 8, params(v), 3, 7, 5, 4, 9, 1, 6, 2)
			for _, e := range [][2]protocol.NodeID{{1, 2}, {2, 3}, {3, 4}, {5, 6}, {6, 7}, {7, 8}} {
				w.link(e[0], e[1])
			}
			w.startAll()
			w.run(20 * time.Second)
			w.mustStable()
			if w.nodes[1].proc.leader != 2 || w.nodes[8].proc.leader != 5 {
				t.Fatalf("components follow %d and %d, want 2 and 5", w.nodes[1].proc.leader, w.nodes[8].proc.leader)
			}
			w.link(4, 8)
			w.run(10 * time.Second)
			w.mustStable()
		})
	}
}

func TestLeaderCrashDetectedByBeaconLoss(t *testing.T) {
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			r := rand.New(rand.NewPCG(21, 7))
			w := newNet(t, 21, params(v), randomValues(r, 10)...)
			randomLinks(w, r, 5)
			w.startAll()
			w.run(20 * time.Second)
			w.mustStable()
			old := w.bestOf(w.ids())
			w.crash(old)
			// Within one beacon period nobody can have noticed yet.
			w.run(time.Second)
			for _, id := range w.ids() {
				if id != old && w.nodes[id].proc.leader != old {
					t.Fatalf("node %d dropped leader %d after 1s, before any beacon was due", id, old)
				}
			}
			w.run(30 * time.Second)
			w.mustStable()
			// The election that replaced it named it as departed, which
			// only beacon loss does.
			found := false
			for _, id := range w.ids() {
				if n := w.nodes[id]; n.alive && n.proc.departed == old {
					found = true
				}
			}
			if !found {
				t.Errorf("no node ran an election for departed leader %d", old)
			}
			w.recover(old)
			w.run(20 * time.Second)
			w.mustStable()
			if w.nodes[1].proc.leader != old && old != 1 {
				t.Errorf("recovered best node %d not leading again", old)
			}
			// The new incarnation's beacons are forwarded and renew the
			// leases, although its beacon counter started again at 1.
			elections := w.sent["election"]
			w.run(time.Minute)
			w.mustStable()
			if n := w.sent["election"] - elections; n != 0 {
				t.Errorf("%d Election messages in a quiet minute after the recovery", n)
			}
		})
	}
}

// silentCrash stops a node without telling its neighbours: they learn it
// only from missing answers.
func (w *testNet) silentCrash(id protocol.NodeID) {
	n := w.nodes[id]
	n.alive = false
	n.gen++
}

// runUntil pumps in small steps until cond holds, failing after limit.
func (w *testNet) runUntil(limit time.Duration, cond func() bool) {
	w.t.Helper()
	for end := w.now + limit; !cond(); {
		if w.now >= end {
			w.t.Fatalf("condition not reached within %v", limit)
		}
		w.run(time.Millisecond)
	}
}

func TestVanishedChildDroppedByProbing(t *testing.T) {
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			// 1 - 2 - 3 - 4, and 2 - 5. Node 5 vanishes after node 2 has
			// come to await its Ack.
			w := newNet(t, 4, params(v, "election_timeout", "5m", "ack_timeout", "6m"), 1, 2, 3, 9, 4)
			lineLinks(w)
			w.cut(4, 5)
			w.link(2, 5)
			w.startAll()
			w.run(20 * time.Second)
			w.mustStable()
			// Crash the leader silently: beacon loss starts elections
			// that everyone joins, since everyone lost the same leader.
			w.silentCrash(4)
			w.runUntil(20*time.Second, func() bool {
				p := w.nodes[2].proc
				return p.phase == awaiting && p.waiting[5]
			})
			w.silentCrash(5)
			start := w.now
			w.runUntil(10*time.Second, func() bool { return w.nodes[2].proc.phase != awaiting })
			if took := w.now - start; took > 3*time.Second {
				t.Errorf("node 2 waited %v for its vanished child", took)
			}
			if w.nodes[2].proc.waiting != nil && w.nodes[2].proc.waiting[5] {
				t.Errorf("node 2 still awaits node 5")
			}
			w.run(30 * time.Second)
			for _, id := range []protocol.NodeID{1, 2, 3} {
				if l := w.nodes[id].proc.leader; l != 3 || w.nodes[id].proc.phase != idle {
					t.Errorf("node %d: leader %d phase %d, want 3 and idle", id, l, w.nodes[id].proc.phase)
				}
			}
		})
	}
}

func TestOrphanEndsTheComputation(t *testing.T) {
	for _, v := range variants {
		t.Run(v, func(t *testing.T) {
			// Line 1-2-3-4; node 4 is best. Node 1 starts an election;
			// node 3 joins it with parent 2 and, while it still awaits
			// node 4, loses node 2.
			w := newNet(t, 6, params(v, "child_timeout", "2s", "probe_period", "10s", "election_timeout", "5m", "ack_timeout", "6m"), 2, 1, 3, 5)
			lineLinks(w)
			w.startAll()
			w.run(20 * time.Second)
			w.mustStable()
			loseLeader(w.nodes[1].proc)
			w.runUntil(20*time.Second, func() bool {
				p := w.nodes[3].proc
				return p.phase == awaiting && p.parent == 2 && (p.waiting[4] || p.collect)
			})
			w.cut(2, 3)
			p := w.nodes[3].proc
			if p.phase != idle {
				t.Fatalf("orphan 3 still in the election (phase %d)", p.phase)
			}
			ls := w.notes(3, protocol.NoteLeader)
			last := ls[len(ls)-1]
			if !strings.HasSuffix(last.Epoch, ".3") {
				t.Errorf("orphan announced under epoch %q, want a fresh index of its own", last.Epoch)
			}
			w.run(30 * time.Second)
			w.mustStable()
			if w.nodes[3].proc.leader != 4 || w.nodes[1].proc.leader != 1 {
				t.Errorf("nodes 1 and 3 follow %d and %d, want 1 and 4", w.nodes[1].proc.leader, w.nodes[3].proc.leader)
			}
		})
	}
}

// loseLeader makes p act as if its leader's lease ran out now: it starts
// an election naming its leader as departed.
func loseLeader(p *Node) {
	p.leaseEnd = p.env.Now()
	p.leaseCheck()
	p.deferredStart() // at once, without waiting out start_delay
}

// TestEpochsNameOneLeader checks the trace checker's rule on a busy run:
// no epoch ever names two leaders.
func TestEpochsNameOneLeader(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		w := churn(t, seed, variants[seed%3])
		if err := w.checkEpochs(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func (w *testNet) checkEpochs() error {
	by := map[string]protocol.NodeID{}
	for _, id := range w.ids() {
		for _, n := range w.notes(id, protocol.NoteLeader) {
			if n.Leader == protocol.None || n.Epoch == "" {
				continue
			}
			if l, ok := by[n.Epoch]; ok && l != n.Leader {
				return fmt.Errorf("epoch %s names leaders %d and %d", n.Epoch, l, n.Leader)
			}
			by[n.Epoch] = n.Leader
		}
	}
	return nil
}
