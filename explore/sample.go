package explore

import (
	"fmt"
	"math/rand/v2"
)

// sample runs random or PCT schedules until a budget is spent or a
// violation is found; each schedule goes from the start to a leaf or to
// Depth choices.
//
// random picks uniformly among the moves. pct is PCT (Burckhardt,
// Kothari, Musuvathi and Nagarakatte, ASPLOS 2010) over the pending
// events: every event (and crash or drop move) gets a random priority
// when it first becomes a choice, the highest-priority move is taken,
// and at d-1 steps drawn at random in [1, Depth] the move taken gets a
// priority below every initial one (the i-th change point's is d-i):
// a bug that needs d ordering constraints is found with probability at
// least 1/(n·k^(d-1)) per schedule.
func (x *explorer) sample() error {
	rng := rand.New(rand.NewPCG(x.opt.Seed, 0x5c4ed01e))
	for x.res.Schedules < x.opt.Schedules && !x.stop() {
		m, err := x.machine(nil, 0)
		if err != nil {
			return err
		}
		var pct *pctState
		if x.opt.Strategy == PCT {
			pct = newPCT(rng, x.opt.PCTDepth, x.opt.Depth)
		}
		x.reach(m)
		x.seen[m.fingerprint()] = 0
		for !m.leaf() && m.depth < x.opt.Depth && x.found == nil {
			moves := m.moves()
			if len(moves) == 0 {
				break
			}
			i := 0
			if pct != nil {
				i = pct.pick(moves)
			} else {
				i = rng.IntN(len(moves))
			}
			if err := m.apply(moves[i]); err != nil {
				return err
			}
			x.reach(m)
			if !m.leaf() {
				f := m.fingerprint()
				if d, ok := x.seen[f]; !ok || m.depth < d {
					x.seen[f] = m.depth
				}
			}
			if x.opt.States > 0 && x.res.States >= x.opt.States {
				break
			}
		}
		if m.depth >= x.opt.Depth {
			x.hitDepth = true
		}
		x.res.Schedules++
		m.close()
	}
	if x.res.Budget == "" && x.found == nil {
		x.res.Budget = fmt.Sprintf("%d schedules", x.res.Schedules)
	}
	return nil
}

// pctState is one PCT schedule's priorities.
type pctState struct {
	rng    *rand.Rand
	d      int
	prio   map[string]int
	change map[int]int // step -> the change point's number, from 1
	step   int
}

func newPCT(rng *rand.Rand, d, k int) *pctState {
	p := &pctState{rng: rng, d: d, prio: map[string]int{}, change: map[int]int{}}
	for i := 1; i < d && len(p.change) < k; {
		s := 1 + rng.IntN(max(k, 1))
		if _, ok := p.change[s]; !ok {
			p.change[s] = i
			i++
		}
	}
	return p
}

// key names a move across the steps of one schedule: a pending event by
// its number (stable within a run), a crash or recovery by its node.
func (mv move) key() string {
	if mv.kind == 't' || mv.kind == 'd' {
		return fmt.Sprintf("%c%d", mv.kind, mv.seq)
	}
	return fmt.Sprintf("%c%d", mv.kind, mv.node)
}

func (p *pctState) pick(moves []move) int {
	p.step++
	best, bp := 0, -1
	for i, mv := range moves {
		k := mv.key()
		pr, ok := p.prio[k]
		if !ok {
			pr = p.d + 1 + p.rng.IntN(1<<30)
			p.prio[k] = pr
		}
		if pr > bp {
			best, bp = i, pr
		}
	}
	if c, ok := p.change[p.step]; ok {
		p.prio[moves[best].key()] = p.d - c
	}
	return best
}
