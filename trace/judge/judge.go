// Package judge holds the rules by which a run is judged, once, for every
// command that states a verdict: the run summary of `sim` and `run`
// (trace/report, and the HTML report and the studio through it), `trace
// check` (trace/analysis) and the explorer's replays (through both). It
// decides from figures the analysis measured, never from the traces
// themselves: the verdict words and the exit statuses that carry them
// (verdict.go), the run summary's verdict (summary.go), whether a
// measured message count keeps the bound its protocol guarantees
// (counts.go), and what a quiescent simulated run proves about liveness
// (quiet.go). The safety properties themselves (epochs, stable leaders,
// mutual exclusion by happened-before) are measured in trace/analysis.
// docs/analysis.md states every rule.
//
// It imports only protocol.
package judge
