// Package logicalring is the logical ring that ring algorithms (election,
// token passing) run on: an order of the run's members chosen in the
// scenario (protocol.params.ring: random from the run's seed, ascending,
// descending or an explicit list), with successors and predecessors and a
// walk that skips nodes believed down.
//
// Every node computes the same ring from the same members and seed, and the
// scenario package calls Resolve to place nodes on a circle in ring order.
//
// The package imports only manetlab/protocol and the standard library.
package logicalring
