// Package node is the real driver: it runs the protocol processes of one
// or several nodes over UDP multicast, with the radio model applied at the
// receiver, and writes one trace file per node.
//
// One goroutine per socket reads datagrams, decodes them (checking the run
// and the HMAC) and hands them to a single event loop. The loop owns
// everything else: the hosted processes, their timers (a min-heap with one
// time.Timer for the next deadline), neighbour tables, unicast queues,
// flood state and the radio model's random draws. Protocol Step is only
// ever called from the loop, as the protocol contract requires.
//
// docs/node.md describes the receive pipeline, the counters, positions,
// the command line, stable storage (node-<id>.store) and what a crash
// loses.
//
// It is the other driver: beneath it live its frame format (node/wire), its
// UDP multicast link (node/link) and the launcher behind `manetlab run`
// (node/launch). It imports protocol, radio, mobility, scenario, workload,
// trace, trace/collect (to stream its trace) and internal packages, and
// knows no protocol by name.
package node
