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
// the command line and what a crash loses.
package node
