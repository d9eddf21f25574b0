package explore

import (
	"reflect"
	"slices"
	"time"

	"manetlab/protocol"
	"manetlab/sim"
)

// Sleep sets (Godefroid, "Partial-Order Methods for the Verification of
// Concurrent Systems", LNCS 1032, 1996, ch. 5), the partial-order
// reduction dfs makes with Options.POR (--por): after exploring choice a
// at a state, its later siblings b that are independent of a carry a in
// their sleep set, and a is not taken below b while it stays independent
// of what is taken there: b then a would reach the state a then b
// reached. With the fingerprint's cache the known pitfall is a state
// first explored with a sleep set and reached again with a smaller one:
// the choices asleep the first time and awake now would be lost. The
// cache therefore keeps each state's sleep set (explorer.slept) and, on
// a revisit with as much depth left, explores the choices asleep then and
// awake now, and keeps the intersection (ch. 5.3); a state reached with
// fewer choices is explored again as new.
//
// The independence relation: two choices are independent when both take
// a protocol event (not a drop, crash or recovery, nor a fault of the
// scenario), each at one node (a frame to one receiver, one-hop or one
// hop of a multi-hop message; a timer, a boot, a command; not a
// broadcast, which reaches every node in range at once), the two nodes
// differ, they are not hops of one multi-hop channel (same origin and
// destination: the reliable channel's FIFO order offers the later
// message only when the earlier one has arrived, at another node than
// the hop's), and both are due at the state's earliest time (a choice
// happens then: a frame taken before an earlier timer arrives at the
// timer's time, taken after it at its own, and the two orders' later
// timers would differ). Such an event changes only its node's state and
// adds its node's events; neither disables the other (a frame may be
// taken at any time; a due timer stays due, the events the other adds
// being no earlier). The checker's memory commutes too.
//
// Not exact: the network's own events that the two add at that instant
// (route requests and replies, acknowledgements) are queued, and taken,
// in the two orders' different orders, with relay jitter drawn in a
// different order; the plain search counts two states and explores both
// futures, sleep sets one. So sleep sets reach fewer protocol states
// than the plain search, never one it does not (TestSleepSets), and
// --por is off by default (docs/explore.md, "Sleep sets").

// sleeper is a choice asleep: its identity and what independence reads.
type sleeper struct {
	key  uint64          // the event: its kind, text and frame contents
	node protocol.NodeID // where it happens; 0: anywhere (dependent on all)
	orig protocol.NodeID // a multi-hop frame's origin and destination
	dest protocol.NodeID
	at   time.Duration // when it is due
}

// independent reports whether a and b commute (above).
func independent(a, b sleeper) bool {
	if a.node == 0 || b.node == 0 || a.node == b.node {
		return false
	}
	return a.orig == 0 || a.orig != b.orig || a.dest != b.dest
}

// sleeperOf is a pending event's, taken as move kind.
func sleeperOf(kind byte, p sim.Pending, tc types) sleeper {
	h := newHasher()
	h.u64(uint64(kind))
	h.str(p.Text)
	if p.Frame != nil {
		w := walker{seen: map[uintptr]uint64{}, types: tc}
		w.value(&h, reflect.ValueOf(p.Frame))
	}
	s := sleeper{key: h.sum()[0], at: p.At}
	if kind != 't' {
		return s // drops: dependent on every choice
	}
	switch p.Type {
	case "deliver":
		s.node = p.To // 0 for a broadcast
		s.orig, s.dest = p.Origin, p.Final
	case "timer", "start", "command":
		s.node = p.Node
	}
	return s
}

// asleep reports whether mv is in the sleep set.
func asleep(set []sleeper, mv move) bool {
	return slices.ContainsFunc(set, func(s sleeper) bool { return s.key == mv.sl.key })
}

// wake is the sleep set of the child reached by mv from a state whose
// earliest pending event is due at due: the members independent of mv,
// when both are due then.
func wake(set []sleeper, mv move, due time.Duration) []sleeper {
	if mv.sl.at != due {
		return nil
	}
	var out []sleeper
	for _, s := range set {
		if s.at == due && independent(s, mv.sl) {
			out = append(out, s)
		}
	}
	return out
}

// keys are the sleep set's identities.
func keys(set []sleeper) []uint64 {
	out := make([]uint64, len(set))
	for i, s := range set {
		out[i] = s.key
	}
	return out
}
