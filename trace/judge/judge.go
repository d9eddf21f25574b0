// Package judge holds the rules by which a run is judged, once, for every
// command that states a verdict: the run summary of `sim` and `run`
// (trace/report), `trace check` (trace/analysis), the HTML report, the
// studio and the explorer read them from here. It decides from figures
// the analysis measured, never from the traces themselves: the verdict
// words and the exit statuses that carry them (verdict.go), whether a
// measured message count keeps the bound its protocol guarantees
// (counts.go), and what a quiescent simulated run proves about liveness
// (quiet.go). docs/analysis.md states every rule.
//
// It imports only protocol.
package judge
