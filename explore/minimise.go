package explore

import (
	"time"

	"manetlab/sim"
)

// finish minimises a violation found and fills the result.
func (x *explorer) finish() (*Result, error) {
	res := x.res
	res.Distinct = len(x.seen)
	if x.found != nil {
		v, err := x.minimise(x.found)
		if err != nil {
			return nil, err
		}
		if err := x.confirm(v); err != nil {
			return nil, err
		}
		if v.Confirmed {
			res.Violation = v
		} else {
			res.Unconfirmed = v
		}
	}
	res.Elapsed = time.Since(x.start)
	return &res, nil
}

// minimise removes runs of choices (halving their length), then choices
// one at a time, from the last, keeping a
// removal when the same property is still violated, and repeats until
// no removal keeps it (a 1-minimal schedule: removing any one choice
// loses the violation). A candidate is run by applying each kept
// choice as soon as its event is pending and may be taken (named by
// what it is, not by its number, which an earlier change shifts), in
// the simulator's order between them and after them, checking every
// step; crashes and recoveries are applied right after the choice
// before them.
func (x *explorer) minimise(r *raw) (*Violation, error) {
	best, step, err := x.tryChoices(r.choices, r.prop)
	if err != nil {
		return nil, err
	}
	if best == nil {
		// The found schedule does not reproduce in the simulator's
		// order after its choices: keep it as found (its steps are
		// exact).
		best, step = r.choices, r.step
	}
	// First whole runs of choices, halving (the simulator's own order,
	// no choice at all, is tried first): a long schedule found deep in a
	// random run often needs few of its choices, and one removal at a
	// time would replay it once per choice.
	for size := len(best); size > 1; size /= 2 {
		for i := len(best) - size; i >= 0; i -= size {
			cand := append(append([]sim.Choice(nil), best[:i]...), best[i+size:]...)
			got, st, err := x.tryChoices(cand, r.prop)
			if err != nil {
				return nil, err
			}
			if got != nil {
				best, step = got, st
				i = min(i, len(best))
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(best) - 1; i >= 0; i-- {
			cand := append(append([]sim.Choice(nil), best[:i]...), best[i+1:]...)
			got, st, err := x.tryChoices(cand, r.prop)
			if err != nil {
				return nil, err
			}
			if got != nil {
				best, step, changed = got, st, true
				if i > len(best) {
					i = len(best)
				}
			}
		}
	}
	w := x.witness(best, step, r)
	return &Violation{Property: r.prop, Witness: w, Step: step, Found: len(r.choices),
		Schedule: &sim.Schedule{Seed: x.s.Seed, Steps: step, Choices: best,
			Violation: &sim.Violation{Property: r.prop, Witness: w, Step: step}}}, nil
}

// witness is the violation's line as the minimised schedule shows it.
func (x *explorer) witness(choices []sim.Choice, step int, r *raw) string {
	m, err := x.runCandidate(choices)
	if err != nil || m.chk.found == nil || m.chk.found.prop != r.prop {
		return r.witness
	}
	defer m.close()
	return m.chk.found.witness
}

// tryChoices runs a candidate and returns the choices it made and the
// violating step when it violates prop; nil when it does not.
func (x *explorer) tryChoices(cand []sim.Choice, prop string) ([]sim.Choice, int, error) {
	m, err := x.runCandidate(cand)
	if err != nil {
		return nil, 0, err
	}
	defer m.close()
	if m.chk.found == nil || m.chk.found.prop != prop {
		return nil, 0, nil
	}
	// Never nil: no choice at all (the simulator's own order) may be
	// what shows it.
	return append([]sim.Choice{}, m.c.Choices()...), m.step, nil
}

// maxRun bounds the steps of a candidate run after its choices.
const maxRun = 1 << 20

// runCandidate runs cand as minimise describes; a choice that never
// becomes possible makes the candidate fail (no violation).
func (x *explorer) runCandidate(cand []sim.Choice) (*machine, error) {
	m := &machine{x: x, chk: newChecker(x.rules)}
	c, err := sim.NewController(x.s, sim.Options{Discard: true}, m.chk.observe)
	if err != nil {
		return nil, err
	}
	m.c = c
	stepped := func() bool {
		if m.chk.found != nil {
			m.step = c.Steps()
			return false
		}
		return true
	}
	for _, ch := range cand {
		if ch.Take != 0 || ch.Drop != 0 {
			for {
				seq, ok := pendingNamed(m, ch)
				if ok {
					if ch.Take != 0 {
						ch.Take = seq
					} else {
						ch.Drop = seq
					}
					break
				}
				if !c.Step() || !stepped() {
					return m, nil
				}
			}
		}
		ch.Step = c.Steps()
		if err := c.Apply(ch); err != nil {
			return m, nil
		}
		if !stepped() {
			return m, nil
		}
	}
	for range maxRun {
		if _, ok := c.Next(); !ok {
			m.ended()
			return m, nil
		}
		if !m.active() {
			m.quiet = true
			m.judge()
			return m, nil
		}
		c.Step()
		if !stepped() {
			return m, nil
		}
	}
	return m, nil
}

// pendingNamed finds ch's event (by its What) among the pending events
// that may be taken (or dropped), and returns its number now.
func pendingNamed(m *machine, ch sim.Choice) (uint64, bool) {
	for _, p := range m.c.Pending() {
		if p.Text != ch.What {
			continue
		}
		if ch.Take != 0 && !p.Offered || ch.Drop != 0 && !p.Droppable {
			continue
		}
		return p.Seq, true
	}
	return 0, false
}
