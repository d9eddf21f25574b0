package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"manetlab/netstack"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// Controller runs a scenario one step at a time under outside choices:
// a person in the studio, or a schedule replayed. A step takes the event
// the simulator would take next (Step), takes a chosen pending event
// before the others (Take), drops a pending frame (Drop), or crashes or
// recovers a node (Crash, Recover), cuts or heals a link (Cut, Heal) or
// moves a node (Move). Every choice is recorded (Choices),
// and because the simulator is deterministic, replaying the choices on a
// fresh Controller (Replay) reaches the same state: that is how a
// session rewinds, and how `sim --schedule` writes the same traces.
//
// Pending events are named by their place in the order of pushes to the
// event queue (Pending.Seq), which a replay reproduces exactly.
//
// A Controller is used from one goroutine.
type Controller struct {
	w       *world
	start   time.Time
	step    int
	choices []Choice
	skip    map[uint64]bool // taken early or dropped: passed over when popped
	head    *item           // the next item, popped ahead of time
	done    bool
	beyond  *item // the first item past the end, popped when done (Beyond)
	closed  bool
	err     error // a process failed (failure.go)
	log     []Taken
	unlog   bool // Unlogged: steps are not logged
	// got are the multi-hop messages delivered, by origin, origin
	// sequence number and receiver: the copies still flooding elsewhere
	// do not hold the next message of their channel back.
	got map[gotKey]bool
}

type gotKey struct {
	origin protocol.NodeID
	oseq   uint64
	node   protocol.NodeID
}

// Taken is one step of a session, as the timeline lists it.
type Taken struct {
	Step  int             `json:"step"` // the steps before it
	At    time.Duration   `json:"at"`
	Text  string          `json:"text"`
	Line  string          `json:"line"`  // as Pending.Line
	Class string          `json:"class"` // as Pending.Class, or "choice" for a crash, recovery or drop
	Node  protocol.NodeID `json:"node,omitempty"`
	// Chosen is set when the step was a choice (Take, Drop, Crash,
	// Recover), not the simulator's next event.
	Chosen bool `json:"chosen,omitempty"`
}

// NewController builds the scenario's run, paused at t = 0 with nothing
// done: the nodes' boots are the first pending events. observe, when not
// nil, sees every trace event as it is written (headers included).
func NewController(s *scenario.Scenario, opt Options, observe func(*trace.Event)) (*Controller, error) {
	opt.movable = true // Move (move.go)
	w, err := newWorld(s, opt)
	if err != nil {
		return nil, err
	}
	c := &Controller{w: w, start: time.Now(), skip: map[uint64]bool{}, got: map[gotKey]bool{}}
	w.out.observe = func(e *trace.Event) {
		if e.Ev == trace.EvRecv && e.Origin != 0 {
			c.got[gotKey{e.Origin, e.OSeq, e.Node}] = true
		}
		if observe != nil {
			observe(e)
		}
	}
	if err := w.begin(); err != nil {
		w.out.close()
		return nil, err
	}
	return c, nil
}

// Steps is the number of steps taken.
func (c *Controller) Steps() int { return c.step }

// Now is the virtual time.
func (c *Controller) Now() time.Duration { return c.w.now }

// End is the scenario's duration.
func (c *Controller) End() time.Duration { return c.w.end }

// Done reports whether the run has nothing left to do before its end.
func (c *Controller) Done() bool { return c.peek() == nil }

// Choices returns the choices made so far, in order.
func (c *Controller) Choices() []Choice { return slices.Clone(c.choices) }

// Log returns the steps taken so far.
func (c *Controller) Log() []Taken { return slices.Clone(c.log) }

// peek is the next item the simulator would take, nil when none is left
// before the end.
func (c *Controller) peek() *item {
	if c.head != nil {
		return c.head
	}
	for !c.done && c.w.q.len() > 0 {
		it := c.w.q.pop()
		if c.skip[it.seq] {
			delete(c.skip, it.seq)
			continue
		}
		if it.at > c.w.end {
			c.done = true
			c.beyond = &it // kept for Beyond
			break
		}
		c.head = &it
		return c.head
	}
	c.done = true
	return nil
}

// Step takes the event the simulator would take next; false when the run
// has reached its end.
func (c *Controller) Step() bool {
	it := c.peek()
	if it == nil {
		return false
	}
	c.head = nil
	if !c.unlog {
		p := c.describe(*it)
		c.log = append(c.log, Taken{Step: c.step, At: it.at, Text: p.Text, Line: p.Line, Class: p.Class, Node: p.Node})
	}
	c.step++
	c.w.now = it.at
	c.w.res.Events++
	c.guard(func() { c.w.dispatch(*it) })
	return c.err == nil
}

// Beyond lists the events left after the run's end that would do
// something (a timer set past the end, a frame arriving after it), in no
// particular order: once Next says nothing is left, the explorer calls the
// run quiescent only when none of them is the protocol's.
func (c *Controller) Beyond() []Pending {
	var out []Pending
	keep := func(it item) {
		if c.skip[it.seq] || it.at <= c.w.end {
			return
		}
		if p := c.describe(it); p.Class != ClassStale {
			out = append(out, p)
		}
	}
	if c.beyond != nil {
		keep(*c.beyond)
	}
	c.w.q.heap.Each(func(at time.Duration, v queued) {
		keep(item{at: at, kind: v.kind, node: v.node, gen: v.gen, ref: v.ref, f: v.f, to: v.to, seq: v.seq})
	})
	for i := range c.w.q.lanes {
		ln := &c.w.q.lanes[i]
		for _, l := range ln.items[ln.head:] {
			keep(item{at: l.at, kind: l.v.kind, node: l.v.node, gen: l.v.gen, ref: l.v.ref, f: l.v.f, to: l.v.to, seq: l.v.seq})
		}
	}
	return out
}

// Next is the event Step would take, and false when none is left.
func (c *Controller) Next() (Pending, bool) {
	it := c.peek()
	if it == nil {
		return Pending{}, false
	}
	return c.describe(*it), true
}

// Pending lists the events waiting, in the order the simulator would
// take them, with what each is and whether Take may take it next. Items
// that would do nothing (a cancelled timer, a crashed node's) are left
// out; so are those beyond the run's end.
func (c *Controller) Pending() []Pending {
	its := c.items()
	all := make([]Pending, len(its))
	for i, it := range its {
		all[i] = c.describe(it)
	}
	c.offer(its, all) // by index: before the stale ones are left out
	out := all[:0]
	for _, p := range all {
		if p.Class != ClassStale {
			out = append(out, p)
		}
	}
	return out
}

// items are the queued items in the order they will be taken, the head
// first; neither skipped ones nor those beyond the end.
func (c *Controller) items() []item {
	var its []item
	if h := c.peek(); h != nil {
		its = append(its, *h)
	}
	add := func(at time.Duration, v queued) {
		if c.skip[v.seq] || at > c.w.end {
			return
		}
		its = append(its, item{at: at, kind: v.kind, node: v.node, gen: v.gen, ref: v.ref, f: v.f, to: v.to, seq: v.seq})
	}
	c.w.q.heap.Each(add)
	for i := range c.w.q.lanes {
		ln := &c.w.q.lanes[i]
		for _, l := range ln.items[ln.head:] {
			add(l.at, l.v)
		}
	}
	slices.SortFunc(its, func(a, b item) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return its
}

// lookup is the pending item seq, found without listing and sorting the
// queue.
func (c *Controller) lookup(seq uint64) (item, bool) {
	h := c.peek()
	if h == nil {
		return item{}, false
	}
	if h.seq == seq {
		return *h, true
	}
	var got item
	ok := false
	add := func(at time.Duration, v queued) {
		if !ok && v.seq == seq && !c.skip[seq] && at <= c.w.end {
			got, ok = item{at: at, kind: v.kind, node: v.node, gen: v.gen, ref: v.ref, f: v.f, to: v.to, seq: v.seq}, true
		}
	}
	c.w.q.heap.Each(add)
	for i := range c.w.q.lanes {
		ln := &c.w.q.lanes[i]
		for _, l := range ln.items[ln.head:] {
			add(l.at, l.v)
		}
	}
	return got, ok
}

// find is the pending item seq.
func (c *Controller) find(seq uint64) (item, bool) {
	for _, it := range c.items() {
		if it.seq == seq {
			return it, true
		}
	}
	return item{}, false
}

// Take takes pending event seq before the others: it happens now, or at
// the time of the next event if that is later (an earlier arrival than
// the radio's delay, or a timer fired early). It fails when the event is
// not pending or not offered (Pending.Why).
func (c *Controller) Take(seq uint64) error {
	its := c.items()
	ps := make([]Pending, len(its))
	var it item
	found := -1
	for i, x := range its {
		ps[i] = c.describe(x)
		if x.seq == seq {
			it, found = x, i
		}
	}
	if found < 0 {
		return fmt.Errorf("event %d is not pending", seq)
	}
	c.offer(its, ps)
	p := ps[found]
	if !p.Offered {
		return fmt.Errorf("event %d (%s) is not offered: %s", seq, p.Text, p.Why)
	}
	c.take(it, p, its[0].at)
	return nil
}

// take takes item it, described by p, now or at first, the time of the
// earliest pending item, if that is later.
func (c *Controller) take(it item, p Pending, first time.Duration) {
	seq := it.seq
	at := max(c.w.now, first)
	if c.head != nil && c.head.seq == seq {
		c.head = nil
	} else {
		c.skip[seq] = true
	}
	c.choices = append(c.choices, Choice{Step: c.step, Take: seq, What: p.Text})
	if !c.unlog {
		c.log = append(c.log, Taken{Step: c.step, At: at, Text: p.Text, Line: p.Line, Class: p.Class, Node: p.Node, Chosen: true})
	}
	c.step++
	c.w.now = at
	c.w.res.Events++
	it.at = at
	c.guard(func() { c.w.dispatch(it) })
}

// Drop removes a pending frame: nobody hears it. Receivers of a
// broadcast or a flood trace it as a drop with reason "schedule"; a
// unicast is retransmitted by its sender, as after a loss.
func (c *Controller) Drop(seq uint64) error {
	it, ok := c.find(seq)
	if !ok {
		return fmt.Errorf("event %d is not pending", seq)
	}
	if it.kind != itemArrive || it.f == nil {
		return fmt.Errorf("event %d (%s) is not a frame in flight: only frames can be dropped", seq, c.describe(it).Text)
	}
	p := c.describe(it)
	if c.head != nil && c.head.seq == seq {
		c.head = nil
	} else {
		c.skip[seq] = true
	}
	w := c.w
	w.touchAll()
	if f := it.f; f.To < 0 && f.Type != netstack.Hello {
		w.rx = w.medium.Reach(int(f.From), w.now, w.rx[:0])
		for _, rc := range w.rx {
			r := w.nodes[rc.Node]
			if r.alive && rc.Dist <= w.maxRange {
				w.out.node(r.index, &trace.Event{T: int64(w.now), Node: r.id, Ev: trace.EvDrop, Kind: f.Kind(),
					From: w.nodes[f.From].id, Seq: f.Seq, Reason: ReasonSchedule})
			}
		}
	}
	c.choices = append(c.choices, Choice{Step: c.step, Drop: seq, What: p.Text})
	c.log = append(c.log, Taken{Step: c.step, At: w.now, Text: "drop " + p.Text, Line: "drop " + p.Line, Class: ClassChoice, Node: p.Node, Chosen: true})
	c.step++
	return nil
}

// ReasonSchedule is the drop reason of a frame a Controller dropped.
const ReasonSchedule = "schedule"

// Crash crashes node id now (at the time of the next event, if later),
// as a fault of the scenario would.
func (c *Controller) Crash(id protocol.NodeID) error {
	return c.fault(id, true)
}

// Recover restarts node id now, as a fault of the scenario would.
func (c *Controller) Recover(id protocol.NodeID) error {
	return c.fault(id, false)
}

func (c *Controller) fault(id protocol.NodeID, crash bool) error {
	i, ok := c.w.byID[id]
	if !ok {
		return fmt.Errorf("no node %d", id)
	}
	n := c.w.nodes[i]
	c.w.touchAll()
	// It happens at the time of the next event, as a Take does: what the
	// node's boot queues then comes after the events already due.
	if h := c.peek(); h != nil {
		c.w.now = max(c.w.now, h.at)
	}
	ch := Choice{Step: c.step}
	text := fmt.Sprintf("crash node %d", id)
	switch {
	case crash && !n.alive:
		return fmt.Errorf("node %d is not running (not started yet, or crashed)", id)
	case !crash && n.alive:
		return fmt.Errorf("node %d is up", id)
	case crash:
		ch.Crash = id
		c.guard(func() { c.w.fault(scenario.Fault{Crash: []protocol.NodeID{id}}) })
	default:
		ch.Recover = id
		text = fmt.Sprintf("recover node %d", id)
		c.guard(func() { c.w.fault(scenario.Fault{Recover: []protocol.NodeID{id}}) })
	}
	c.choices = append(c.choices, ch)
	c.log = append(c.log, Taken{Step: c.step, At: c.w.now, Text: text, Class: ClassChoice, Node: id, Chosen: true})
	c.step++
	return nil
}

// Cut cuts the radio link between nodes a and b: from now on neither
// hears the other's frames (hellos included, so each loses the other as
// a neighbour after the hello timeout), wherever they move, until Heal.
func (c *Controller) Cut(a, b protocol.NodeID) error { return c.link(a, b, true) }

// Heal restores a link cut by hand.
func (c *Controller) Heal(a, b protocol.NodeID) error { return c.link(a, b, false) }

func (c *Controller) link(a, b protocol.NodeID, cut bool) error {
	i, ok1 := c.w.byID[a]
	j, ok2 := c.w.byID[b]
	switch {
	case !ok1 || !ok2 || a == b:
		return fmt.Errorf("no link between %d and %d", a, b)
	case cut == c.w.isCut(int32(i), int32(j)):
		if cut {
			return fmt.Errorf("the link %d–%d is cut already", a, b)
		}
		return fmt.Errorf("the link %d–%d is not cut", a, b)
	}
	c.w.touchAll()
	if h := c.peek(); h != nil {
		c.w.now = max(c.w.now, h.at)
	}
	if c.w.cut == nil {
		c.w.cut = map[[2]int32]bool{}
	}
	k := cutKey(int32(i), int32(j))
	ch := Choice{Step: c.step}
	text := fmt.Sprintf("cut the link %d–%d", a, b)
	if cut {
		c.w.cut[k] = true
		ch.Cut = []protocol.NodeID{a, b}
	} else {
		delete(c.w.cut, k)
		ch.Heal = []protocol.NodeID{a, b}
		text = fmt.Sprintf("heal the link %d–%d", a, b)
	}
	c.choices = append(c.choices, ch)
	c.log = append(c.log, Taken{Step: c.step, At: c.w.now, Text: text, Class: ClassChoice, Node: a, Chosen: true})
	c.step++
	return nil
}

func cutKey(i, j int32) [2]int32 {
	if i > j {
		i, j = j, i
	}
	return [2]int32{i, j}
}

// isCut reports whether the link between member indices i and j was cut
// by hand.
func (w *world) isCut(i, j int32) bool {
	return w.cut != nil && w.cut[cutKey(i, j)]
}

// Apply makes choice ch, which must be due now (ch.Step == Steps()).
func (c *Controller) Apply(ch Choice) error {
	if ch.Step != c.step {
		return fmt.Errorf("choice for step %d applied at step %d", ch.Step, c.step)
	}
	switch {
	case ch.Take != 0 || ch.Drop != 0:
		seq := ch.Take + ch.Drop
		if ch.What != "" {
			it, ok := c.find(seq)
			if !ok {
				return fmt.Errorf("step %d: event %d (%s) is not pending", ch.Step, seq, ch.What)
			}
			if got := c.describe(it).Text; got != ch.What {
				return fmt.Errorf("step %d: event %d is %q, the schedule says %q (another scenario, seed or version?)", ch.Step, seq, got, ch.What)
			}
		}
		if ch.Take != 0 {
			return c.Take(ch.Take)
		}
		return c.Drop(ch.Drop)
	case ch.Crash != 0:
		return c.Crash(ch.Crash)
	case ch.Recover != 0:
		return c.Recover(ch.Recover)
	case len(ch.Cut) == 2:
		return c.Cut(ch.Cut[0], ch.Cut[1])
	case len(ch.Heal) == 2:
		return c.Heal(ch.Heal[0], ch.Heal[1])
	case ch.Move != nil:
		return c.Move(ch.Move.Node, ch.Move.X, ch.Move.Y)
	}
	return fmt.Errorf("step %d: a choice with nothing to do", ch.Step)
}

// Finish runs the rest of the run in the simulator's order and closes
// its traces. The steps it takes are not logged: on a long run, naming
// every event would cost more than running it.
func (c *Controller) Finish() (*Result, error) {
	for it := c.peek(); it != nil; it = c.peek() {
		c.head = nil
		c.step++
		c.w.now = it.at
		c.w.res.Events++
		c.guard(func() { c.w.dispatch(*it) })
	}
	if c.err != nil {
		return nil, c.err
	}
	c.closed = true
	if err := c.w.finish(c.start); err != nil {
		return nil, err
	}
	return &c.w.res, nil
}

// Close abandons the run: its traces are closed where they stand (the
// end events are not written).
func (c *Controller) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.w.closeProcs()
	return c.w.out.close()
}

// Replay builds a fresh Controller and replays sched's choices on it up
// to step upTo (sched.Steps when upTo < 0, every choice and no further
// when that is 0 too). It stops early, without error, at the run's end.
func Replay(s *scenario.Scenario, opt Options, sched *Schedule, upTo int, observe func(*trace.Event)) (*Controller, error) {
	c, err := NewController(s, opt, observe)
	if err != nil {
		return nil, err
	}
	if err := c.replay(sched.Choices, upTo); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Play replays choices on c, from its current step, up to step upTo (as
// Replay does): for a caller that needs the Controller before the replay
// (an observer that reads its step).
func (c *Controller) Play(choices []Choice, upTo int) error { return c.replay(choices, upTo) }

// CountTouches makes the run count, for each node, the events that may
// change it (NodeView.Touch), from the start: call it before any step.
// Off by default: a broadcast counts at every node.
func (c *Controller) CountTouches() { c.w.touches = true }

// Unlogged stops logging the steps (Log stays empty from now on): for a
// search that replays runs by the thousand and never shows them.
func (c *Controller) Unlogged() { c.unlog = true }

// PlayOwn replays choices that a Controller of the same scenario and
// options made (its Choices), from the start, as Play does, but trusts
// them: a taken event is found by its number alone, neither described
// nor checked against the schedule's text and the reliable channel's
// order (what Take checks). The run is the one Play would replay; a
// choice that does not fit it is not detected. For the explorer's
// restoration of its own states; a schedule file goes through Play.
func (c *Controller) PlayOwn(choices []Choice) error {
	for _, ch := range choices {
		for c.step < ch.Step {
			if !c.Step() {
				return fmt.Errorf("schedule: step %d: the run ended at step %d", ch.Step, c.step)
			}
		}
		if ch.Take == 0 {
			if err := c.Apply(ch); err != nil {
				return fmt.Errorf("schedule: %w", err)
			}
			continue
		}
		if err := c.TakeOwn(ch.Take, ch.What); err != nil {
			return fmt.Errorf("schedule: step %d: %w", ch.Step, err)
		}
	}
	return nil
}

// TakeOwn takes pending event seq, as Take does, for a caller that knows
// it is offered (it listed it with Pending since the last step, or
// replays its own choices): it is neither described nor checked; what
// is its text (Pending.Text), recorded in Choices.
func (c *Controller) TakeOwn(seq uint64, what string) error {
	it, ok := c.lookup(seq)
	if !ok {
		return fmt.Errorf("event %d (%s) is not pending", seq, what)
	}
	p := Pending{Text: what}
	if !c.unlog {
		p = c.describe(it)
	}
	c.take(it, p, c.head.at)
	return nil
}

func (c *Controller) replay(choices []Choice, upTo int) error {
	for _, ch := range choices {
		if upTo >= 0 && ch.Step >= upTo {
			break
		}
		for c.step < ch.Step {
			if !c.Step() {
				return fmt.Errorf("schedule: step %d: the run ended at step %d", ch.Step, c.step)
			}
		}
		if err := c.Apply(ch); err != nil {
			return fmt.Errorf("schedule: %w", err)
		}
	}
	for upTo >= 0 && c.step < upTo && c.Step() {
	}
	return nil
}

// RunSchedule simulates the scenario with sched's choices and then in the
// simulator's order to its end: the traces of the session the schedule
// recorded, run to the end.
func RunSchedule(s *scenario.Scenario, opt Options, sched *Schedule) (*Result, error) {
	c, err := NewController(s, opt, nil)
	if err != nil {
		return nil, err
	}
	if err := c.replay(sched.Choices, -1); err != nil {
		c.Close()
		return nil, err
	}
	return c.Finish()
}

// The classes of pending events: what the studio shows by default
// (protocol: the algorithm's messages and timers, boots, faults,
// commands), what it shows on request (transport: the reliable channel's
// acknowledgements and timers; network: hellos, link acknowledgements,
// relays' timers, routing), and what does nothing (stale).
const (
	ClassProtocol  = "protocol"
	ClassTransport = "transport"
	ClassNetwork   = "network"
	ClassStale     = "stale"
	ClassChoice    = "choice"
)

// Pending is one event waiting in the queue.
type Pending struct {
	Seq uint64        `json:"seq"`
	At  time.Duration `json:"at"`
	// Type is "deliver" (a frame reaching its receivers), "timer" (a
	// protocol timer), "net-timer" (the network stack's), "start",
	// "fault" or "command".
	Type  string `json:"type"`
	Class string `json:"class"`
	// Node is the node it happens at: the timer's, the command's, the
	// transmitter of a frame.
	Node protocol.NodeID `json:"node,omitempty"`
	// A frame's: its message kind, its transmitter (From), its receiver
	// (To; 0: every node in range), and for a multi-hop message its
	// origin and destination (Final; 0: every node).
	Msg    string          `json:"msg,omitempty"`
	From   protocol.NodeID `json:"from,omitempty"`
	To     protocol.NodeID `json:"to,omitempty"`
	Origin protocol.NodeID `json:"origin,omitempty"`
	Final  protocol.NodeID `json:"final,omitempty"`
	// Name is a timer's name.
	Name string `json:"name,omitempty"`
	// Text is the event in one line, as schedules name it.
	Text string `json:"text"`
	// Line is Text with what a frame's message carries in place of its
	// kind (protocol.MessageDescriber): "token from 8, election 1: 4→7"
	// where Text says "token 4→7". The studio shows it; schedules keep
	// Text.
	Line string `json:"line"`
	// Says is what a frame's message carries, alone ("token from 8,
	// election 1"); "" when it does not say.
	Says string `json:"says,omitempty"`
	// Offered says whether Take may take it next; Why says why not.
	Offered bool   `json:"offered"`
	Why     string `json:"why,omitempty"`
	// Droppable: a frame in flight.
	Droppable bool `json:"droppable,omitempty"`
	// Frame is a frame's, for an explorer's fingerprint (package
	// explore): read it, never change it.
	Frame *netstack.Frame `json:"-"`
}

// describe says what item it is.
func (c *Controller) describe(it item) Pending {
	w := c.w
	p := Pending{Seq: it.seq, At: it.at, Class: ClassNetwork, Offered: true}
	var n *node
	if it.kind != itemFault && it.kind != itemCommand {
		n = w.nodes[it.node]
		p.Node = n.id
	}
	stale := n != nil && (!n.alive || n.gen != it.gen)
	switch it.kind {
	case itemStart:
		p.Type, p.Class = "start", ClassProtocol
		p.Text = fmt.Sprintf("start node %d", n.id)
		stale = false
	case itemFault:
		f := w.s.Faults[it.ref]
		p.Type, p.Class = "fault", ClassProtocol
		var parts []string
		if len(f.Crash) > 0 {
			parts = append(parts, "crash "+ids(f.Crash))
		}
		if len(f.Recover) > 0 {
			parts = append(parts, "recover "+ids(f.Recover))
		}
		p.Text = "fault: " + strings.Join(parts, ", ")
	case itemCommand:
		cm := w.s.Workload.Commands[it.ref]
		p.Type, p.Class, p.Node = "command", ClassProtocol, cm.Node
		p.Text = fmt.Sprintf("command %s at node %d", cm.Command, cm.Node)
		if cm.Command == string(protocol.SetValue) {
			p.Text += fmt.Sprintf(" (%g)", cm.Value)
		}
	case itemTimer:
		p.Type = "timer"
		var pt pendingTimer
		ok := false
		if !stale {
			for _, t := range n.timers {
				if t.id == it.ref {
					pt, ok = t, true
				}
			}
		}
		stale = !ok
		p.Name = pt.name
		p.Class = ClassProtocol
		if pt.name == "reliable" || strings.HasPrefix(pt.name, "reliable") {
			p.Class = ClassTransport
		}
		p.Text = fmt.Sprintf("timer %q at node %d", pt.name, n.id)
		if pt.arg != 0 {
			p.Text = fmt.Sprintf("timer %q (%d) at node %d", pt.name, pt.arg, n.id)
		}
	case itemArrive, itemAirStart:
		f := it.f
		p.Type = "deliver"
		p.From = w.nodes[f.From].id
		p.Node = p.From
		stale = false
		if f.To >= 0 {
			p.To = w.nodes[f.To].id
		}
		p.Msg = f.Kind()
		p.Frame = f
		p.Droppable = it.kind == itemArrive
		if f.Type.HasBody() && f.Msg != nil {
			p.Class = ClassProtocol
			if protocol.IsTransport(p.Msg) {
				p.Class = ClassTransport
			}
		}
		to := "all in range"
		if p.To != 0 {
			to = fmt.Sprintf("%d", p.To)
		}
		switch f.Type {
		case netstack.Flood, netstack.Data:
			p.Origin = w.nodes[f.Origin].id
			p.Final = f.Final
			fin := "all"
			if f.Final != 0 {
				fin = fmt.Sprintf("%d", f.Final)
			}
			p.Text = fmt.Sprintf("%s %d→%s (hop %d, %d→%s)", p.Msg, p.Origin, fin, f.Hops+1, p.From, to)
			// A hop that cannot reach the destination, or a copy of a
			// message the destination has, is the network's relaying,
			// not the algorithm's delivery.
			switch j, ok := w.byID[f.Final]; {
			case !ok || p.Class == ClassNetwork:
			case c.got[gotKey{p.Origin, f.OSeq, f.Final}]:
				p.Class = ClassNetwork
				p.Text += " copy (delivered)"
			case w.medium.Dist(int(f.From), j, max(w.now, it.at)) > w.maxRange:
				p.Class = ClassNetwork
				p.Text += " relay hop"
			}
		default:
			p.Text = fmt.Sprintf("%s %d→%s", p.Msg, p.From, to)
		}
		if it.kind == itemAirStart {
			p.Text += " (on the air)"
			p.Offered, p.Why = false, "on the DCF medium the MAC orders the frames on the air"
		}
	case itemAirEnd:
		p.Type, p.Text = "net-timer", "frame end"
		stale = false
	default:
		p.Type = "net-timer"
		p.Text = fmt.Sprintf("%s at node %d", netItemNames[it.kind], n.id)
	}
	if stale {
		p.Class = ClassStale
	}
	p.Line = p.Text
	if p.Frame != nil {
		if p.Says = p.Frame.Says(); p.Says != "" {
			p.Line = p.Says + ":" + strings.TrimPrefix(p.Text, p.Msg)
		}
	}
	return p
}

var netItemNames = map[itemKind]string{
	itemHello: "hello tick", itemRelay: "relay", itemRetx: "link retransmission",
	itemDiscovery: "route discovery wait", itemAccess: "backoff over", itemTxEnd: "transmission end",
	itemAckWait: "link ack wait", itemAckSend: "link ack",
}

// channelSeq is what the reliable channel's Data says of its place.
type channelSeq interface {
	ChannelSeq() (inc uint64, conn, seq uint32)
}

// offer decides which pending events Take may take: every one but the
// frames of a reliable channel that have an earlier frame of the same
// session, same origin and destination, still pending and not yet at its
// destination (the channel delivers in order: it would hold the later
// one).
func (c *Controller) offer(its []item, ps []Pending) {
	type session struct {
		origin, final protocol.NodeID
		inc           uint64
		conn          uint32
	}
	first := map[session]int{} // the index of the session's lowest seq pending
	keyOf := func(i int) (session, uint32, bool) {
		it := its[i]
		if it.kind != itemArrive || it.f == nil || it.f.Msg == nil {
			return session{}, 0, false
		}
		cs, ok := it.f.Msg.(channelSeq)
		if !ok {
			return session{}, 0, false
		}
		inc, conn, seq := cs.ChannelSeq()
		origin, final := c.w.nodes[it.f.From].id, protocol.None
		switch {
		case it.f.Type == netstack.Flood || it.f.Type == netstack.Data:
			origin, final = c.w.nodes[it.f.Origin].id, it.f.Final
			if c.got[gotKey{origin, it.f.OSeq, final}] {
				return session{}, 0, false // a copy of a message its destination has
			}
		case it.f.To >= 0:
			final = c.w.nodes[it.f.To].id
		}
		return session{origin, final, inc, conn}, seq, true
	}
	for i := range its {
		k, seq, ok := keyOf(i)
		if !ok {
			continue
		}
		if j, seen := first[k]; !seen || seq < seqOf(its[j]) {
			first[k] = i
		}
	}
	for i := range its {
		k, seq, ok := keyOf(i)
		if !ok {
			continue
		}
		j := first[k]
		if s0 := seqOf(its[j]); s0 < seq {
			ps[i].Offered = false
			ps[i].Why = fmt.Sprintf("the reliable channel from %d to %d is FIFO: its message #%d (event %d) must arrive first", k.origin, k.final, s0, its[j].seq)
		}
	}
}

func seqOf(it item) uint32 {
	_, _, s := it.f.Msg.(channelSeq).ChannelSeq()
	return s
}

func ids(l []protocol.NodeID) string {
	s := make([]string, len(l))
	for i, id := range l {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// NodeState is one node as the studio draws it.
type NodeState struct {
	ID    protocol.NodeID `json:"id"`
	Alive bool            `json:"alive"`
	Value float64         `json:"value"`
	X     float64         `json:"x"`
	Y     float64         `json:"y"`
	// Describe is the process's own line (protocol.Describer).
	Describe string `json:"describe,omitempty"`
	// Neighbors are the nodes within radio range now (higher IDs only,
	// so that each link is listed once), but for the links cut by hand,
	// listed in Cut.
	Neighbors []protocol.NodeID `json:"neighbors,omitempty"`
	Cut       []protocol.NodeID `json:"cut,omitempty"`
}

// Nodes returns every node's state now, in member order.
func (c *Controller) Nodes() []NodeState {
	w := c.w
	out := make([]NodeState, len(w.nodes))
	for i, n := range w.nodes {
		p := w.mob.Position(n.index, w.now)
		ns := NodeState{ID: n.id, Alive: n.alive, Value: n.value, X: p.X, Y: p.Y}
		if n.alive && n.proc != nil {
			ns.Describe = protocol.Describe(n.proc)
		}
		w.rx = w.medium.Reach(i, w.now, w.rx[:0])
		for _, rc := range w.rx {
			switch {
			case rc.Dist > w.maxRange || w.nodes[rc.Node].id < n.id:
			case w.isCut(int32(i), int32(rc.Node)):
				ns.Cut = append(ns.Cut, w.nodes[rc.Node].id)
			default:
				ns.Neighbors = append(ns.Neighbors, w.nodes[rc.Node].id)
			}
		}
		slices.Sort(ns.Neighbors)
		slices.Sort(ns.Cut)
		out[i] = ns
	}
	return out
}

// StopsAt weighs step s, just taken at node id, by the rule of the
// node's process (protocol.StopsAt: the studio's "next note"); live is
// false, and stop with it, when the node is down or not a member.
func (c *Controller) StopsAt(id protocol.NodeID, s protocol.Step) (stop, live bool) {
	i, ok := c.w.byID[id]
	if !ok || !c.w.nodes[i].alive || c.w.nodes[i].proc == nil {
		return false, false
	}
	return protocol.StopsAt(c.w.nodes[i].proc, s), true
}

// Frames is the number of frames put on the air so far (hellos,
// acknowledgements, relays and retransmissions included).
func (c *Controller) Frames() uint64 { return c.w.res.Frames }

// Warnings are what the protocol said of doubtful parameters.
func (c *Controller) Warnings() []string { return c.w.warnings }
