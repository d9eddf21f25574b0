package explore

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
)

// A machine is one run under the explorer's choices: a Controller whose
// traces go nowhere but to the checker.
//
// The explorer branches on the protocol's events only (sim.ClassProtocol:
// the algorithm's messages and timers, boots, the scenario's faults and
// commands). The network's events (hellos, link acknowledgements, relay
// hops, the stack's timers) and the reliable channel's
// (acknowledgements, retransmission timers) are taken in the simulator's
// order whenever they come first (settle): they are not choices, so the
// periodic hellos do not multiply the orders. At a choice point a frame
// in flight may be delivered at once, earlier than the radio's delay
// (any order of deliveries), but a timer, a boot, a fault or a command
// only when it is due (nothing pending is earlier): timers fire in time,
// so the algorithms that rely on timeouts (bully) are explored within
// their timing assumptions, and the messages they wait for are never
// late.
type machine struct {
	x       *explorer
	c       *sim.Controller
	chk     *checker
	depth   int // choices made
	crashes int // crashes chosen
	drops   int // drops chosen
	down    []protocol.NodeID
	quiet   bool // nothing left but the network's periodic events
	done    bool // the run reached its end
	step    int  // the violating step, when chk.found
	// pend caches c.Pending() at a choice point, for the fingerprint
	// and the moves (nil: not listed since the last step).
	pend []sim.Pending
	// prev are the nodes' parts of the fingerprint of the state this
	// machine's run (or a run with the same choices) had at its last
	// fingerprint, or its parent's (nil: none); nodes are this state's.
	prev, nodes []nodeFP
}

// pending is c.Pending(), listed once per choice point.
func (m *machine) pending() []sim.Pending {
	if m.pend == nil {
		m.pend = m.c.Pending()
	}
	return m.pend
}

// move is one choice.
type move struct {
	kind byte // 't' take, 'd' drop, 'c' crash, 'r' recover
	seq  uint64
	node protocol.NodeID
	text string
	sl   sleeper // its identity and independence, for sleep sets
}

func (mv move) String() string {
	switch mv.kind {
	case 'd':
		return "drop " + mv.text
	case 'c':
		return fmt.Sprintf("crash node %d", mv.node)
	case 'r':
		return fmt.Sprintf("recover node %d", mv.node)
	}
	return mv.text
}

// newMachine builds the run and replays choices on it, then settles.
// depth is the number of the explorer's choices among them (the frames
// taken at once, early, are not counted).
func newMachine(x *explorer, s *scenario.Scenario, choices []sim.Choice, depth int) (*machine, error) {
	m := &machine{x: x, chk: newChecker(x.rules)}
	c, err := sim.NewController(s, sim.Options{Discard: true}, m.chk.observe)
	if err != nil {
		return nil, err
	}
	m.c = c
	c.Unlogged()
	c.CountTouches()
	if err := c.PlayOwn(choices); err != nil {
		c.Close()
		if perr := c.Err(); perr != nil {
			err = perr // a process failed (a program per node, protocol/ext)
		}
		return nil, fmt.Errorf("explore: replaying a state: %w", err)
	}
	for _, ch := range choices {
		switch {
		case ch.Crash != 0:
			m.crashes++
			m.down = append(m.down, ch.Crash)
		case ch.Recover != 0:
			m.down = slices.DeleteFunc(m.down, func(id protocol.NodeID) bool { return id == ch.Recover })
		case ch.Drop != 0:
			m.drops++
		}
	}
	m.depth = depth
	if m.chk.found != nil {
		m.step = c.Steps()
		return m, nil
	}
	m.settle()
	return m, nil
}

// leaf reports whether the machine has nothing to choose: a violation,
// quiescence, the run's end.
func (m *machine) leaf() bool { return m.chk.found != nil || m.quiet || m.done }

// maxSettle bounds the events taken in one settle: a run whose network
// events never end (they do end: at the scenario's duration) is cut.
const maxSettle = 1 << 20

// settle takes the network's and the transport's events in the
// simulator's order until a protocol event comes first (a choice point),
// a property is violated, nothing but the network's periodic events is
// left (quiescence: liveness is judged) or the run ends.
func (m *machine) settle() {
	for range maxSettle {
		if m.chk.found != nil {
			m.step = m.c.Steps()
			return
		}
		p, ok := m.c.Next()
		if !ok {
			m.ended()
			return
		}
		if p.Class == sim.ClassProtocol {
			if m.early() {
				continue
			}
			return
		}
		// Only the hellos go on for ever: before one, is anything else
		// left to happen?
		if hello(p) && !m.active() {
			m.quiet = true
			m.judge()
			return
		}
		m.c.Step()
	}
	m.done = true
}

// earlyKinds are the network's frames machine.early delivers at once: the
// link acknowledgements and AODV's route requests, replies and errors.
var earlyKinds = map[string]bool{"ack": true, "rreq": true, "rrep": true, "rerr": true}

// early delivers at once, in the simulator's order, the network's frames
// in flight that a protocol message may wait for (earlyKinds: link
// acknowledgements, route discovery) and reports whether it took any. At a choice point
// the protocol's frames in flight may arrive in any order, earlier than
// the radio's delay; the network's frames arrive at once, so that none is
// ever held behind a protocol frame: under AODV a route discovery, or a
// link acknowledgement that lets a node's next unicast go, would
// otherwise wait until every protocol frame sent before it had arrived,
// and the orders in which a later message overtakes an earlier one
// (Lamport's one-reply-short bug) would never be reached. The frames it
// takes are choices of the schedule (a replay takes them as the search
// did), not of its depth. When it takes none, the listing is kept for the
// choice point.
func (m *machine) early() bool {
	pend := m.c.Pending()
	for _, p := range pend {
		if p.Type == "deliver" && p.Class == sim.ClassNetwork && p.Offered && earlyKinds[p.Msg] {
			if err := m.c.TakeOwn(p.Seq, p.Text); err != nil {
				panic(fmt.Sprintf("explore: taking %s at once: %v", p.Text, err))
			}
			m.pend = nil
			return true
		}
	}
	m.pend = pend
	return false
}

// hello reports whether p is a hello tick or a hello frame.
func hello(p sim.Pending) bool {
	return p.Msg == "hello" || p.Type == "net-timer" && strings.HasPrefix(p.Text, "hello tick")
}

// active reports whether a protocol or transport event is pending,
// before the run's end or after it (a timer set past the end: the
// protocol still has something to do).
func (m *machine) active() bool {
	for _, l := range [][]sim.Pending{m.c.Pending(), m.c.Beyond()} {
		for _, p := range l {
			if p.Class == sim.ClassProtocol || p.Class == sim.ClassTransport {
				return true
			}
		}
	}
	return false
}

// judge checks liveness at quiescence.
func (m *machine) judge() {
	m.chk.judgeBudget()
	if why := m.chk.quiescent(m.c); why != "" {
		m.x.note(why)
	}
	if m.chk.found != nil {
		m.step = m.c.Steps()
	}
}

// ended judges a run with nothing left before its end: quiescent (as
// judge) when nothing of the protocol or its channel is left after the
// end either, else at the run's end (judgeEnd: the protocol still had
// something to do, a timer set past the end).
func (m *machine) ended() {
	m.done = true
	if m.active() {
		m.judgeEnd()
		return
	}
	m.quiet = true
	m.judge()
}

// judgeEnd checks liveness at the run's end, where the protocol may still
// have events to come: only past the stabilisation delay after the last
// crash, recovery or drop.
func (m *machine) judgeEnd() {
	m.chk.judgeBudget()
	if why := m.chk.atEnd(m.c); why != "" {
		m.x.note(why)
	}
	if m.chk.found != nil {
		m.step = m.c.Steps()
	}
}

// moves lists the choices at a choice point, in a deterministic order:
// the pending protocol events that may be taken (frames at any time;
// timers, boots, faults and commands when due), then drops, crashes and
// recoveries within the budgets.
func (m *machine) moves() []move {
	pend := m.pending()
	var out []move
	if len(pend) == 0 {
		return nil
	}
	due := pend[0].At
	for _, p := range pend {
		if p.Class != sim.ClassProtocol || !p.Offered {
			continue
		}
		if p.Type == "deliver" || p.At == due {
			out = append(out, move{kind: 't', seq: p.Seq, text: p.Text, sl: m.sleeper('t', p)})
		}
	}
	if m.drops < m.x.opt.Drops {
		for _, p := range pend {
			if p.Class == sim.ClassProtocol && p.Droppable {
				out = append(out, move{kind: 'd', seq: p.Seq, text: p.Text, sl: m.sleeper('d', p)})
			}
		}
	}
	if m.crashes < m.x.opt.Crashes {
		for _, n := range m.c.Nodes() {
			if n.Alive {
				out = append(out, move{kind: 'c', node: n.ID, sl: sleeper{key: 'c'<<32 | uint64(n.ID)}})
			}
		}
	}
	for _, id := range m.down {
		out = append(out, move{kind: 'r', node: id, sl: sleeper{key: 'r'<<32 | uint64(id)}})
	}
	return out
}

// due is the time of the earliest pending event, when every choice is
// taken (a frame taken early arrives then).
func (m *machine) due() time.Duration {
	if p, ok := m.c.Next(); ok {
		return p.At
	}
	return m.c.Now()
}

// sleeper is the move's identity for sleep sets, computed only when the
// search uses them.
func (m *machine) sleeper(kind byte, p sim.Pending) sleeper {
	if !m.x.opt.POR || m.x.opt.Strategy != DFS {
		return sleeper{}
	}
	return sleeperOf(kind, p, m.x.types)
}

// apply makes a choice and settles.
func (m *machine) apply(mv move) error {
	var err error
	m.pend = nil
	switch mv.kind {
	case 't':
		err = m.c.TakeOwn(mv.seq, mv.text) // listed and offered (moves)
	case 'd':
		err = m.c.Drop(mv.seq)
		m.drops++
	case 'c':
		err = m.c.Crash(mv.node)
		m.crashes++
		m.down = append(m.down, mv.node)
	case 'r':
		err = m.c.Recover(mv.node)
		m.down = slices.DeleteFunc(m.down, func(id protocol.NodeID) bool { return id == mv.node })
	}
	if err != nil {
		return fmt.Errorf("explore: %s: %w", mv, err)
	}
	m.depth++
	m.settle()
	return nil
}

// fingerprint is the state's: the run's (fingerprint) and what decides
// this machine's future beside it (the budgets used, the nodes it may
// recover, the checker's memory).
func (m *machine) fingerprint() fp {
	f, nodes := fingerprintOrdered(m.c, m.pending(), m.x.types, m.extra, true, m.prev)
	if m.x.checkIncremental {
		if full, _ := fingerprintOrdered(m.c, m.pending(), m.x.types, m.extra, true, nil); full != f {
			m.x.incrementalWrong++
		}
	}
	m.nodes = nodes
	return f
}

// fingerprintOrdered is fingerprint, or with ordered false the coarser
// identity of fingerprintOrdered.
func (m *machine) fingerprintOrdered(ordered bool) fp {
	f, _ := fingerprintOrdered(m.c, m.pending(), m.x.types, m.extra, ordered, nil)
	return f
}

// extra hashes what decides the machine's future beside the run: the
// budgets used, the nodes it may recover, the checker's memory.
func (m *machine) extra(h *hasher) {
	h.u64(uint64(m.crashes))
	h.u64(uint64(m.drops))
	down := slices.Clone(m.down)
	slices.Sort(down)
	for _, id := range down {
		h.u64(uint64(id))
	}
	k := m.chk
	h.u64(uint64(k.msgs))
	h.u64(uint64(k.sent))
	h.u64(uint64(k.crashed))
	h.u64(uint64(k.dropped))
	w := walker{seen: map[uintptr]uint64{}, types: m.x.types}
	for _, v := range []any{k.leader, k.epochs, k.inside, k.waiting} {
		w.value(h, reflectOf(v))
	}
}

func (m *machine) close() { m.c.Close() }
