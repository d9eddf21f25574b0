package explore

import (
	"math"
	"reflect"
	"slices"
	"strings"

	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/sim"
)

// Fingerprinter is what a protocol process may implement to give its
// own fingerprint: a deterministic hash of every part of its state that
// decides its future behaviour. Without it, the process is hashed by
// reflection (hashValue).
type Fingerprinter interface {
	Fingerprint() uint64
}

// fp is a 128-bit fingerprint.
type fp [2]uint64

// hasher is a deterministic 128-bit hash: two 64-bit multiply-xorshift
// lanes with different constants.
type hasher struct {
	a, b uint64
}

func newHasher() hasher { return hasher{0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f} }

func (h *hasher) u64(v uint64) {
	h.a = (h.a ^ v) * 0xff51afd7ed558ccd
	h.a ^= h.a >> 29
	h.b = (h.b ^ (v + 0x632be59bd9b4e019)) * 0xc4ceb9fe1a85ec53
	h.b ^= h.b >> 31
}

func (h *hasher) str(s string) {
	h.u64(uint64(len(s)))
	var w uint64
	for i := 0; i < len(s); i++ {
		w = w<<8 | uint64(s[i])
		if i%8 == 7 {
			h.u64(w)
			w = 0
		}
	}
	h.u64(w)
}

func (h *hasher) sum() fp { return fp{h.a, h.b} }

// The types the reflective walk does not enter: a node's environment and
// network driver (they lead to the whole simulator), the network's
// shared configuration (the same in every state).
var (
	envType     = reflect.TypeFor[protocol.Env]()
	driverType  = reflect.TypeFor[netstack.Driver]()
	configType  = reflect.TypeFor[*netstack.Config]()
	timerIDType = reflect.TypeFor[protocol.TimerID]()
	stackType   = reflect.TypeFor[netstack.Stack]()
	frameType   = reflect.TypeFor[netstack.Frame]()
	nbrType     = reflect.TypeFor[netstack.Neighbor]()
)

// stackSkip are the fields of netstack.Stack left out of a fingerprint:
// the driver and shared configuration; the stack's random stream (hello
// phases, relay jitter) and its frame sequence number and unicast
// duplicate windows, which count hellos and so the time that passed;
// the hello tick's scratch and the DCF medium's state (exploration runs
// on the ideal medium).
var stackSkip = map[string]bool{"cfg": true, "d": true, "rng": true, "seq": true, "down": true,
	"nbrBuf": true, "unicasts": true, "mac": true, "air": true}

// aodvSkip are the fields of the stack's AODV state left out, by type
// and field: a route's expiry time and the times the route requests seen
// may be forgotten, which count the time that passed (the explorer
// delivers the network's frames at once, so that a route is learned at
// different times in different orders).
var aodvSkip = map[string]map[string]bool{"route": {"expires": true}, "aodvState": {"seen": true}}

// frameSkip are the fields of a frame left out: its sequence number
// (which counts hellos), and its encoding (a function of Msg).
var frameSkip = map[string]bool{"Seq": true, "Bytes": true, "Code": true, "Body": true, "Airtime": true}

// walker hashes values by reflection, deterministically: struct fields in
// order, map entries as an unordered set, pointers followed once
// (a pointer seen again hashes as its first visit's number, so cycles
// end), functions and channels skipped, protocol.TimerID values replaced
// by the pending timer they name (the simulator's timer numbers depend
// on the interleaving; which timer is pending does not).
type walker struct {
	seen   map[uintptr]uint64
	timers map[protocol.TimerID]int // pending timer -> its place in the node's list, from 1
	types  types                    // nil: none kept
}

// types caches what the walk needs of a type: reflect's Implements and
// field names cost more than the walk itself.
type types map[reflect.Type]*typeInfo

type typeInfo struct {
	opaque bool   // an Env or a Driver: not entered
	skip   []bool // a struct's fields left out
}

func (c types) info(t reflect.Type) *typeInfo {
	if ti, ok := c[t]; ok {
		return ti
	}
	ti := &typeInfo{opaque: t.Implements(envType) || t.Implements(driverType)}
	if t.Kind() == reflect.Struct {
		ti.skip = make([]bool, t.NumField())
		for i := range ti.skip {
			f := t.Field(i).Name
			ti.skip[i] = t == stackType && stackSkip[f] || t == frameType && frameSkip[f] ||
				t.PkgPath() == stackType.PkgPath() && aodvSkip[t.Name()][f]
		}
	}
	if c != nil {
		c[t] = ti
	}
	return ti
}

func (w *walker) value(h *hasher, v reflect.Value) {
	t := v.Type()
	switch t {
	case timerIDType:
		h.u64(uint64(w.timers[protocol.TimerID(v.Uint())]))
		return
	case configType:
		return
	case nbrType:
		h.u64(uint64(v.Field(0).Int())) // the neighbour, not when it was last heard
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			h.u64(1)
		} else {
			h.u64(2)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.u64(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.u64(v.Uint())
	case reflect.Float32, reflect.Float64:
		h.u64(math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		h.u64(math.Float64bits(real(c)))
		h.u64(math.Float64bits(imag(c)))
	case reflect.String:
		h.str(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			h.u64(0)
			return
		}
		if w.types.info(t).opaque {
			return
		}
		p := v.Pointer()
		if n, ok := w.seen[p]; ok {
			h.u64(n)
			return
		}
		w.seen[p] = uint64(len(w.seen) + 1)
		h.u64(0xa11)
		w.value(h, v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			h.u64(0)
			return
		}
		e := v.Elem()
		if w.types.info(e.Type()).opaque {
			return
		}
		h.str(e.Type().String())
		w.value(h, e)
	case reflect.Struct:
		ti := w.types.info(t)
		if ti.opaque {
			return
		}
		for i, skip := range ti.skip {
			if !skip {
				w.value(h, v.Field(i))
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.value(h, v.Index(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			h.u64(0)
			return
		}
		h.u64(uint64(v.Len()) + 1)
		if t.Elem().Kind() == reflect.Uint8 {
			h.str(string(v.Bytes()))
			return
		}
		for i := 0; i < v.Len(); i++ {
			w.value(h, v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			h.u64(0)
			return
		}
		// An unordered set of entries: each entry hashed alone, the
		// entries' hashes sorted.
		entries := make([]fp, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			// A walker of its own: the numbers of the pointers first
			// seen must not depend on the map's iteration order.
			ew := walker{seen: map[uintptr]uint64{}, timers: w.timers, types: w.types}
			eh := newHasher()
			ew.value(&eh, it.Key())
			ew.value(&eh, it.Value())
			entries = append(entries, eh.sum())
		}
		slices.SortFunc(entries, cmpFP)
		h.u64(uint64(len(entries)) + 1)
		for _, e := range entries {
			h.u64(e[0])
			h.u64(e[1])
		}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Invalid:
	}
}

func cmpFP(a, b fp) int {
	switch {
	case a[0] != b[0]:
		if a[0] < b[0] {
			return -1
		}
		return 1
	case a[1] != b[1]:
		if a[1] < b[1] {
			return -1
		}
		return 1
	}
	return 0
}

// fingerprint hashes a state: every node (alive, incarnation, value, its
// process through Fingerprinter or by reflection, its protocol random
// stream, its network stack, its pending timers, its stable storage),
// the pending events in the simulator's order without their times (the clock itself is left out: see docs/explore.md), and extra,
// the explorer's and the checker's state that decides the future.
func fingerprint(c *sim.Controller, tc types, extra func(h *hasher)) fp {
	f, _ := fingerprintOrdered(c, c.Pending(), tc, extra, true, nil)
	return f
}

// nodeFP is one node's part of a fingerprint, and the node's Touch count
// when it was hashed.
type nodeFP struct {
	touch uint64
	h     fp
}

// fingerprintOrdered is fingerprint, given pend, c.Pending(), and the
// nodes' parts of the fingerprint of an earlier state of the same run
// or of a run with the same choices up to that state (prev; nil: none):
// a node whose Touch count has not moved since is not hashed again. It
// returns the nodes' parts too. With ordered false, a coarser identity:
// the nodes' protocol states and extra, without the network stacks and
// the pending events, for the test that sleep sets reach every protocol
// state the plain search reaches (sleep_test.go).
func fingerprintOrdered(c *sim.Controller, pend []sim.Pending, tc types, extra func(h *hasher), ordered bool, prev []nodeFP) (fp, []nodeFP) {
	h := newHasher()
	view := c.View()
	nodes := make([]nodeFP, len(view))
	for i, n := range view {
		if ordered && i < len(prev) && prev[i].touch == n.Touch {
			nodes[i] = prev[i]
		} else {
			nodes[i] = nodeFP{touch: n.Touch, h: hashNode(n, tc, ordered)}
		}
		h.u64(nodes[i].h[0])
		h.u64(nodes[i].h[1])
	}
	if !ordered {
		if extra != nil {
			extra(&h)
		}
		return h.sum(), nil
	}
	// Pending events, without their times and numbers: in the order the
	// simulator would take them, but for a run of protocol events due at
	// one time, hashed as a set (the explorer takes them in every order;
	// the network's events it takes in the simulator's order, so theirs
	// is kept).
	var group []fp
	flush := func() {
		slices.SortFunc(group, cmpFP)
		h.u64(uint64(len(group)))
		for _, g := range group {
			h.u64(g[0])
			h.u64(g[1])
		}
		group = group[:0]
	}
	w := walker{seen: map[uintptr]uint64{}, types: tc}
	for i, p := range pend {
		if linkTimer(p) {
			continue
		}
		protocolRun := p.Class == sim.ClassProtocol && i > 0 && pend[i-1].Class == sim.ClassProtocol && p.At == pend[i-1].At
		if !protocolRun {
			flush()
		}
		eh := newHasher()
		eh.str(p.Text)
		eh.str(p.Class)
		if p.Frame != nil {
			clear(w.seen)
			w.value(&eh, reflect.ValueOf(p.Frame))
		}
		if p.Offered {
			eh.u64(1)
		}
		group = append(group, eh.sum())
	}
	flush()
	if extra != nil {
		extra(&h)
	}
	return h.sum(), nodes
}

// linkTimer reports whether p is a link retransmission timer. Left out
// of the fingerprint: whether it does anything is the link queue's
// (its head frame unacknowledged), which the stack's part holds, and
// since the explorer delivers the link acknowledgements at once
// (machine.early) these timers, due later, sit in the queue in an order
// that follows the order of the deliveries rather than the state.
func linkTimer(p sim.Pending) bool {
	return p.Type == "net-timer" && strings.HasPrefix(p.Text, "link retransmission")
}

// hashNode is one node's part of the fingerprint (its network stack only
// when ordered).
func hashNode(n sim.NodeView, tc types, ordered bool) fp {
	h := newHasher()
	w := walker{seen: map[uintptr]uint64{}, timers: map[protocol.TimerID]int{}, types: tc}
	h.u64(uint64(n.ID))
	if !n.Alive {
		h.u64(0xdead)
		h.u64(uint64(n.Inc))
		w.value(&h, reflect.ValueOf(n.Store))
		return h.sum()
	}
	h.u64(uint64(n.Inc))
	h.u64(math.Float64bits(n.Value))
	for i, t := range n.Timers {
		w.timers[t.ID] = i + 1
		h.str(t.Name)
		h.u64(uint64(t.Arg))
	}
	if f, ok := n.Proc.(Fingerprinter); ok {
		h.u64(f.Fingerprint())
	} else {
		w.value(&h, reflect.ValueOf(n.Proc))
	}
	w.value(&h, reflect.ValueOf(n.Rand))
	if ordered {
		w.value(&h, reflect.ValueOf(n.Stack))
	}
	w.value(&h, reflect.ValueOf(n.Store))
	return h.sum()
}

func reflectOf(v any) reflect.Value { return reflect.ValueOf(v) }
