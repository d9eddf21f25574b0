// Package adhoc implements the capacity-aware tree election for mobile ad
// hoc networks of Vasudevan, Kurose and Towsley (ICNP 2004), as restated in
// ../shared/protocols/adhoc.md.
//
// An election is a diffusing computation named by an index <num, id>: the
// source sends Election to its neighbours, every node that joins makes the
// sender its parent, forwards the Election and acknowledges its parent
// with the best (value, id) of its subtree once all awaited Acks are in;
// the source then floods Leader. Awaited children are probed and dropped if
// they stop answering; a node whose parent vanishes, before or after it
// acknowledged, ends the computation itself (after: the Leader was to
// come through that parent; waiting out ack_timeout instead left a node
// that had moved away leaderless for 30 s, found by trace check). Leaders flood Beacons; a node that misses
// them for a lease starts an election. Neighbours that come up exchange
// leaders, and the lesser side adopts and floods the better leader.
//
// Choices the paper leaves open (ours):
//   - Every wait is bounded. A node awaiting Acks gives up after
//     election_timeout and reports what it has; a node that sent its Ack
//     and hears no Leader within ack_timeout ends the computation itself,
//     like an orphan. So one computation holds a node at most
//     election_timeout + ack_timeout (50 s by default); only a higher
//     computation, which restarts the clock, can hold it longer, and that
//     needs someone to start one. A vanished child is dropped within two
//     probe periods, at once on NeighborDown.
//   - A node hears a Beacon or Leader mid-election: it leaves for it if it
//     is its own computation's result, a leader better than its subtree's
//     best, or (once it has acknowledged) a later computation's result. A
//     node that leaves while it still owes its parent an Ack sends it
//     first, with the better of its subtree's best and that leader.
//   - Both ends of a new link send Exchange; a node that hears a Beacon or
//     a Leader of a lesser leader from a neighbour sends it an Exchange
//     too, which repairs merges whose exchange was lost or deferred.
//   - A node that ends a computation on its own (orphan, Leader lost)
//     announces the leader under a fresh index of its own, so that no index
//     ever names two different leaders.
//   - Leader information carries a lease (TTL) that only the leader's own
//     beacons renew, so merges never resurrect a crashed leader.
//   - Beacons are flooded by unacknowledged broadcast, so under loss a
//     follower can miss several in a row while the leader is alive. A
//     follower whose beacon is overdue (1.5 periods) asks its neighbours
//     by acknowledged unicast (Query) for a newer one, once a period until
//     the lease ends; a neighbour, or the leader itself, answers with the
//     Beacon and its age, and the lease is renewed only from the time the
//     leader sent it. A crashed leader's beacons stop for everyone, so the
//     queries find nothing and detection takes one lease as before.
//   - A suspicion is only one node's view. The leader never joins an
//     election that names it departed: it Acks itself and beacons at once.
//     A follower whose lease is fresh (it missed no beacon) refuses a
//     Leader flood's claim that its leader departed and keeps it; the
//     leader's beacons then bring the other side back.
//   - A source that leaves its own computation for a leader heard
//     elsewhere (its leader's beacon came after all) announces that leader
//     under the computation's index, so every node that joined leaves too
//     instead of waiting out ack_timeout. A node in an election takes a
//     leader at least as good as its subtree's best (not only a better one).
//   - Value changes (SetValue) are carried in later Acks, Leader messages
//     and Beacons. A node that learns that its own value beats its
//     leader's starts an election, so the best node always ends up leading.
//   - Commands: Elect starts an election with no departed leader unless
//     one is already running; SetValue changes the value.
//   - Elections that many nodes would start at the same moment (every node
//     at boot, every follower when a crashed leader's lease runs out) are
//     deferred: the node waits a random time below start_delay (1 s, about
//     one hello period, so it also knows its neighbours by then) and joins
//     any Election it hears meanwhile instead; a Leader, Beacon or
//     Exchange that gives it a live leader cancels the plan too. A node
//     with no leader joins any Election (the optimised variant's
//     departed-leader check applies only to a node that has a leader).
//     The index is fixed when the wait begins and ranks the earlier start
//     higher (num = now + start_delay - wait), so the first computation to
//     start outranks all those started later, in places its wave had not
//     reached yet, and absorbs them as it passes. Without this every node
//     started at boot with index <1, id>; the highest ID won, and a node
//     re-joined, re-broadcasting Election and Child, every higher
//     computation that reached it first: on a static grid 33 Elections
//     per node at 100 nodes, 267 at 1000, and 10000 nodes never finished.
//     With it: 1.0, 2.8 and 4.6 per node at 100, 1000 and 10000 nodes,
//     and the leader is known as early as before (0.7 s; the first start
//     comes after a fraction of a millisecond). start_delay 0.5 s and 2 s
//     gave 3.0 and 2.3 per node at 1000 nodes, 5.0 and 4.2 at 10000;
//     1 s keeps a lone or crash-orphaned network's wait short. Elect
//     commands, and a node that finds it beats its leader, start at once.
//   - Index nums count microseconds of the run (the floor of freshIndex),
//     so that thousands of planned starts within one start_delay rarely
//     tie; with milliseconds, the ten or so starts of the first
//     millisecond at 10000 nodes tied and the highest ID, not the first,
//     won (6.4 Elections per node instead of 4.6).
//
// It is a protocol family: it imports only manetlab/protocol and the
// standard library, never a driver, a socket or the clock.
package adhoc

import (
	"fmt"
	"time"

	"manetlab/protocol"
)

// Name is the registered name of the protocol.
const Name = "adhoc/vasudevan"

// The variants selected by the "variant" parameter.
const (
	Unicast   = "unicast"   // Election sent by Send to each neighbour, all awaited
	Broadcast = "broadcast" // one broadcast Election; children answer Child
	Optimised = "optimised" // broadcast plus the departed-leader check (default)
)

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "capacity-aware tree election for MANETs (Vasudevan, Kurose, Towsley): diffusing computations, beacons, merges",
		New:      New,
		Messages: messages,
		Settle:   Settle,
	})
}

// Settle is how long a component needs after its last change of
// membership or links for its leadership to settle, from the timers: a
// side that lost its leader presumes it lost within one lease of its last
// beacon (lease = beacon_loss·beacon_period), plus one beacon period for
// a beacon already on its way; the nodes then wait below start_delay
// before they start an election; an election in a component that no
// longer changes drops a child that left before the window within two
// probe periods. Merges take less (an Exchange on the new link).
// Parameters are read as New reads them; a bad one gives the defaults
// (New reports it), and other keys are ignored.
func Settle(params protocol.Params) time.Duration {
	r := params.Reader()
	c := config{
		beaconPeriod: r.Duration("beacon_period", 2*time.Second),
		beaconLoss:   r.Int("beacon_loss", 3),
		probePeriod:  r.Duration("probe_period", time.Second),
		startDelay:   r.Duration("start_delay", time.Second),
	}
	if c.beaconPeriod <= 0 || c.beaconLoss < 1 || c.probePeriod <= 0 || c.startDelay < 0 {
		c = config{beaconPeriod: 2 * time.Second, beaconLoss: 3, probePeriod: time.Second, startDelay: time.Second}
	}
	return c.lease() + c.beaconPeriod + c.startDelay + 2*c.probePeriod
}

// config holds the parameters; see New for their meaning and defaults.
type config struct {
	variant         string
	beaconPeriod    time.Duration
	beaconLoss      int
	probePeriod     time.Duration
	childTimeout    time.Duration
	electionTimeout time.Duration
	ackTimeout      time.Duration
	startDelay      time.Duration
}

// lease is how long a leader is believed without hearing its beacons.
func (c config) lease() time.Duration { return time.Duration(c.beaconLoss) * c.beaconPeriod }

// New builds one node's Process. Parameters (durations as "2s" or seconds):
//
//	variant          unicast | broadcast | optimised (default optimised)
//	beacon_period    how often the leader floods a Beacon (default 2s)
//	beacon_loss      missed beacons before the leader is presumed lost (default 3)
//	probe_period     how often awaited children are probed; one that has not
//	                 replied by the next probe is dropped (default 1s)
//	child_timeout    broadcast variants: how long a parent collects Child
//	                 answers after its Election (default 500ms)
//	election_timeout longest a node awaits Acks in one computation (default 20s)
//	ack_timeout      longest a node waits for Leader after its Ack (default 30s)
//	start_delay      a node that boots without a leader, or whose leader's
//	                 lease runs out, waits a random time below this before
//	                 starting an election, and joins any election it hears
//	                 meanwhile instead (default 1s; 0 starts at once)
func New(cfg protocol.Config) (protocol.Process, error) {
	return NewRule(cfg, Joins)
}

// Joins is the paper's rule: a node joins a computation only if its index
// is above every one it has joined or adopted (last), whatever the
// computation it is in or was in last (cur).
func Joins(last, cur, idx Index) bool { return last.Less(idx) }

// NewRule is New with the rule that decides whether an Election's
// computation idx is joined (New: Joins); a computation it does not join
// is ignored as stale. A seam for the test-only broken variants of
// package explore/brokentest, which show that the checker and the search
// catch a wrong rule.
func NewRule(cfg protocol.Config, joins func(last, cur, idx Index) bool) (protocol.Process, error) {
	r := cfg.Params.Reader()
	c := config{
		variant:         r.String("variant", Optimised, Unicast, Broadcast, Optimised),
		beaconPeriod:    r.Duration("beacon_period", 2*time.Second),
		beaconLoss:      r.Int("beacon_loss", 3),
		probePeriod:     r.Duration("probe_period", time.Second),
		childTimeout:    r.Duration("child_timeout", 500*time.Millisecond),
		electionTimeout: r.Duration("election_timeout", 20*time.Second),
		ackTimeout:      r.Duration("ack_timeout", 30*time.Second),
		startDelay:      r.Duration("start_delay", time.Second),
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		name string
		d    time.Duration
	}{
		{"beacon_period", c.beaconPeriod},
		{"probe_period", c.probePeriod},
		{"child_timeout", c.childTimeout},
		{"election_timeout", c.electionTimeout},
		{"ack_timeout", c.ackTimeout},
	} {
		if p.d <= 0 {
			return nil, fmt.Errorf("protocol.params.%s: %v must be positive", p.name, p.d)
		}
	}
	if c.beaconLoss < 1 {
		return nil, fmt.Errorf("protocol.params.beacon_loss: %d must be at least 1", c.beaconLoss)
	}
	if cfg.Env == nil {
		return nil, fmt.Errorf("adhoc: node %d has no Env", cfg.ID)
	}
	n := newNode(cfg, c)
	n.joins, n.better = joins, protocol.Better
	if w := protocol.HopWaitsWarning(Name, cfg.HopDelay, hopWaits,
		"live children's answers and probe replies will come after the wait, and live children are dropped",
		protocol.HopWait{Field: "probe_period", Wait: c.probePeriod}, protocol.HopWait{Field: "child_timeout", Wait: c.childTimeout}); w != nil {
		return n, w
	}
	return n, nil
}

// NewRanking is New with the rule by which a node ranks its subtree's
// best against a child's Ack (New: protocol.Better): a seam for the
// test-only broken variants of package explore/brokentest.
func NewRanking(cfg protocol.Config, better func(a protocol.NodeID, av float64, b protocol.NodeID, bv float64) bool) (protocol.Process, error) {
	proc, err := NewRule(cfg, Joins)
	if n, ok := proc.(*Node); ok {
		n.better = better
	}
	return proc, err
}

// hopWaits is how many hop times (protocol.Config.HopDelay) a wait for an
// answer should reach at least: a round trip over one hop takes two, and
// the DCF medium's backoff and retries stretch them.
const hopWaits = 4
