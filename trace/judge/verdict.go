package judge

import "slices"

// The verdicts: one vocabulary for the summaries of `run` and `sim`, the
// properties of `trace check`, the HTML report and the sweep's columns.
// docs/analysis.md ("Verdicts") gives each word's meaning, once, and where
// it appears; TestVerdictsAreDocumented holds the two together.
const (
	// Valid: checked, and it holds.
	Valid = "valid"
	// Invalid: a violation was found; the reason and the witnesses show
	// it.
	Invalid = "invalid"
	// Unsettled (run summary only): nothing judged is wrong, but the
	// components were not settled long enough to judge: some component
	// changed within the stabilisation delay and does not follow an
	// acceptable leader yet, or none stayed unchanged for the delay, so
	// nothing was judged.
	Unsettled = "unsettled"
	// Unknown: the traces cannot decide; the reason says why.
	Unknown = "unknown"
	// Stalled: a round protocol's rounds stopped with live nodes
	// mid-round and their algorithm not halted (a crash or a broken link;
	// the reason says at which round and which nodes).
	Stalled = "stalled"
)

// Verdicts lists every verdict, in the order docs/analysis.md gives them.
var Verdicts = []string{Valid, Invalid, Unsettled, Unknown, Stalled}

// Exit statuses of `sim`, `run` and `trace check` (docs/analysis.md,
// "Exit statuses"). An error (a bad config, an unreadable trace) exits
// with 1 as well, after a message instead of a verdict.
const (
	ExitValid     = 0 // every verdict valid
	ExitInvalid   = 1 // a verdict invalid: a violation, shown
	ExitUndecided = 2 // none invalid, but some unsettled, unknown or stalled
	ExitCrossHost = 3 // cross-host problems (run --hosts, trace check): printed before the verdicts
)

// Exit is the exit status of a command whose verdicts are vs: invalid
// over undecided over valid.
func Exit(vs ...string) int {
	switch {
	case slices.Contains(vs, Invalid):
		return ExitInvalid
	case slices.ContainsFunc(vs, func(v string) bool { return v != Valid }):
		return ExitUndecided
	}
	return ExitValid
}
