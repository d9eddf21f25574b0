package analysis

import (
	"fmt"
	"slices"
	"time"

	"manetlab/trace"
)

// newScreen is the screen of hostile input for r (trace.Screen): the
// scenario in the run header gives the run's duration and its nodes;
// without a readable one, only absurd times are refused.
func newScreen(r *run) *trace.Screen {
	if !r.hasRunFile {
		return trace.NewScreen(0, nil)
	}
	sc, err := r.scenario()
	if err != nil {
		return trace.NewScreen(0, nil)
	}
	r.duration = int64(sc.Duration.D())
	return trace.NewScreen(sc.Duration.D(), sc.MemberIDs())
}

// MaxSamples bounds the ground-truth grid: a run longer than MaxSamples
// steps is sampled more coarsely, so that no time in a trace, however
// large, makes the analysis loop.
const MaxSamples = 1_000_000

// gridStep is step, or a coarser one that keeps the grid up to end within
// MaxSamples, which it reports (once per run).
func gridStep(r *run, end, step int64) int64 {
	if step <= 0 || end/step < MaxSamples {
		return step
	}
	coarse := end/MaxSamples + 1
	coarse = (coarse + int64(time.Millisecond) - 1) / int64(time.Millisecond) * int64(time.Millisecond)
	msg := fmt.Sprintf("the run spans %v: ground truth sampled every %v instead of %v (at most %d samples)",
		time.Duration(end), time.Duration(coarse), time.Duration(step), MaxSamples)
	if !slices.ContainsFunc(r.problems, func(p trace.Problem) bool { return p.Msg == msg }) {
		r.problems = append(r.problems, trace.Problem{File: r.headerFile, Msg: msg})
	}
	return coarse
}
