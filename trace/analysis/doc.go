// Package analysis is the trace aggregator's core: it merges the trace
// files of a run into one causally ordered stream (Merge), checks the
// safety properties of leader election and mutual exclusion against ground
// truth rebuilt from the recorded scenario (Check: leadership is judged per
// connected component once it has stayed unchanged for the protocol's
// settle delay; links are up, down or uncertain by the radio's delivery
// probability, truth.go), and computes the
// metrics of Vasudevan et al. and a stricter wrong-or-unknown-leader share
// (ComputeMetrics). docs/analysis.md defines every rule and metric.
//
// Events are held in a compact form (about a hundred bytes each, strings
// interned), so a million-event run fits in a few hundred MiB.
//
// It imports trace, scenario, radio, protocol and protocol/rounds (which
// protocols are round protocols; ground truth is rebuilt
// from the recorded scenario and the radio model); reports and exports
// import it, never the other way round.
package analysis
