package analysis

import (
	"slices"

	"manetlab/trace/judge"
)

// The verdicts are trace/judge's (docs/analysis.md, "Verdicts"),
// named here for the analysis' callers.
const (
	Valid     = judge.Valid
	Invalid   = judge.Invalid
	Unsettled = judge.Unsettled
	Unknown   = judge.Unknown
	Stalled   = judge.Stalled
)

// Verdicts lists every verdict, in the order docs/analysis.md gives them.
var Verdicts = judge.Verdicts

// IsVerdict reports whether s is one of Verdicts.
func IsVerdict(s string) bool { return slices.Contains(Verdicts, s) }
