package adhoc

import (
	"sort"
	"time"

	"manetlab/protocol"
)

// phase is where a node stands in the computation it takes part in.
type phase int

const (
	idle     phase = iota // not in an election: has a leader
	awaiting              // in an election, collecting Childs and Acks
	acked                 // sent its Ack to its parent, waiting for Leader
)

// Timer names. Each kind has at most one live timer; a Timeout whose ID is
// not the live one is stale and ignored.
const (
	tBeacon   = "beacon"   // leader: next beacon
	tLease    = "lease"    // follower: check whether the leader's lease ran out
	tProbe    = "probe"    // awaiting: probe awaited children
	tChild    = "child"    // awaiting (broadcast variants): stop collecting Childs
	tElection = "election" // awaiting: give up waiting for Acks
	tAck      = "ack"      // acked: give up waiting for Leader
	tQuery    = "query"    // follower: ask neighbours for a missed beacon
	tStart    = "start"    // idle: start the deferred election
)

// Node is one node's instance of the election.
type Node struct {
	env   protocol.Env
	id    protocol.NodeID
	value float64
	cfg   config

	nbrs map[protocol.NodeID]bool

	// The current leader (None while in an election), its value as last
	// heard, the computation that chose it and, for a follower, when its
	// lease runs out.
	leader      protocol.NodeID
	leaderValue float64
	epoch       Index
	leaseEnd    time.Duration
	// heard is the newest beacon (incarnation, seq) seen of each leader,
	// so that every beacon is forwarded at most once; seen is the highest
	// index each leader has been announced under, so that a Leader flood
	// re-heard later cannot flip a node back. Both hold one entry per
	// node ever heard of, so they stay bounded by the network's size.
	heard map[protocol.NodeID][2]uint64
	seen  map[protocol.NodeID]Index
	// This node's incarnation and beacon counter, for its own beacons.
	inc, seq uint64
	// bcn is the newest beacon heard of the current leader and bcnAt
	// when the leader sent it (or when the leader was adopted, if later),
	// to answer neighbours' queries and to know when one is overdue.
	bcn   Beacon
	bcnAt time.Duration

	phase    phase
	planned  uint64 // num of the deferred election, if one is planned (tStart)
	idx      Index  // computation this node takes part in
	last     Index  // highest computation joined or adopted, to ignore stale Elections
	maxNum   uint64
	parent   protocol.NodeID
	departed protocol.NodeID
	waiting  map[protocol.NodeID]bool // children whose Ack is awaited
	probed   map[protocol.NodeID]bool // probed children that have not replied yet
	done     map[protocol.NodeID]bool // neighbours that acked already
	collect  bool                     // still collecting Child answers
	best     protocol.NodeID
	bestVal  float64

	// lost are leaders presumed lost (an election named them departed),
	// with the time until which hearsay about them is refused; only their
	// own beacons prove them alive again. This keeps a merge or a stale
	// flood from resurrecting a crashed leader.
	lost map[protocol.NodeID]time.Duration

	// pending are neighbours owed a leader exchange once the election ends.
	pending map[protocol.NodeID]bool

	timers map[string]protocol.TimerID

	joins  func(last, cur, idx Index) bool                                         // Joins, or a broken variant's rule (NewRule)
	better func(a protocol.NodeID, av float64, b protocol.NodeID, bv float64) bool // protocol.Better, or a broken variant's (NewRanking)
}

func newNode(cfg protocol.Config, c config) *Node {
	return &Node{
		env:     cfg.Env,
		id:      cfg.ID,
		value:   cfg.Value,
		cfg:     c,
		nbrs:    map[protocol.NodeID]bool{},
		pending: map[protocol.NodeID]bool{},
		lost:    map[protocol.NodeID]time.Duration{},
		heard:   map[protocol.NodeID][2]uint64{},
		seen:    map[protocol.NodeID]Index{},
		timers:  map[string]protocol.TimerID{},
		joins:   Joins,
	}
}

// Step implements protocol.Process.
func (n *Node) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Start:
		// A recovered node must not have its beacons taken for
		// duplicates of its previous incarnation's: the run's time plus
		// random low bits make a new incarnation number (any change of
		// incarnation is accepted, see newer).
		n.inc = uint64(n.env.Now())<<8 | n.env.Rand().Uint64N(256) | 1
		n.deferElection()
	case protocol.Receive:
		n.receive(e.From, e.Msg)
	case protocol.Timeout:
		if n.timers[e.Name] != e.ID {
			return
		}
		delete(n.timers, e.Name)
		n.timeout(e.Name)
	case protocol.NeighborUp:
		n.neighborUp(e.ID)
	case protocol.NeighborDown:
		n.neighborDown(e.ID)
	case protocol.Command:
		n.command(e)
	}
	n.checkClaim()
}

func (n *Node) receive(from protocol.NodeID, m protocol.Message) {
	switch m := m.(type) {
	case Election:
		n.onElection(from, m)
	case Ack:
		n.onAck(from, m)
	case Child:
		n.onChild(from, m)
	case Probe:
		n.onProbe(from, m)
	case Reply:
		n.onReply(from, m)
	case Leader:
		n.onLeader(from, m)
	case Beacon:
		n.onBeacon(from, m)
	case Exchange:
		n.onExchange(from, m)
	case Query:
		n.onQuery(from, m)
	}
}

func (n *Node) timeout(name string) {
	switch name {
	case tBeacon:
		n.beacon()
	case tLease:
		n.leaseCheck()
	case tProbe:
		n.probe()
	case tChild:
		n.collect = false
		n.maybeComplete()
	case tElection:
		n.giveUp()
	case tAck:
		n.endAlone()
	case tQuery:
		n.query()
	case tStart:
		n.deferredStart()
	}
}

func (n *Node) command(c protocol.Command) {
	switch c.Name {
	case protocol.Elect:
		if n.phase == idle {
			n.startElection(protocol.None)
		}
	case protocol.SetValue:
		n.value = c.Value
		switch {
		case n.leader == n.id:
			n.leaderValue = c.Value
		case n.phase == awaiting && (n.best == n.id || protocol.Better(n.id, n.value, n.best, n.bestVal)):
			n.best, n.bestVal = n.id, n.value
		}
	}
}

// checkClaim starts an election when this node knows it beats its own
// leader (its value rose, the leader's fell, or an Ack of it was lost), so
// that the best node always ends up leading. Every Step ends here.
func (n *Node) checkClaim() {
	if n.phase == idle && n.leader != protocol.None && n.leader != n.id && protocol.Better(n.id, n.value, n.leader, n.leaderValue) {
		n.startElection(protocol.None)
	}
}

func (n *Node) neighborUp(id protocol.NodeID) {
	n.nbrs[id] = true
	if n.phase != idle {
		n.pending[id] = true
		return
	}
	n.sendExchange(id)
}

func (n *Node) neighborDown(id protocol.NodeID) {
	delete(n.nbrs, id)
	delete(n.pending, id)
	if n.phase == acked && id == n.parent {
		// The Leader was to come through the parent: without it the
		// source may be out of reach, and waiting out ack_timeout would
		// leave this side leaderless for that long.
		n.endAlone()
		return
	}
	if n.phase != awaiting {
		return
	}
	if n.parent != protocol.None && id == n.parent {
		n.endAlone()
		return
	}
	if n.waiting[id] {
		n.drop(id)
		n.maybeComplete()
	}
}

// presumeLost refuses hearsay about leader l for one lease.
func (n *Node) presumeLost(l protocol.NodeID) {
	if l != protocol.None && l != n.id {
		n.lost[l] = n.env.Now() + n.cfg.lease()
	}
}

// isLost reports whether l is presumed lost, forgetting expired entries.
func (n *Node) isLost(l protocol.NodeID) bool {
	until, ok := n.lost[l]
	if ok && n.env.Now() >= until {
		delete(n.lost, l)
		return false
	}
	return ok
}

// setTimer replaces the live timer of kind name.
func (n *Node) setTimer(name string, after time.Duration) {
	n.stopTimer(name)
	n.timers[name] = n.env.SetTimer(after, name, 0)
}

func (n *Node) stopTimer(name string) {
	if id, ok := n.timers[name]; ok {
		n.env.CancelTimer(id)
		delete(n.timers, name)
	}
}

func (n *Node) note(kind protocol.NoteKind, leader protocol.NodeID, value float64, epoch Index, text string) {
	n.env.Note(protocol.Note{Kind: kind, Leader: leader, Value: value, Epoch: epoch.String(), Text: text})
}

// sorted returns the members of set in ascending order, so that map
// iteration never decides the order of messages.
func sorted(set map[protocol.NodeID]bool) []protocol.NodeID {
	ids := make([]protocol.NodeID, 0, len(set))
	for id, ok := range set {
		if ok {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
