package analysis

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
	// Unsettled (run summary only): nothing judged is wrong, but some
	// component changed within the stabilisation delay and does not
	// follow an acceptable leader yet.
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

// IsVerdict reports whether s is one of Verdicts.
func IsVerdict(s string) bool { return slices.Contains(Verdicts, s) }
