package adhoc

import (
	"fmt"
	"time"

	"manetlab/protocol"
)

// Index is a computation index <num, id>: it names one election. Indices
// compare by Num, then by ID, so concurrent elections have a total order
// and the higher one wins.
type Index struct {
	Num uint64
	ID  protocol.NodeID
}

// Less reports whether i orders before j.
func (i Index) Less(j Index) bool {
	if i.Num != j.Num {
		return i.Num < j.Num
	}
	return i.ID < j.ID
}

// IsZero reports whether i names no election.
func (i Index) IsZero() bool { return i == Index{} }

// String formats i as "num.id", the epoch recorded in trace notes.
func (i Index) String() string {
	if i.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d.%d", i.Num, i.ID)
}

// Election asks the receiver to join computation <Num, Src>. Departed is
// the leader whose loss started it (None when none), for the optimised
// variant's check.
type Election struct {
	Num      uint64
	Src      protocol.NodeID
	Departed protocol.NodeID
}

// Ack reports the best node (Best, Value) of the sender's subtree in
// computation <Num, Src>; Best is None when the sender adds no candidate.
type Ack struct {
	Num   uint64
	Src   protocol.NodeID
	Best  protocol.NodeID
	Value float64
}

// Leader announces the leader (Leader, Value) chosen by computation <Num,
// Src>. It is flooded hop by hop by the protocol itself; every node
// forwards it at most once per (leader, index). Departed is the leader that
// election replaced, so that nodes still holding it give it up. TTL is how
// much longer the leader's liveness is vouched for: a full lease when an
// election or a beacon chose it, what remains of the lease when a merge
// passes it on, so hearsay never outlives the leader's last beacon.
type Leader struct {
	Leader   protocol.NodeID
	Value    float64
	Num      uint64
	Src      protocol.NodeID
	Departed protocol.NodeID
	TTL      time.Duration
}

// Probe asks an awaited child whether it still takes part in <Num, Src>.
type Probe struct {
	Num uint64
	Src protocol.NodeID
}

// Reply answers a Probe: the sender is alive and still in <Num, Src>.
type Reply struct {
	Num uint64
	Src protocol.NodeID
}

// Child tells the sender of a broadcast Election that the receiver joined
// the computation with it as parent, so the parent awaits its Ack.
type Child struct {
	Num uint64
	Src protocol.NodeID
}

// Beacon is the leader's heartbeat, flooded through its component. Inc is
// the leader's incarnation and Seq counts its beacons, so that every node
// forwards each beacon once. Num and Src name the election that chose the
// leader; Value is the leader's current value. Age is how long before it
// was sent the leader sent it: zero from the leader and in the flood, the
// time its holder has kept it when a Beacon answers a Query, so that a
// repaired lease never outlasts the leader's own beacon.
type Beacon struct {
	Leader protocol.NodeID
	Value  float64
	Num    uint64
	Src    protocol.NodeID
	Inc    uint64
	Seq    uint64
	Age    time.Duration
}

// Query asks a neighbour for a beacon of Leader newer than (Inc, Seq): the
// sender missed the flooded ones. It is sent by acknowledged unicast, so
// it repairs what broadcast loss took; the answer is the Beacon itself.
type Query struct {
	Leader protocol.NodeID
	Inc    uint64
	Seq    uint64
}

// Exchange tells a neighbour this node's leader when the two may belong to
// different components (a new link, a beacon from another leader). TTL is
// the remaining lease, as in Leader.
type Exchange struct {
	Leader protocol.NodeID
	Value  float64
	Num    uint64
	Src    protocol.NodeID
	TTL    time.Duration
}

// Kind implements protocol.Message.
func (Election) Kind() string { return "election" }

// Kind implements protocol.Message.
func (Ack) Kind() string { return "ack" }

// Kind implements protocol.Message.
func (Leader) Kind() string { return "leader" }

// Kind implements protocol.Message.
func (Probe) Kind() string { return "probe" }

// Kind implements protocol.Message.
func (Reply) Kind() string { return "reply" }

// Kind implements protocol.Message.
func (Child) Kind() string { return "child" }

// Kind implements protocol.Message.
func (Beacon) Kind() string { return "beacon" }

// Kind implements protocol.Message.
func (Exchange) Kind() string { return "leader-exchange" }

// Kind implements protocol.Message.
func (Query) Kind() string { return "beacon-query" }

// messages lists every message type for the wire codec. Append only: a
// message's wire code is its position here plus one.
var messages = []protocol.Message{
	Election{},
	Ack{},
	Leader{},
	Probe{},
	Reply{},
	Child{},
	Beacon{},
	Exchange{},
	Query{},
}
