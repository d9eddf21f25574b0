// Package netstack is a node's network layer, the one both drivers host:
// neighbour discovery (hellos, timeouts, neighbour up and down), one-hop
// broadcast, one-hop unicast with acknowledgement, retransmission and a
// FIFO queue per link, multi-hop forwarding by flooding with duplicate
// suppression, a hop limit and relay jitter, and the trace events of all
// of it (docs/trace.md, docs/architecture.md).
//
// A Stack is a deterministic state machine in the style of protocol: the
// driver feeds it one event at a time (a frame heard with the radio's
// outcome, one of its timers, a protocol's Send, Broadcast, Deliver or
// Flood) and it answers through the Driver interface (transmit this frame,
// hand this event to the protocol, set a timer, trace this event). Its
// random draws (hello phases, relay jitter) come from the seeded source
// the driver gives it. It holds no goroutine, clock, socket or global
// random source: the simulator hosts it in virtual time over its radio
// medium, a node process over UDP multicast, and both write the same
// link-level trace events for the same inputs.
//
// It imports protocol, radio (for a reception's outcome) and trace.
package netstack
