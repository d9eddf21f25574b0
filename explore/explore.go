// Package explore searches the orders in which the pending events of a
// small simulator run may happen (message deliveries, timers, boots,
// the scenario's faults and commands) and, when asked, crashes,
// recoveries and message drops at any point, checking safety after every
// step and liveness at quiescence (docs/explore.md). It drives the
// simulator's controlled scheduler (sim.Controller): a state is restored
// by replaying its choices from the start, which the simulator's
// determinism makes exact. A violation comes back minimised, as a
// schedule file that `manetlab sim --schedule` replays.
package explore

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"manetlab/radio"
	"manetlab/scenario"
	"manetlab/sim"
)

// Strategies.
const (
	BFS    = "bfs"
	DFS    = "dfs"
	Random = "random"
	PCT    = "pct"
)

// Strategies lists the strategy names.
var Strategies = []string{BFS, DFS, Random, PCT}

// Options control a search.
type Options struct {
	Strategy  string        // "bfs", "dfs", "random", "pct"
	Depth     int           // max choices per schedule (bfs/dfs exhaustive within it)
	States    int           // budget in states (0 = no limit)
	Schedules int           // budget in schedules for random/pct (0: 1000)
	Time      time.Duration // budget in wall time (0 = none)
	Crashes   int           // up to k crashes (and recoveries) at any point
	Drops     int           // up to k message drops at any point
	Seed      uint64        // random/pct seed (0: the scenario's seed)
	PCTDepth  int           // pct's bug depth d (0: 3)
	Progress  io.Writer     // a progress line on long searches (nil: none)
	// POR turns dfs's sleep sets on (sleep.go): of two independent
	// choices, the second order is not taken where the first was. Not
	// exact: see docs/explore.md, "Sleep sets".
	POR bool
	// Memory bounds the memory the search may hold, in bytes, like the
	// other budgets: 0 is MemoryShare of the available memory, negative
	// none (memory.go).
	Memory int64
}

// Result is what a search found.
type Result struct {
	// States counts the states reached (a state reached again counts
	// again), Distinct the different fingerprints among them, Schedules
	// the schedules explored to their end (a leaf: quiescence, the
	// depth, a state seen before, or a violation).
	States, Distinct, Schedules int
	// Exhaustive: bfs or dfs explored every schedule within Depth (no
	// budget ran out).
	Exhaustive bool
	// MaxDepth is the most choices on one schedule.
	MaxDepth int
	// Quiescent counts the leaves at quiescence, where liveness was
	// judged.
	Quiescent int
	Elapsed   time.Duration
	Violation *Violation // nil when none found (or none confirmed)
	// Unconfirmed is a violation the search found whose replay does not
	// show it: a bug of the explorer, not reported as a violation.
	Unconfirmed *Violation
	// Budget says which budget stopped the search ("" when none did).
	Budget string
	// Notes say what the checks could not decide (once each).
	Notes []string
	// Memory says the memory bound and how it was set ("" for none).
	Memory string
}

// Violation is a property found violated, with its schedule.
type Violation struct {
	Property string        // e.g. "one leader per epoch", "mutual exclusion", "liveness"
	Witness  string        // what happened, one line
	Schedule *sim.Schedule // minimised, replayable
	Step     int           // the violating step
	// Found is the number of choices of the schedule as found, before
	// minimisation.
	Found int
	// Replayed says what the replay of the schedule shows (confirm.go):
	// the explorer's check of it and `trace check`'s verdicts; Confirmed
	// that it shows the property.
	Replayed  string
	Confirmed bool
}

// DefaultSchedules is the schedule budget of random and pct when none is
// given.
const DefaultSchedules = 1000

// DefaultDepth is the depth when none is given.
const DefaultDepth = 40

// gcPercent is the collector's target during a search.
const gcPercent = 400

// Run explores the scenario's run under opt.
func Run(s *scenario.Scenario, opt Options) (*Result, error) {
	if err := check(s, &opt); err != nil {
		return nil, err
	}
	x, err := newExplorer(s, opt)
	if err != nil {
		return nil, err
	}
	// Every state restored is a run built afresh and dropped: much
	// garbage, a small live heap (the fingerprints seen). The collector
	// at its default (100 %) took about two fifths of the search's CPU;
	// at 400 % a tenth (docs/performance.md). GOGC, when set, decides.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	}
	switch opt.Strategy {
	case BFS:
		err = x.bfs()
	case DFS:
		err = x.dfs()
	case Random, PCT:
		err = x.sample()
	}
	if err != nil {
		return nil, err
	}
	return x.finish()
}

// check validates the options and the scenario for exploration.
func check(s *scenario.Scenario, opt *Options) error {
	switch opt.Strategy {
	case "":
		opt.Strategy = DFS
	case BFS, DFS, Random, PCT:
	default:
		return fmt.Errorf("explore: strategy %q: want one of bfs, dfs, random, pct", opt.Strategy)
	}
	switch {
	case opt.Depth < 0:
		return fmt.Errorf("explore: depth %d is negative", opt.Depth)
	case opt.States < 0:
		return fmt.Errorf("explore: states %d is negative", opt.States)
	case opt.Schedules < 0:
		return fmt.Errorf("explore: schedules %d is negative", opt.Schedules)
	case opt.Time < 0:
		return fmt.Errorf("explore: time %v is negative", opt.Time)
	case opt.Crashes < 0:
		return fmt.Errorf("explore: crashes %d is negative", opt.Crashes)
	case opt.Drops < 0:
		return fmt.Errorf("explore: drops %d is negative", opt.Drops)
	case opt.PCTDepth < 0:
		return fmt.Errorf("explore: pct depth %d is negative", opt.PCTDepth)
	}
	if opt.Depth == 0 {
		opt.Depth = DefaultDepth
	}
	if opt.Schedules == 0 {
		opt.Schedules = DefaultSchedules
	}
	if opt.PCTDepth == 0 {
		opt.PCTDepth = 3
	}
	if opt.Seed == 0 {
		opt.Seed = s.Seed
	}
	if s.Radio.MAC == radio.MACDCF {
		return fmt.Errorf("%s: radio.mac: dcf orders the frames on the air itself, so the explorer cannot choose their order: explore with radio.mac: ideal (--set radio.mac=ideal)", s.Path)
	}
	if n := len(s.MemberIDs()); n > MaxNodes {
		return fmt.Errorf("%s: nodes.count: %d nodes; exploration is for small runs, at most %d", s.Path, n, MaxNodes)
	}
	return nil
}

// MaxNodes bounds the runs explored: the orders of a larger run are too
// many to search.
const MaxNodes = 16
