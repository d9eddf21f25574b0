package invitation

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// fast are parameters for the in-memory network: checks and probes every
// 100 ms, a channel that gives up after 150 ms (10ms doubling, 3 retries).
var fast = protocol.Params{"check": "100ms", "probe": "100ms", "answer": "30ms", "window": "50ms", "rto": "10ms", "retries": 3, "timeout": "400ms"}

func with(p protocol.Params, kv ...any) protocol.Params {
	q := protocol.Params{}
	for k, v := range p {
		q[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		q[kv[i].(string)] = kv[i+1]
	}
	return q
}

// TestOneMerge: n singletons without faults become one group under the
// highest ID in exactly one merge: 3(n-1) election messages and n-1 ready.
func TestOneMerge(t *testing.T) {
	for _, reach := range []string{ReachMultiHop, ReachOneHop} {
		for _, k := range []int{1, 2, 3, 7, 12} {
			n := newNetwork(t, ids(k), with(fast, "reach", reach), 1)
			n.run(2 * time.Second)
			gs := n.checkGroups()
			if k > 1 && gs[0] != (Group{Coord: protocol.NodeID(k), Counter: 2}) {
				t.Fatalf("%s k=%d: group %s, want %d.2 (the boot's singleton, then one merge)", reach, k, gs[0], k)
			}
			election, announce, control, _ := n.Counts()
			we, wa := MergeCounts(k)
			if election != we || announce != wa {
				t.Fatalf("%s k=%d: %d election messages and %d ready, want %d and %d (%v)", reach, k, election, announce, we, wa, n.Sent)
			}
			if k > 1 && control == 0 {
				t.Fatalf("%s k=%d: no control messages", reach, k)
			}
			b, err := Bound(ids(k), fast, 1)
			if err != nil || b.Value != float64(we) || b.Exact != nil {
				t.Fatalf("bound %+v, %v", b, err)
			}
		}
	}
}

// TestMergeOfGroups: groups of sizes 3, 2 and 4 (formed in a partition)
// merge once the network heals: the highest coordinator invites the other
// two, which forward the invitation to their members, and the merge costs
// 3(n-1) election messages for its n = 9 nodes, whatever the sizes.
func TestMergeOfGroups(t *testing.T) {
	for _, reach := range []string{ReachMultiHop, ReachOneHop} {
		n := newNetwork(t, ids(9), with(fast, "reach", reach), 2)
		n.Partition([]protocol.NodeID{1, 4, 7}, []protocol.NodeID{2, 5}, []protocol.NodeID{3, 6, 8, 9})
		n.run(2 * time.Second)
		gs := n.checkGroups()
		if len(gs) != 3 {
			t.Fatalf("%s: %d groups in 3 components", reach, len(gs))
		}
		before, beforeReady, _, _ := n.Counts()
		n.Heal()
		n.run(4 * time.Second)
		gs = n.checkGroups()
		if len(gs) != 1 || gs[0].Coord != 9 {
			t.Fatalf("%s: groups %v after the heal", reach, gs)
		}
		election, announce, _, _ := n.Counts()
		we, wa := MergeCounts(9)
		if election-before != we || announce-beforeReady != wa {
			t.Fatalf("%s: the merge cost %d election messages and %d ready, want %d and %d", reach, election-before, announce-beforeReady, we, wa)
		}
		// The members of 7's and 5's groups were invited by their
		// coordinators (forwarded), not by 9.
		forwarded := 0
		for _, r := range n.Notes {
			if r.Kind == protocol.NoteInfo && strings.Contains(r.Text, "declines") {
				t.Fatalf("%s: %v node %d: %s", reach, r.At, r.Node, r.Text)
			}
		}
		for _, id := range []protocol.NodeID{1, 4, 2} {
			if n.proc(id).group.Coord == 9 {
				forwarded++
			}
		}
		if forwarded != 3 {
			t.Fatalf("%s: members of the lower groups did not join", reach)
		}
	}
}

// TestPartitionAndHeal: a partition gives one group per component, led by
// its highest ID; after the heal, one group again; Assertion 3 and unique
// group names are checked after every step (network.invariants).
func TestPartitionAndHeal(t *testing.T) {
	for _, reach := range []string{ReachMultiHop, ReachOneHop} {
		for seed := uint64(1); seed <= 5; seed++ {
			n := newNetwork(t, ids(7), with(fast, "reach", reach), seed, lossy(0.1, seed))
			n.run(3 * time.Second)
			n.checkGroups()
			n.Partition([]protocol.NodeID{1, 2, 5, 7}, []protocol.NodeID{3, 4, 6})
			n.run(8 * time.Second)
			gs := n.checkGroups()
			if len(gs) != 2 || gs[0].Coord != 7 || gs[1].Coord != 6 {
				t.Fatalf("%s seed %d: groups %v in the partition, want 7.x and 6.x", reach, seed, gs)
			}
			n.Heal()
			n.run(13 * time.Second)
			if gs := n.checkGroups(); len(gs) != 1 || gs[0].Coord != 7 {
				t.Fatalf("%s seed %d: groups %v after the heal", reach, seed, gs)
			}
		}
	}
}

// TestCrashAndRecovery: the coordinator crashes, its members give it up
// and merge under the next highest; it recovers with its counter from
// stable storage (a group name it never used) and leads again.
func TestCrashAndRecovery(t *testing.T) {
	n := newNetwork(t, ids(5), fast, 3)
	n.run(2 * time.Second)
	if g := n.checkGroups()[0]; g != (Group{5, 2}) {
		t.Fatalf("group %s, want 5.2", g)
	}
	n.run(6*time.Second, action{At: 2 * time.Second, Fn: func() { n.Crash(5) }})
	if g := n.checkGroups()[0]; g.Coord != 4 {
		t.Fatalf("group %s after 5 crashed, want 4.x", g)
	}
	if b, _ := n.Nodes[5].Store.Get(StoreKey); string(b) != "2" {
		t.Fatalf("node 5's storage holds %q, want 2", b)
	}
	n.Recover(5)
	if g := n.proc(5).group; g != (Group{5, 3}) {
		t.Fatalf("recovered node 5 forms %s, want 5.3 (its counter went on from storage)", g)
	}
	n.run(10 * time.Second)
	if g := n.checkGroups()[0]; g != (Group{5, 4}) {
		t.Fatalf("group %s, want 5.4", g)
	}
	// Crash it again right after a new group: the counter still goes on.
	n.Crash(5)
	n.Recover(5)
	n.Crash(5)
	n.Recover(5)
	if g := n.proc(5).group; g != (Group{5, 6}) {
		t.Fatalf("group %s after two more recoveries, want 5.6", g)
	}
	n.run(14 * time.Second)
	n.checkGroups()
}

// TestStoreFailure: while stable storage refuses writes a node forms no
// group (it cannot be sure its name is new): it has no leader and does not
// take part; once storage works it forms one at the next check tick.
func TestStoreFailure(t *testing.T) {
	var st *failingStore
	n := newNetwork(t, ids(3), fast, 4, func(n *protonet.Network) {
		st = &failingStore{broken: true}
		n.Nodes[3].Store = st
	})
	if p := n.proc(3); p.coord != protocol.None || p.status != Election {
		t.Fatalf("node 3 with broken storage: %v under %d", p.status, p.coord)
	}
	n.run(time.Second)
	if gs := n.checkGroupsOf([]protocol.NodeID{1, 2}); gs.Coord != 2 {
		t.Fatalf("nodes 1 and 2: group %s", gs)
	}
	if l, _ := n.follows(3); l != protocol.None {
		t.Fatalf("node 3 follows %d without a group", l)
	}
	st.broken = false
	n.run(3 * time.Second)
	if g := n.checkGroups()[0]; g.Coord != 3 {
		t.Fatalf("group %s once storage works, want 3.x", g)
	}
	found := false
	for _, r := range n.Notes {
		found = found || r.Node == 3 && strings.Contains(r.Text, "stable storage failed")
	}
	if !found {
		t.Fatal("the storage failure is not noted")
	}
}

// checkGroupsOf fails unless the nodes given are one group in Normal and
// returns it.
func (n *network) checkGroupsOf(nodes []protocol.NodeID) Group {
	n.T.Helper()
	g := n.proc(nodes[0]).group
	for _, id := range nodes {
		p := n.proc(id)
		if p.status != Normal || p.group != g {
			n.T.Fatalf("node %d is %v in group %s, want Normal in %s\n%s", id, p.status, p.group, g, n.describe())
		}
	}
	return g
}

// TestStoller: on a line 1-2-3 with one-hop reach, Garcia-Molina's rule
// (accept: any) and the seed's timing, 2 ends in 1's group and 3 alone,
// 3 still counting 2 as a member (the seed's account of Stoller); under
// the default rule 2 stays with 3 and 1 is alone. Either way the leader of
// a maximal set of nodes that talk to each other ({2,3} or {1,2}) is
// outside it. Over multi-hop delivery one group under 3.
func TestStoller(t *testing.T) {
	p := with(fast, "reach", ReachOneHop, "accept", AcceptAny, "gap", "200ms")
	n := newNetwork(t, ids(3), p, 1, line)
	n.run(3 * time.Second)
	g1, g2, g3 := n.proc(1), n.proc(2), n.proc(3)
	if g1.coord != 1 || g2.coord != 1 || g2.group != g1.group || g3.coord != 3 || !slices.Equal(g3.up, []protocol.NodeID{2}) {
		t.Fatalf("accept any: want 1 leading {1,2} and 3 alone believing 2 its member\n%s", n.describe())
	}

	n = newNetwork(t, ids(3), with(p, "accept", AcceptHigher), 1, line)
	n.run(3 * time.Second)
	g1, g2, g3 = n.proc(1), n.proc(2), n.proc(3)
	if g1.coord != 1 || len(g1.up) != 0 || g2.coord != 3 || g3.coord != 3 || g2.group != g3.group {
		t.Fatalf("accept higher: want 3 leading {2,3} and 1 alone\n%s", n.describe())
	}

	for _, rule := range []string{AcceptAny, AcceptHigher} {
		n = newNetwork(t, ids(3), with(p, "reach", ReachMultiHop, "accept", rule), 1, line)
		n.run(3 * time.Second)
		if g := n.checkGroups(); len(g) != 1 || g[0].Coord != 3 {
			t.Fatalf("multi-hop, accept %s: %v", rule, g)
		}
	}
}

// TestAcceptRule drives one coordinator: under accept: higher it declines
// an invitation from a lower coordinator (and checks again soon, to invite
// it) and accepts one from a higher; under accept: any it accepts both.
func TestAcceptRule(t *testing.T) {
	for _, rule := range []string{AcceptHigher, AcceptAny} {
		n := newNetwork(t, ids(5), with(fast, "accept", rule, "check", "1h"), 1)
		p := n.proc(3)
		p.receive(2, Msg{Type: TypeInvitation, Coord: 2, Counter: 7})
		if rule == AcceptHigher {
			if p.status != Normal || p.coord != 3 || p.soon == 0 {
				t.Fatalf("higher: node 3 took the invitation of 2: %v under %d", p.status, p.coord)
			}
		} else if p.status != Election || p.coord != 2 || p.group != (Group{2, 7}) {
			t.Fatalf("any: node 3 did not take the invitation of 2: %v under %d", p.status, p.coord)
		}
		n = newNetwork(t, ids(5), with(fast, "accept", rule, "check", "1h"), 1)
		p = n.proc(3)
		p.receive(4, Msg{Type: TypeInvitation, Coord: 4, Counter: 9})
		if p.status != Election || p.coord != 4 || p.group != (Group{4, 9}) {
			t.Fatalf("%s: node 3 did not take the invitation of 4: %v under %d", rule, p.status, p.coord)
		}
	}
}

// TestRandomFaults runs seeded scenarios on the in-memory network: 3 to 9
// nodes, loss up to 20 %, crashes and recoveries, partitions into random
// parts and heals, multi-hop and one-hop reach (one-hop with every pair in
// range, so that components are cliques). Invariants are checked after
// every step; once the faults stop, every component must become one group
// under its highest live ID within the settle time.
func TestRandomFaults(t *testing.T) {
	seeds := 150
	if testing.Short() {
		seeds = 30
	}
	const faultsEnd, settle = 6 * time.Second, 6 * time.Second
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x7261))
		k := 3 + rng.IntN(7)
		reach := []string{ReachMultiHop, ReachOneHop}[rng.IntN(2)]
		loss := []float64{0, 0.05, 0.1, 0.2}[rng.IntN(4)]
		members := ids(k)
		n := newNetwork(t, members, with(fast, "reach", reach), seed, lossy(loss, seed))
		var acts []action
		var log []string
		for range 1 + rng.IntN(6) {
			at := time.Duration(rng.Int64N(int64(faultsEnd)))
			id := members[rng.IntN(k)]
			switch rng.IntN(4) {
			case 0:
				acts = append(acts, action{At: at, Fn: func() {
					if n.Nodes[id].Alive {
						n.Crash(id)
					}
				}})
				log = append(log, fmt.Sprintf("%v crash %d", at, id))
			case 1:
				acts = append(acts, action{At: at, Fn: func() {
					if !n.Nodes[id].Alive {
						n.Recover(id)
					}
				}})
				log = append(log, fmt.Sprintf("%v recover %d", at, id))
			case 2:
				parts := make([][]protocol.NodeID, 2+rng.IntN(2))
				for _, m := range members {
					i := rng.IntN(len(parts))
					parts[i] = append(parts[i], m)
				}
				acts = append(acts, action{At: at, Fn: func() { n.Heal(); n.Partition(parts...) }})
				log = append(log, fmt.Sprintf("%v partition %v", at, parts))
			default:
				acts = append(acts, action{At: at, Fn: n.Heal})
				log = append(log, fmt.Sprintf("%v heal", at))
			}
		}
		if rng.IntN(2) == 0 {
			acts = append(acts, action{At: faultsEnd, Fn: n.Heal})
			log = append(log, fmt.Sprintf("%v heal", faultsEnd))
		}
		func() {
			defer func() {
				if t.Failed() {
					t.Logf("seed %d: %d nodes, %s, loss %g, faults %v\nrerun: go test ./invitation -run 'TestRandomFaults$' -v (seeds run in order; the first failure stops it)", seed, k, reach, loss, log)
				}
			}()
			n.run(faultsEnd+settle, acts...)
			n.checkGroups()
		}()
		if t.Failed() {
			return
		}
	}
}

// TestDeterministic: the same seed gives the same notes.
func TestDeterministic(t *testing.T) {
	run := func() []protonet.NoteRec {
		n := newNetwork(t, ids(6), fast, 9, lossy(0.2, 9))
		n.run(4*time.Second, action{At: time.Second, Fn: func() { n.Crash(6) }}, action{At: 2 * time.Second, Fn: func() { n.Recover(6) }})
		return n.Notes
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatal("two runs with one seed differ")
	}
}

// TestParams: defaults, derived defaults, and bad values named.
func TestParams(t *testing.T) {
	s, err := parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.reach != ReachMultiHop || s.accept != AcceptHigher || s.check != DefaultCheck || s.probe != DefaultProbe ||
		s.answer != DefaultAnswer || s.window != DefaultWindow || s.gap != DefaultCheck+DefaultAnswer ||
		s.timeout != 2*12600*time.Millisecond {
		t.Fatalf("defaults %+v", s)
	}
	// 2·rto·(2^(retries+1)-1) = 3.1s, above 3 probe periods
	s, err = parse(protocol.Params{"rto": "50ms", "retries": 4, "probe": "1s", "check": "1s"})
	if err != nil || s.timeout != 3100*time.Millisecond || s.gap != 1500*time.Millisecond {
		t.Fatalf("derived: timeout %v gap %v, %v", s.timeout, s.gap, err)
	}
	if s, _ := parse(protocol.Params{"rto": "10ms", "retries": 1, "probe": "1s"}); s.timeout != 3*time.Second {
		t.Fatalf("timeout %v, want 3 probe periods", s.timeout)
	}
	// Under AODV (route delay 1.92 s): answer and window wait for it too,
	// gap follows answer, the channel gives up 1.92 s later; no warning.
	ms := time.Millisecond
	s, err = parseWith(nil, 1920*ms)
	if err != nil || s.answer != 2420*ms || s.window != 2420*ms || s.gap != 4420*ms || s.timeout != 2*14520*ms || s.rel.FirstWait() != 2120*ms {
		t.Fatalf("defaults under AODV: answer %v window %v gap %v timeout %v first wait %v, %v", s.answer, s.window, s.gap, s.timeout, s.rel.FirstWait(), err)
	}
	// one-hop reach sends to neighbours: no route to wait for
	if s, err := parseWith(protocol.Params{"reach": "one-hop"}, 1920*ms); err != nil || s.answer != DefaultAnswer || s.rel.FirstWait() != 200*ms {
		t.Fatalf("one-hop under AODV: answer %v, first wait %v, %v", s.answer, s.rel.FirstWait(), err)
	}
	_, err = parseWith(protocol.Params{"answer": "500ms"}, 1920*ms)
	if w, ok := protocol.Warned(err); !ok || w == nil || !strings.Contains(w.Text, "answer 500ms and window 2.42s") || !strings.Contains(w.Text, "at least 2.42s") {
		t.Fatalf("answer 500ms under AODV: %v, want a warning with the figures", err)
	}
	for _, c := range []struct {
		p    protocol.Params
		want string
	}{
		{protocol.Params{"reach": "two-hop"}, "protocol.params.reach: two-hop is not one of multi-hop, one-hop"},
		{protocol.Params{"accept": "lower"}, "protocol.params.accept: lower is not one of higher, any"},
		{protocol.Params{"check": "0s"}, "protocol.params.check: 0s is not a positive duration"},
		{protocol.Params{"window": "soon"}, "protocol.params.window: soon is not a non-negative duration"},
		{protocol.Params{"gap": "-1s"}, "protocol.params.gap: -1s is not a non-negative duration"},
		{protocol.Params{"retries": -1}, "protocol.params.retries: -1 is not a non-negative integer"},
		{protocol.Params{"chek": "1s"}, "protocol.params.chek: unknown parameter"},
	} {
		if _, err := parse(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.p, err, c.want)
		}
	}
	if _, err := Bound(ids(3), protocol.Params{"reach": 1}, 0); err == nil {
		t.Error("Bound accepted a bad parameter")
	}
	if _, err := New(protocol.Config{ID: 9, Members: ids(3), Env: protonet.NewEnv(t, 9)}); err == nil || !strings.Contains(err.Error(), "not a member") {
		t.Errorf("a non-member: %v", err)
	}
	st := &protocol.MemStore{}
	st.Put(StoreKey, []byte("x"))
	if _, err := New(protocol.Config{ID: 1, Members: ids(3), Env: protonet.NewEnv(t, 1), Store: st}); err == nil || !strings.Contains(err.Error(), "not a counter") {
		t.Errorf("a bad counter: %v", err)
	}
}
