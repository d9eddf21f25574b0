package ring

import (
	"fmt"
	"testing"
	"time"

	"manetlab/protocol"
)

var (
	algorithms = []string{LeLann, ChangRoberts, HirschbergSinclair, Tanenbaum}
	sizes      = []int{1, 2, 3, 4, 5, 8, 13, 16, 32, 64}
)

// arrangement is a logical ring: protocol.params.ring and the run's seed.
type arrangement struct {
	name string
	ring any
	seed uint64
}

func arrangements() []arrangement {
	as := []arrangement{{"ascending", "ascending", 1}, {"descending", "descending", 1}}
	for s := uint64(1); s <= 5; s++ {
		as = append(as, arrangement{fmt.Sprintf("random-%d", s), "random", s})
	}
	return as
}

// horizon is how long a run lasts in virtual time: LeLann, Chang-Roberts
// and Hirschberg-Sinclair fall quiet long before; Tanenbaum's members keep
// checking their coordinator.
const horizon = 40 * time.Second

// elect runs alg's first election and checks its outcome and counts
// against theory; it returns the network for further checks.
func elect(t *testing.T, alg string, n int, a arrangement, extra protocol.Params, opts ...func(*network)) *network {
	t.Helper()
	members := ids(n)
	params := protocol.Params{"ring": a.ring}
	for k, v := range extra {
		params[k] = v
	}
	net := newNetwork(t, alg, members, params, a.seed, opts...)
	net.Run(horizon)
	if epoch := net.CheckElected(); epoch != "1" {
		t.Fatalf("%s n=%d %s: elected in epoch %s, want 1", alg, n, a.name, epoch)
	}
	b, err := net.Spec.Complexity.Bound(members, params, a.seed)
	if err != nil {
		t.Fatal(err)
	}
	el, ann, _, _ := net.Counts()
	switch {
	case n == 1:
		if el+ann != 0 {
			t.Fatalf("%s: a ring of one sent %v", alg, net.Sent)
		}
	case b.Exact == nil || el != *b.Exact:
		t.Fatalf("%s n=%d %s: %d election messages, exact bound %v (sent %v)", alg, n, a.name, el, b.Exact, net.Sent)
	case ann != n:
		t.Fatalf("%s n=%d %s: announcement of %d messages, want n=%d", alg, n, a.name, ann, n)
	}
	return net
}

// TestElectsTheHighestIDWithExactCounts: every algorithm, every size, the
// ascending, descending and seeded random rings, in FIFO order and with
// the delivery order randomised over three seeds: one leader, the highest
// ID, followed by all in epoch 1; the election's count equals the exact
// bound; the announcement costs n.
func TestElectsTheHighestIDWithExactCounts(t *testing.T) {
	for _, alg := range algorithms {
		for _, n := range sizes {
			for _, a := range arrangements() {
				t.Run(fmt.Sprintf("%s/n=%d/%s", alg, n, a.name), func(t *testing.T) {
					net := elect(t, alg, n, a, nil)
					el, _, _, _ := net.Counts()
					if r := net.Sent["transport-retx"]; r != 0 {
						t.Fatalf("%d retransmissions without loss", r)
					}
					for _, order := range []uint64{101, 102, 103} {
						again := elect(t, alg, n, a, nil, shuffled(order))
						if el2, _, _, _ := again.Counts(); el2 != el {
							t.Fatalf("delivery order %d: %d election messages, FIFO order %d", order, el2, el)
						}
					}
				})
			}
		}
	}
}

// TestCountsAgainstFormulas checks the measured counts against the closed
// forms. Tokens travel to the successor, so on the ascending ring the IDs
// increase along the direction of travel (Chang-Roberts' best case, each
// token but the maximum's dropped after one hop: 2n-1) and on the
// descending ring they decrease (the worst case: n(n+1)/2).
func TestCountsAgainstFormulas(t *testing.T) {
	for _, n := range sizes[1:] {
		for _, a := range arrangements() {
			le, _, _, _ := elect(t, LeLann, n, a, nil).Counts()
			if le != n*n {
				t.Errorf("LeLann n=%d %s: %d tokens, want n²=%d", n, a.name, le, n*n)
			}
			cr, _, _, _ := elect(t, ChangRoberts, n, a, nil).Counts()
			if cr > n*(n+1)/2 || cr < 2*n-1 {
				t.Errorf("Chang-Roberts n=%d %s: %d tokens outside [2n-1, n(n+1)/2] = [%d, %d]", n, a.name, cr, 2*n-1, n*(n+1)/2)
			}
			switch a.name {
			case "ascending":
				if cr != 2*n-1 {
					t.Errorf("Chang-Roberts n=%d ascending: %d tokens, want 2n-1=%d", n, cr, 2*n-1)
				}
			case "descending":
				if cr != n*(n+1)/2 {
					t.Errorf("Chang-Roberts n=%d descending: %d tokens, want n(n+1)/2=%d", n, cr, n*(n+1)/2)
				}
			}
			hs, _, _, _ := elect(t, HirschbergSinclair, n, a, nil).Counts()
			if hs > HirschbergSinclairLimit(n) {
				t.Errorf("Hirschberg-Sinclair n=%d %s: %d messages, over 8n(1+⌈log2 n⌉)=%d", n, a.name, hs, HirschbergSinclairLimit(n))
			}
			tb, co, _, _ := elect(t, Tanenbaum, n, a, protocol.Params{"initiators": "one"}).Counts()
			if tb+co != 2*n {
				t.Errorf("Tanenbaum n=%d %s one initiator: %d+%d messages, want 2m=%d", n, a.name, tb, co, 2*n)
			}
		}
	}
}

// TestInitiatorSubsets: with some initiators, the exact counts still hold
// (Chang-Roberts' from the wake-up rule; Hirschberg-Sinclair's do not
// depend on the initiators; LeLann and Tanenbaum: each initiator's message
// goes round), in FIFO and randomised order. LeLann elects the highest
// initiator (seed 000: only initiators' tokens compete), so its subsets
// include the highest ID here; the others elect the highest ID anyway.
func TestInitiatorSubsets(t *testing.T) {
	for _, n := range []int{2, 3, 5, 8, 13, 32} {
		members := ids(n)
		inits := []any{"one", []any{int(members[n-1])}, []any{int(members[0]), int(members[n/2])}}
		if n > 2 {
			inits = append(inits, []any{int(members[n/2]), int(members[n-1])})
		}
		for _, init := range inits {
			for _, alg := range algorithms {
				if alg == LeLann {
					if l, ok := init.([]any); !ok || l[len(l)-1] != int(members[n-1]) {
						continue
					}
				}
				for _, a := range arrangements() {
					for _, order := range []uint64{0, 7} {
						var opts []func(*network)
						if order != 0 {
							opts = append(opts, shuffled(order))
						}
						t.Run(fmt.Sprintf("%s/n=%d/%v/%s/%d", alg, n, init, a.name, order), func(t *testing.T) {
							elect(t, alg, n, a, protocol.Params{"initiators": init}, opts...)
						})
					}
				}
			}
		}
	}
}

// TestLeLannElectsTheHighestInitiator documents the seed's rule: a process
// that received a token before initiating never initiates, so only the
// initiators' IDs compete.
func TestLeLannElectsTheHighestInitiator(t *testing.T) {
	members := ids(5)
	net := newNetwork(t, LeLann, members, protocol.Params{"ring": "ascending", "initiators": []any{int(members[1]), int(members[2])}}, 1)
	net.Run(horizon)
	net.CheckSafety()
	for _, id := range members {
		if l, e, _ := net.Follows(id); l != members[2] || e != "1" {
			t.Fatalf("node %d follows %d in epoch %s, want the highest initiator %d", id, l, e, members[2])
		}
	}
	if el, ann, _, _ := net.Counts(); el != 2*5 || ann != 5 {
		t.Fatalf("%d tokens and %d announcements, want 2·5 and 5", el, ann)
	}
}

// TestElectCommandStartsTheNextEpoch: an elect command after the first
// election runs a second one, numbered 2, with the same winner; with all
// initiators the second costs what the first did (initiators that meet the
// new election initiate in it), Tanenbaum's one initiator 2n.
func TestElectCommandStartsTheNextEpoch(t *testing.T) {
	for _, alg := range algorithms {
		for _, n := range []int{1, 2, 5, 13} {
			a := arrangement{"random-3", "random", 3}
			first := elect(t, alg, n, a, nil)
			el1, ann1, _, _ := first.Counts()
			members := ids(n)
			net := newNetwork(t, alg, members, protocol.Params{"ring": "random"}, 3)
			net.Run(horizon, action{At: 10 * time.Second, Fn: func() { net.Command(members[0], protocol.Elect) }})
			if e := net.CheckElected(); e != "2" {
				t.Fatalf("%s n=%d: after the command the epoch is %s, want 2", alg, n, e)
			}
			el, ann, _, _ := net.Counts()
			wantEl, wantAnn := 2*el1, 2*ann1
			if alg == Tanenbaum && n > 1 {
				wantEl, wantAnn = el1+n, 2*ann1
			}
			if el != wantEl || ann != wantAnn {
				t.Fatalf("%s n=%d: two elections sent %d + %d announcement, want %d + %d", alg, n, el, ann, wantEl, wantAnn)
			}
		}
	}
}

// TestLossIsRepairedByTheTransport: with 20% of frames lost the right
// leader wins, the algorithm's counts by kind equal the lossless run's,
// and the extra traffic is only acknowledgements and retransmissions.
// Retries are raised: at 20% loss a frame and its acknowledgement both get
// through with probability 0.64, so the default 5 retransmissions declare
// a live peer unreachable about once in 500 messages.
func TestLossIsRepairedByTheTransport(t *testing.T) {
	params := protocol.Params{"retries": 30}
	for _, alg := range algorithms {
		retx := 0
		for _, n := range []int{2, 3, 8, 16, 32} {
			for _, a := range arrangements()[:4] {
				clean := elect(t, alg, n, a, params)
				want := clean.AlgorithmKinds()
				for _, s := range []uint64{1, 2, 3} {
					net := elect(t, alg, n, a, params, lossy(0.2, s))
					got := net.AlgorithmKinds()
					if alg == Tanenbaum { // checks follow the clock, not the election
						delete(got, KindCheck)
						delete(want, KindCheck)
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s n=%d %s loss seed %d: algorithm kinds %v, lossless %v", alg, n, a.name, s, got, want)
					}
					retx += net.Sent["transport-retx"]
				}
			}
		}
		if retx == 0 {
			t.Fatalf("%s: 20%% loss and no retransmission", alg)
		}
	}
}
