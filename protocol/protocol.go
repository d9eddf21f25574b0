// Package protocol is the contract between protocols and drivers.
//
// A protocol is a deterministic state machine: a driver (the simulator in
// virtual time, or a real node over UDP multicast) calls Step with one Event
// at a time, and the protocol acts only through the Env it was built with:
// it sends, broadcasts, sets timers, draws from a seeded random source and
// emits trace notes. A protocol never reads the wall clock, never starts a
// goroutine, never uses global randomness and never touches a socket, so the
// same code runs unchanged in every driver and a seed reproduces a run.
//
// Drivers call Step from one goroutine only; a Process is not safe for
// concurrent use and need not be.
//
// It is the root of the import graph: it imports only the standard library,
// and every protocol family and both drivers import it. Shared protocol-side
// pieces that several families embed live beneath it (a reliable FIFO
// channel, a logical ring); they import only protocol.
package protocol

import (
	"math/rand/v2"
	"time"
)

// NodeID identifies a node within a run. Zero is never a node: it stands
// for "no node" (no leader, broadcast destination).
type NodeID uint32

// None is the zero NodeID: no node.
const None NodeID = 0

// Message is a protocol message. A driver may hand one message value to
// several receivers, so protocols treat messages they send or receive as
// immutable. Messages must be encodable with msgpack (exported scalar,
// string and byte-slice fields; small slices of those) because the real
// driver puts them on the wire.
type Message interface {
	// Kind is the message's short name, used in traces and metrics
	// ("election", "ack", "leader").
	Kind() string
}

// Process is one node's instance of a protocol.
type Process interface {
	// Step handles one event. Every state change passes through here.
	Step(ev Event)
}

// Env is everything a protocol may do to the world. It is provided by the
// driver in Config and stays valid for the life of the Process.
type Env interface {
	// Now is the driver's time since the start of the run: virtual time in
	// the simulator, a monotonic clock in a real node. Use it for
	// durations, never as a clock shared with other nodes.
	Now() time.Duration
	// Send transmits m to a radio neighbour in one hop. The link layer
	// acknowledges and retransmits (as 802.11 does); delivery is FIFO per
	// link but may still fail if the neighbour moves away or crashes.
	Send(to NodeID, m Message)
	// Broadcast transmits m once to every node in radio range, without
	// acknowledgement.
	Broadcast(m Message)
	// Deliver sends m to any node of the run across several hops, by
	// flooding with duplicate suppression and a hop limit. It arrives only
	// if a path exists while the flood travels. The receiver sees From as
	// this node, not the last hop.
	Deliver(to NodeID, m Message)
	// Flood sends m to every node reachable across several hops.
	Flood(m Message)
	// SetTimer arranges a Timeout event after the given duration and
	// returns its ID. Name and Arg come back in the Timeout untouched.
	SetTimer(after time.Duration, name string, arg int64) TimerID
	// CancelTimer cancels a pending timer; cancelling a timer that fired or
	// was cancelled already is harmless.
	CancelTimer(id TimerID)
	// Rand is this node's seeded random source.
	Rand() *rand.Rand
	// Note records a protocol event in the trace (a leader chosen, a
	// critical section entered).
	Note(n Note)
	// Logf writes a debug line to the node's log, not the trace.
	Logf(format string, args ...any)
}

// TimerID names a pending timer. Zero is never a valid timer.
type TimerID uint64

// Config is what a protocol is built from.
type Config struct {
	// ID is this node's identity.
	ID NodeID
	// Value is this node's initial value (capacity, battery): the
	// quantity elections maximise, ties broken by the higher ID. It may
	// change later through a SetValue command.
	Value float64
	// Members lists every node ID of the run in ascending order: the
	// membership that ring, bully and mutual exclusion algorithms assume.
	Members []NodeID
	// Params are the scenario's protocol parameters; read them through
	// Params.Reader so that unknown keys and bad types are reported.
	Params Params
	// HopDelay is the modelled time of one radio hop: on the ideal medium
	// the scenario's radio.delay (sim waits exactly that; real frames take
	// what they take); on the DCF medium one acknowledged 100-byte frame
	// at an idle medium (DIFS, mean backoff, airtime, SIFS, the
	// acknowledgement: 1.95 ms at 1 Mbps; docs/radio.md). Protocols may
	// compare their timeouts with it; zero when unknown.
	HopDelay time.Duration
	// RouteDelay is the longest a message sent with Deliver may wait for
	// its route before it travels: under routing.protocol aodv, the
	// expanding ring's waits before its network-wide try (1.92 s at RFC
	// 3561's defaults), which a message to a node beyond ttl_threshold
	// hops always waits; zero under flooding. Protocols may compare their
	// timeouts with it (docs/routing.md).
	RouteDelay time.Duration
	// Seed is the run's seed. Every node gets the same one, so choices
	// that all nodes must agree on (a random logical ring) derive from it;
	// per-node randomness comes from Env.Rand.
	Seed uint64
	// Env is the driver.
	Env Env
	// Store is the node's stable storage, which survives a crash (see
	// Store). Drivers always set it; protocols that keep nothing across
	// crashes ignore it, and tests that build a Config by hand may leave
	// it nil (use a MemStore). It sits in Config rather than on Env so that
	// protocols and test Envs that do not use it are unchanged.
	Store Store
}

// Better reports whether node a with value va beats node b with value vb:
// the higher value wins, ties go to the higher ID.
func Better(a NodeID, va float64, b NodeID, vb float64) bool {
	if va != vb {
		return va > vb
	}
	return a > b
}
