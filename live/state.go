package live

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// The state's bounds, whatever the run's length: the page's log keeps the
// last LogSize notable events, the rates the last RateSeconds seconds,
// the leaders strip StripSize samples (halving its resolution when full),
// the elections the last keptElections ended ones.
const (
	LogSize        = 400
	RateSeconds    = 64
	StripSize      = 600
	keptElections  = 8
	maxPartialLine = 1 << 20
)

// State is what the page shows of a run, built from its events as they
// arrive: every node's leader, liveness and neighbour table, the counts,
// rates by kind, the leaders over time, the elections in progress and a
// window of recent notable events. Its memory is bounded by the number
// of nodes and the constants above, not by the run's length.
type State struct {
	mu       sync.Mutex
	sc       *scenario.Scenario
	mob      mobility.Model
	index    map[protocol.NodeID]int
	run      string
	protocol string
	driver   string
	nodes    map[protocol.NodeID]*nodeState
	now      int64 // the latest event time seen, ns since the start
	// startWall is the run's start on the wall clock (Unix ns), from the
	// first event carrying both (wall - t): the faults record has no
	// wall time.
	startWall int64

	totals  map[string]uint64 // sends by kind
	frames  uint64            // every frame on the air: sends, relays, retransmissions, link acks, routing control
	retx    uint64
	acks    uint64
	relays  uint64
	drops   map[string]uint64 // by reason; "collision" is the DCF medium's
	buckets [RateSeconds]bucket

	strip     []stripSample
	stripStep int64 // ns between samples

	elections map[string]*election
	ended     []*election

	log     []Event // the last LogSize notable events
	seq     uint64  // numbers every logged event
	applied uint64  // every event applied
	// lag is the wall delay of arrival (now minus the event's wall
	// clock) of the last events that carried one, for the figures.
	lag lagStats

	verdict Verdict
	// faults are the crashes, recoveries, cuts and heals applied so far
	// (at most maxFaults), for the summary of the run so far.
	faults []trace.Event
	// cut holds the halves of links cut by hand now: {a, b} when a no
	// longer hears b (at most maxFaults).
	cut map[[2]protocol.NodeID]bool
}

type nodeState struct {
	id       protocol.NodeID
	alive    bool
	seen     bool
	leader   protocol.NodeID
	inCS     bool
	nbrs     map[protocol.NodeID]bool
	epoch    string // the election it is in, if any ("" may be one too)
	electing bool
	host     string
	ended    bool // its trace's last event is an end
}

type bucket struct {
	sec    int64
	kinds  map[string]uint64
	frames uint64
	coll   uint64
	retx   uint64
}

type stripSample struct {
	T       float64           `json:"t"`
	Leaders []protocol.NodeID `json:"leaders"`
}

type election struct {
	Epoch     string            `json:"epoch"`
	Initiator protocol.NodeID   `json:"initiator"`
	Started   float64           `json:"started"`
	Ended     float64           `json:"ended,omitempty"`
	In        []protocol.NodeID `json:"in"`
	Joined    int               `json:"joined"`
	in        map[protocol.NodeID]bool
}

// Event is one notable event in the page's log.
type Event struct {
	Seq  uint64          `json:"seq"`
	T    float64         `json:"t"`              // seconds since the start
	Wall int64           `json:"wall,omitempty"` // when it happened, Unix ns (real runs)
	Node protocol.NodeID `json:"node"`
	Ev   string          `json:"ev"`
	Text string          `json:"text"`
	Host string          `json:"host,omitempty"`
	// Got is when the server read it, Unix ns.
	Got int64 `json:"got"`
}

type lagStats struct {
	n        uint64
	sum, max time.Duration
	last     time.Duration
}

// NewState is an empty state; the run file's header (SetScenario) gives
// it its nodes.
func NewState() *State {
	return &State{nodes: map[protocol.NodeID]*nodeState{}, totals: map[string]uint64{}, drops: map[string]uint64{},
		elections: map[string]*election{}, stripStep: int64(time.Second)}
}

// SetScenario takes the run file's header: the run, its scenario (the
// members, their mobility) and its driver.
func (st *State) SetScenario(hdr *trace.Event, sc *scenario.Scenario) error {
	mob, err := sc.MobilityModel()
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sc != nil && st.run == hdr.Run {
		return nil // the final run file of the same run
	}
	st.sc, st.mob, st.run, st.protocol, st.driver = sc, mob, hdr.Run, hdr.Protocol, hdr.Driver
	st.index = map[protocol.NodeID]int{}
	for _, m := range sc.Members() {
		st.index[m.ID] = m.Index
		if st.nodes[m.ID] == nil {
			st.nodes[m.ID] = &nodeState{id: m.ID, nbrs: map[protocol.NodeID]bool{}}
		}
	}
	return nil
}

// Scenario is the run's scenario, nil before the run file's header.
func (st *State) Scenario() (*scenario.Scenario, string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sc, st.run
}

// Member says whether id is a node of the run.
func (st *State) Member(id protocol.NodeID) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.index[id]
	return ok
}

// Apply takes one event of node id's trace (or of the combined file).
func (st *State) Apply(id protocol.NodeID, e *trace.Event, got time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.nodes[id]
	if e.T < 0 {
		return // before the start: no event of a run (the readers refuse it too)
	}
	if n == nil || e.Ev == trace.EvHeader {
		if n != nil && e.Host != "" {
			n.host = e.Host
		}
		return
	}
	st.applied++
	if e.Wall != 0 {
		if st.startWall == 0 {
			st.startWall = e.Wall - e.T
		}
		st.lag.note(got.Sub(time.Unix(0, e.Wall)))
	}
	st.advance(e.T)
	if n.seen && !n.alive && e.Ev != trace.EvStart && e.Ev != trace.EvRecover && st.driver != "sim" {
		// A real node's last lines, read after the faults record said its
		// process was killed: what it believed then is over.
		switch e.Ev {
		case string(protocol.NoteLeader), string(protocol.NoteElectionStart), string(protocol.NoteElectionEnd),
			string(protocol.NoteCSEnter), string(protocol.NoteCSExit), trace.EvNbrUp, trace.EvNbrDown:
			return
		}
	}
	n.seen = true
	n.ended = e.Ev == trace.EvEnd
	b := st.bucket(e.T)
	switch e.Ev {
	case trace.EvStart:
		st.setAlive(n, true, e, got, "")
		n.leader, n.inCS = protocol.None, false
		clear(n.nbrs)
		st.leave(n, e.T)
	case trace.EvCrash, trace.EvRecover:
		if st.driver == "sim" {
			// The simulator's node files are its faults record.
			st.record(trace.Event{T: e.T, Node: id, Ev: e.Ev})
		}
		st.setAlive(n, e.Ev == trace.EvRecover, e, got, "")
	case trace.EvEnd:
		// The run ended for it: it stays as it was.
	case string(protocol.NoteLeader):
		if n.leader != e.Leader {
			n.leader = e.Leader
			txt := fmt.Sprintf("node %d follows %d", id, e.Leader)
			if e.Leader == id {
				txt = fmt.Sprintf("node %d leads", id)
			} else if e.Leader == protocol.None {
				txt = fmt.Sprintf("node %d has no leader", id)
			}
			st.logEvent(e, got, txt, "")
		}
	case string(protocol.NoteElectionStart):
		st.join(n, e)
		st.logEvent(e, got, fmt.Sprintf("node %d starts or joins election %q", id, e.Epoch), "")
	case string(protocol.NoteElectionEnd):
		st.leave(n, e.T)
		st.logEvent(e, got, fmt.Sprintf("node %d ends its part in election %q", id, e.Epoch), "")
	case string(protocol.NoteCSEnter):
		n.inCS = true
		st.logEvent(e, got, fmt.Sprintf("node %d enters the critical section", id), "")
	case string(protocol.NoteCSExit):
		n.inCS = false
	case trace.EvNbrUp:
		n.nbrs[e.Peer] = true
	case trace.EvNbrDown:
		delete(n.nbrs, e.Peer)
	case trace.EvSend:
		st.totals[e.Kind]++
		b.kinds[e.Kind]++
		st.frames++
		b.frames++
	case trace.EvRelay, trace.EvRREQ, trace.EvRREP, trace.EvRERR:
		if e.Ev == trace.EvRelay {
			st.relays++
		}
		st.frames++
		b.frames++
	case trace.EvAck:
		st.acks++
		st.frames++
		b.frames++
	case trace.EvRetx:
		st.retx++
		st.frames++
		b.frames++
		b.retx++
	case trace.EvDrop:
		st.drops[e.Reason]++
		if e.Reason == "collision" {
			b.coll++
		}
	}
}

// Over says whether the run is over as its traces tell: every node's
// trace ends with an end event, but for the nodes down.
func (st *State) Over() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	some := false
	for _, n := range st.nodes {
		if n.seen && n.alive && !n.ended {
			return false
		}
		some = some || n.ended
	}
	return some
}

// Fault takes a crash or recovery of the faults record (or applied by
// hand): the node's process is gone, or back; or half of a link cut by
// hand, or healed: the node no longer hears its peer, or again.
func (st *State) Fault(r trace.FaultRecord, got time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := st.nodes[r.Node]
	if n == nil || r.Check() != nil {
		return
	}
	e := &trace.Event{T: r.T, Node: r.Node, Ev: r.Ev, Peer: r.Peer}
	if st.startWall != 0 {
		e.Wall = st.startWall + r.T
		st.lag.note(got.Sub(time.Unix(0, e.Wall)))
	}
	st.advance(r.T)
	if !st.record(*e) {
		return
	}
	switch r.Ev {
	case trace.EvCut, trace.EvHeal:
		if st.nodes[r.Peer] == nil {
			return
		}
		h := [2]protocol.NodeID{r.Node, r.Peer}
		if st.cut == nil {
			st.cut = map[[2]protocol.NodeID]bool{}
		}
		if r.Ev == trace.EvHeal {
			delete(st.cut, h)
			st.logEvent(e, got, fmt.Sprintf("node %d hears %d again (link healed)", r.Node, r.Peer), r.Host)
		} else if len(st.cut) < maxFaults {
			st.cut[h] = true
			st.logEvent(e, got, fmt.Sprintf("node %d no longer hears %d (link cut)", r.Node, r.Peer), r.Host)
		}
		return
	}
	st.setAlive(n, r.Ev == trace.EvRecover, e, got, r.Host)
}

// record keeps a fault for the summary of the run so far; false when it
// has it already.
func (st *State) record(e trace.Event) bool {
	// A fault heard from its launcher comes again in the faults record
	// gathered at the end (run --hosts).
	for _, f := range st.faults {
		if f.T == e.T && f.Node == e.Node && f.Ev == e.Ev && f.Peer == e.Peer {
			return false
		}
	}
	if len(st.faults) < maxFaults {
		st.faults = append(st.faults, e)
	}
	return true
}

// Cuts are the links cut by hand now, each once (the smaller ID first),
// with how many of its halves are cut (2: neither hears the other).
func (st *State) cuts() []Cut {
	m := map[[2]protocol.NodeID]int{}
	for h := range st.cut {
		m[[2]protocol.NodeID{min(h[0], h[1]), max(h[0], h[1])}]++
	}
	out := make([]Cut, 0, len(m))
	for k, n := range m {
		out = append(out, Cut{A: k[0], B: k[1], Halves: n})
	}
	slices.SortFunc(out, func(x, y Cut) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	return out
}

// Cut is a link cut by hand on the map.
type Cut struct {
	A      protocol.NodeID `json:"a"`
	B      protocol.NodeID `json:"b"`
	Halves int             `json:"halves"`
}

func (st *State) setAlive(n *nodeState, alive bool, e *trace.Event, got time.Time, host string) {
	if host != "" {
		n.host = host
	}
	// A node crashed inside the process it shares writes its crash
	// itself, maybe read before its launcher's record: on its host.
	host = n.host
	if n.alive == alive && n.seen {
		return
	}
	was := n.seen
	n.alive, n.seen = alive, true
	if !alive {
		n.leader, n.inCS = protocol.None, false
		clear(n.nbrs)
		st.leave(n, e.T)
	}
	switch {
	case !alive:
		st.logEvent(e, got, fmt.Sprintf("node %d crashed", n.id), host)
	case was:
		st.logEvent(e, got, fmt.Sprintf("node %d recovered", n.id), host)
	}
}

func (st *State) logEvent(e *trace.Event, got time.Time, text, host string) {
	st.seq++
	if len(st.log) == LogSize {
		copy(st.log, st.log[1:])
		st.log = st.log[:LogSize-1]
	}
	st.log = append(st.log, Event{Seq: st.seq, T: seconds(e.T), Wall: e.Wall, Node: e.Node, Ev: e.Ev, Text: text, Host: host, Got: got.UnixNano()})
}

// advance moves the run's time on, sampling the leaders at every strip
// step crossed.
func (st *State) advance(t int64) {
	if t <= st.now {
		return
	}
	for next := (st.now/st.stripStep + 1) * st.stripStep; next <= t; next += st.stripStep {
		st.sample(next)
	}
	st.now = t
}

func (st *State) sample(t int64) {
	if len(st.strip) == StripSize {
		// Full: every other sample goes, and the step doubles.
		k := 0
		for i := 0; i < len(st.strip); i += 2 {
			st.strip[k] = st.strip[i]
			k++
		}
		st.strip = st.strip[:k]
		st.stripStep *= 2
		if t%st.stripStep != 0 {
			return
		}
	}
	st.strip = append(st.strip, stripSample{T: seconds(t), Leaders: st.leaders()})
}

// leaders are the live nodes that follow themselves, in ID order.
func (st *State) leaders() []protocol.NodeID {
	var out []protocol.NodeID
	for id, n := range st.nodes {
		if n.alive && n.leader == id {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (st *State) bucket(t int64) *bucket {
	sec := t / int64(time.Second)
	b := &st.buckets[sec%RateSeconds]
	if b.sec != sec || b.kinds == nil {
		*b = bucket{sec: sec, kinds: map[string]uint64{}}
	}
	return b
}

// join puts n in the election of e's epoch; the first node seen in it is
// its initiator.
func (st *State) join(n *nodeState, e *trace.Event) {
	if n.electing && n.epoch != e.Epoch {
		st.leave(n, e.T)
	}
	el := st.elections[e.Epoch]
	if el == nil {
		el = &election{Epoch: e.Epoch, Initiator: n.id, Started: seconds(e.T), in: map[protocol.NodeID]bool{}}
		st.elections[e.Epoch] = el
	}
	if !el.in[n.id] {
		el.in[n.id] = true
		el.Joined++
	}
	n.electing, n.epoch = true, e.Epoch
}

// leave takes n out of its election; an election nobody is in any more
// has ended.
func (st *State) leave(n *nodeState, t int64) {
	if !n.electing {
		return
	}
	n.electing = false
	el := st.elections[n.epoch]
	if el == nil {
		return
	}
	delete(el.in, n.id)
	if len(el.in) == 0 {
		el.Ended = seconds(t)
		delete(st.elections, n.epoch)
		st.ended = append(st.ended, el)
		if len(st.ended) > keptElections {
			st.ended = st.ended[1:]
		}
	}
}

func (l *lagStats) note(d time.Duration) {
	l.n++
	l.sum += d
	l.last = d
	l.max = max(l.max, d)
}

func seconds(t int64) float64 { return float64(t) / 1e9 }

// Snapshot is what the page draws, as JSON.
type Snapshot struct {
	Run      string  `json:"run"`
	Protocol string  `json:"protocol"`
	Driver   string  `json:"driver"`
	Scenario string  `json:"scenario"`
	Now      float64 `json:"now"`
	End      float64 `json:"end"`
	// StartWall is the run's start, Unix ns (real runs).
	StartWall int64             `json:"start_wall,omitempty"`
	Nodes     []NodeView        `json:"nodes"`
	Leaders   []protocol.NodeID `json:"leaders"`
	Totals    Totals            `json:"totals"`
	Rates     Rates             `json:"rates"`
	Strip     []stripSample     `json:"strip"`
	Elections []election        `json:"elections"`
	Ended     []election        `json:"ended"`
	Log       []Event           `json:"log"`
	Verdict   Verdict           `json:"verdict"`
	Cuts      []Cut             `json:"cuts"`
	// Faults is true when the page may crash and recover nodes (run
	// --live); false for trace watch.
	Faults  bool    `json:"faults"`
	Done    bool    `json:"done"`
	Error   string  `json:"error,omitempty"`
	Lag     LagView `json:"lag"`
	Served  int64   `json:"served"` // Unix ns
	Applied uint64  `json:"applied"`
}

// NodeView is one node on the map (the studio's node fields, drawMap).
type NodeView struct {
	ID        protocol.NodeID   `json:"id"`
	X         float64           `json:"x"`
	Y         float64           `json:"y"`
	Alive     bool              `json:"alive"`
	Crashed   bool              `json:"crashed"` // down after it started: hatched (not started: white)
	Leader    protocol.NodeID   `json:"leader"`
	InCS      bool              `json:"in_cs"`
	Neighbors []protocol.NodeID `json:"neighbors"`
	// Cut are the nodes whose link with this one is cut by hand (either
	// way), drawn dashed red; each link is listed at its smaller ID.
	Cut      []protocol.NodeID `json:"cut,omitempty"`
	Electing bool              `json:"electing"`
	Epoch    string            `json:"epoch,omitempty"`
	Host     string            `json:"host,omitempty"`
	Describe string            `json:"describe"`
}

// Totals are the counts since the start.
type Totals struct {
	ByKind     map[string]uint64 `json:"by_kind"`
	Frames     uint64            `json:"frames"`
	Relays     uint64            `json:"relays"`
	Retx       uint64            `json:"retx"`
	Acks       uint64            `json:"acks"`
	Collisions uint64            `json:"collisions"`
	Drops      map[string]uint64 `json:"drops"`
}

// Rates are per second, over the last RateWindow complete seconds of the
// run's time.
type Rates struct {
	Window     int                `json:"window"`
	ByKind     map[string]float64 `json:"by_kind"`
	Frames     float64            `json:"frames"`
	Collisions float64            `json:"collisions"`
	Retx       float64            `json:"retx"`
}

// RateWindow is how many seconds the rates average.
const RateWindow = 5

// LagView is how late events reached the server: from their wall time to
// their reading, in milliseconds.
type LagView struct {
	N    uint64  `json:"n"`
	Mean float64 `json:"mean_ms"`
	Max  float64 `json:"max_ms"`
	Last float64 `json:"last_ms"`
}

// Snapshot is the state now; the log holds the events after since.
func (st *State) Snapshot(since uint64) *Snapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := &Snapshot{Run: st.run, Protocol: st.protocol, Driver: st.driver, Now: seconds(st.now), StartWall: st.startWall,
		Totals: Totals{ByKind: maps(st.totals), Frames: st.frames, Relays: st.relays, Retx: st.retx, Acks: st.acks,
			Collisions: st.drops["collision"], Drops: maps(st.drops)},
		Strip: slices.Clone(st.strip), Verdict: st.verdict, Leaders: st.leaders(), Applied: st.applied}
	if st.sc != nil {
		s.Scenario, s.End = st.sc.Name, st.sc.Duration.D().Seconds()
	}
	if st.lag.n > 0 {
		s.Lag = LagView{N: st.lag.n, Mean: ms(st.lag.sum / time.Duration(st.lag.n)), Max: ms(st.lag.max), Last: ms(st.lag.last)}
	}
	ids := make([]protocol.NodeID, 0, len(st.nodes))
	for id := range st.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	at := time.Duration(st.now)
	for _, id := range ids {
		n := st.nodes[id]
		v := NodeView{ID: id, Alive: n.alive || !n.seen, Crashed: n.seen && !n.alive, Leader: n.leader, InCS: n.inCS, Electing: n.electing, Host: n.host}
		if n.electing {
			v.Epoch = n.epoch
		}
		if st.mob != nil {
			p := st.mob.Position(st.index[id], at)
			v.X, v.Y = p.X, p.Y
		}
		for p := range n.nbrs {
			v.Neighbors = append(v.Neighbors, p)
		}
		slices.Sort(v.Neighbors)
		v.Describe = describe(n)
		s.Nodes = append(s.Nodes, v)
	}
	s.Rates = st.rates()
	s.Cuts = st.cuts()
	for _, c := range s.Cuts {
		if i, ok := slices.BinarySearchFunc(s.Nodes, c.A, func(v NodeView, id protocol.NodeID) int { return cmp.Compare(v.ID, id) }); ok {
			s.Nodes[i].Cut = append(s.Nodes[i].Cut, c.B)
		}
	}
	for _, el := range st.elections {
		c := *el
		c.In = sortedKeys(el.in)
		s.Elections = append(s.Elections, c)
	}
	sort.Slice(s.Elections, func(i, j int) bool { return s.Elections[i].Started < s.Elections[j].Started })
	for _, el := range st.ended {
		s.Ended = append(s.Ended, *el)
	}
	i := sort.Search(len(st.log), func(i int) bool { return st.log[i].Seq > since })
	s.Log = append([]Event{}, st.log[i:]...)
	// Lists, never null: the page iterates over them from the start.
	s.Strip = append([]stripSample{}, s.Strip...)
	s.Nodes = append([]NodeView{}, s.Nodes...)
	s.Leaders = append([]protocol.NodeID{}, s.Leaders...)
	s.Elections = append([]election{}, s.Elections...)
	s.Ended = append([]election{}, s.Ended...)
	s.Verdict.Lines = append([]string{}, s.Verdict.Lines...)
	return s
}

func describe(n *nodeState) string {
	switch {
	case !n.seen:
		return fmt.Sprintf("node %d: not started yet", n.id)
	case !n.alive:
		return fmt.Sprintf("node %d: crashed", n.id)
	}
	s := fmt.Sprintf("node %d: leader %d, %d neighbours", n.id, n.leader, len(n.nbrs))
	if n.electing {
		s += fmt.Sprintf(", in election %q", n.epoch)
	}
	if n.host != "" {
		s += ", on " + n.host
	}
	return s
}

// rates averages the last RateWindow complete seconds.
func (st *State) rates() Rates {
	r := Rates{Window: RateWindow, ByKind: map[string]float64{}}
	cur := st.now / int64(time.Second)
	for sec := cur - RateWindow; sec < cur; sec++ {
		if sec < 0 {
			continue
		}
		b := &st.buckets[sec%RateSeconds]
		if b.sec != sec || b.kinds == nil {
			continue
		}
		for k, v := range b.kinds {
			r.ByKind[k] += float64(v) / RateWindow
		}
		r.Frames += float64(b.frames) / RateWindow
		r.Collisions += float64(b.coll) / RateWindow
		r.Retx += float64(b.retx) / RateWindow
	}
	return r
}

func maps[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[protocol.NodeID]bool) []protocol.NodeID {
	out := make([]protocol.NodeID, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
