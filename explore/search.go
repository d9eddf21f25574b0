package explore

import (
	"fmt"
	"slices"
	"time"

	"manetlab/scenario"
	"manetlab/sim"
)

// explorer is one search.
type explorer struct {
	s     *scenario.Scenario
	opt   Options
	rules *rules
	start time.Time
	res   Result
	// seen maps a state's fingerprint to the fewest choices it was
	// reached with: a state reached again with no more depth left is not
	// explored again.
	seen map[fp]int
	// slept is dfs's sleep set of a state in seen (sleep.go), when not
	// empty.
	slept map[fp][]uint64
	// coarse, when not nil, collects the coarse identity of every state
	// reached (a test's: sleep_test.go).
	coarse map[fp]bool
	// checkIncremental, a test's, also hashes every node of every state
	// afresh and counts in incrementalWrong the fingerprints that differ
	// from the incremental one.
	checkIncremental bool
	incrementalWrong int
	hitDepth         bool // some schedule was cut at Depth
	found            *raw
	notes            map[string]bool
	report           time.Time // the last progress line
	types            types     // the fingerprint's cache of types
	memory           uint64    // the memory bound (0: none)
	sinceMemory      int       // states since the memory was last read
}

// raw is a violation as found, before minimisation.
type raw struct {
	found
	choices []sim.Choice
	step    int
}

func newExplorer(s *scenario.Scenario, opt Options) (*explorer, error) {
	x := &explorer{s: s, opt: opt, rules: newRules(s), start: time.Now(), seen: map[fp]int{}, slept: map[fp][]uint64{}, notes: map[string]bool{}, types: types{}}
	x.report = x.start
	x.memory, x.res.Memory = memoryBound(opt)
	for _, n := range x.rules.notes {
		x.note(n)
	}
	return x, nil
}

// note records something a check could not decide, once.
func (x *explorer) note(s string) {
	if !x.notes[s] {
		x.notes[s] = true
		x.res.Notes = append(x.res.Notes, s)
	}
}

// stop reports whether a budget is spent (or a violation found).
func (x *explorer) stop() bool {
	switch {
	case x.found != nil:
		return true
	case x.res.Budget != "":
		return true
	case x.opt.States > 0 && x.res.States >= x.opt.States:
		x.res.Budget = fmt.Sprintf("%d states", x.opt.States)
	case x.opt.Time > 0 && time.Since(x.start) >= x.opt.Time:
		x.res.Budget = fmt.Sprintf("%v", x.opt.Time)
	case x.memory > 0:
		if x.sinceMemory++; x.sinceMemory >= memoryEvery {
			x.sinceMemory = 0
			if used := memoryInUse(); used >= x.memory {
				x.res.Budget = fmt.Sprintf("memory: %s in use, bound %s", mib(used), mib(x.memory))
			}
		}
	}
	x.progress()
	return x.res.Budget != ""
}

// progress prints a line every two seconds.
func (x *explorer) progress() {
	if x.opt.Progress == nil || time.Since(x.report) < 2*time.Second {
		return
	}
	x.report = time.Now()
	el := time.Since(x.start)
	fmt.Fprintf(x.opt.Progress, "explore: %d states, %d distinct, %d schedules, depth %d, %.0f distinct states/s, %s\n",
		x.res.States, len(x.seen), x.res.Schedules, x.res.MaxDepth, float64(len(x.seen))/el.Seconds(), el.Round(100*time.Millisecond))
}

// reach counts a state reached and records a violation in it.
func (x *explorer) reach(m *machine) {
	x.res.States++
	if x.coarse != nil {
		x.coarse[m.fingerprintOrdered(false)] = true
	}
	x.res.MaxDepth = max(x.res.MaxDepth, m.depth)
	if m.quiet || m.done {
		x.res.Quiescent++
	}
	if m.chk.outside != "" {
		x.note(m.chk.outside)
	}
	if m.chk.found != nil && x.found == nil {
		x.found = &raw{found: *m.chk.found, choices: m.c.Choices(), step: m.step}
	}
}

// machine restores the state reached by choices, depth of them the
// explorer's own (the rest frames taken at once: machine.early).
func (x *explorer) machine(choices []sim.Choice, depth int) (*machine, error) {
	return newMachine(x, x.s, choices, depth)
}

// dfs explores depth first, every schedule within Depth, states seen
// before with as much depth left cut off.
func (x *explorer) dfs() error {
	m, err := x.machine(nil, 0)
	if err != nil {
		return err
	}
	if err := x.dfsFrom(m, nil); err != nil {
		return err
	}
	x.res.Exhaustive = x.res.Budget == "" && x.found == nil
	return nil
}

func (x *explorer) dfsFrom(m *machine, sleep []sleeper) error {
	x.reach(m)
	if m.leaf() {
		x.res.Schedules++
		m.close()
		return nil
	}
	f := m.fingerprint()
	var todo []move
	if d, ok := x.seen[f]; ok && d <= m.depth {
		// Seen with as much depth left: explore only what was asleep
		// then and is awake now (none without sleep sets).
		was := x.slept[f]
		for _, mv := range m.moves() {
			if slices.Contains(was, mv.sl.key) && !asleep(sleep, mv) {
				todo = append(todo, mv)
			}
		}
		if len(todo) == 0 {
			x.res.Schedules++
			m.close()
			return nil
		}
		x.sleepKeys(f, slices.DeleteFunc(was, func(k uint64) bool {
			return !slices.ContainsFunc(sleep, func(s sleeper) bool { return s.key == k })
		}))
	} else {
		x.seen[f] = m.depth
		x.sleepKeys(f, keys(sleep))
		for _, mv := range m.moves() {
			if !asleep(sleep, mv) {
				todo = append(todo, mv)
			}
		}
	}
	if m.depth >= x.opt.Depth {
		x.hitDepth = true
		x.res.Schedules++
		m.close()
		return nil
	}
	if len(todo) == 0 {
		x.res.Schedules++
		m.close()
		return nil
	}
	path, depth := m.c.Choices(), m.depth
	due := m.due()
	nodes := m.nodes // m becomes the first child
	for i, mv := range todo {
		if x.stop() {
			if i == 0 {
				m.close()
			}
			break
		}
		child := m
		if i > 0 {
			var err error
			if child, err = x.machine(path, depth); err != nil {
				return err
			}
		}
		// The child's nodes that mv and the settling after it leave
		// alone keep their parts of this state's fingerprint.
		child.prev = nodes
		if err := child.apply(mv); err != nil {
			return err
		}
		if err := x.dfsFrom(child, wake(sleep, mv, due)); err != nil {
			return err
		}
		if x.opt.POR {
			sleep = append(sleep, mv.sl)
		}
	}
	return nil
}

// sleepKeys stores a state's sleep set (nothing for an empty one).
func (x *explorer) sleepKeys(f fp, ks []uint64) {
	if len(ks) == 0 {
		delete(x.slept, f)
		return
	}
	x.slept[f] = ks
}

// bfs explores breadth first: every state at k choices before any at
// k+1, each distinct state once.
func (x *explorer) bfs() error {
	root, err := x.machine(nil, 0)
	if err != nil {
		return err
	}
	x.reach(root)
	if root.leaf() {
		x.res.Schedules++
		x.res.Exhaustive = x.found == nil
		return nil
	}
	x.seen[root.fingerprint()] = 0
	root.close()
	type state struct {
		path  []sim.Choice
		depth int
	}
	queue := []state{{}}
	for len(queue) > 0 && !x.stop() {
		path, depth := queue[0].path, queue[0].depth
		queue[0] = state{}
		queue = queue[1:]
		m, err := x.machine(path, depth)
		if err != nil {
			return err
		}
		moves := m.moves()
		if len(moves) == 0 {
			x.res.Schedules++
		}
		for i, mv := range moves {
			if x.stop() {
				break
			}
			child := m
			if i > 0 {
				if child, err = x.machine(path, depth); err != nil {
					return err
				}
			}
			if err := child.apply(mv); err != nil {
				return err
			}
			x.reach(child)
			if child.leaf() {
				x.res.Schedules++
				child.close()
				continue
			}
			switch f := child.fingerprint(); {
			case x.seenBefore(f):
				x.res.Schedules++
			case child.depth >= x.opt.Depth:
				x.seen[f] = child.depth
				x.hitDepth = true
				x.res.Schedules++
			default:
				x.seen[f] = child.depth
				queue = append(queue, state{child.c.Choices(), child.depth})
			}
			child.close()
		}
	}
	x.res.Exhaustive = x.res.Budget == "" && x.found == nil
	return nil
}

func (x *explorer) seenBefore(f fp) bool {
	_, ok := x.seen[f]
	return ok
}
