package invitation

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/protonet"
)

// The tests in this package run on protonet's in-memory network in virtual
// time as a radio network (protonet.Radio): links that the test cuts and
// heals, multi-hop Deliver along live links, one-hop Send to neighbours,
// neighbour events, seeded loss, crashes that keep stable storage, and a
// check of the invariants after every step.
type network struct {
	*protonet.Network
	groups map[Group]bool // every group named (election-start of its coordinator)
	noted  int            // notes checked so far
}

type action = protonet.Action

// newNetwork builds the members (every pair in range unless an option
// says otherwise) and boots them at time 0; opts adjust the network first.
func newNetwork(t testing.TB, members []protocol.NodeID, params protocol.Params, seed uint64, opts ...func(*protonet.Network)) *network {
	t.Helper()
	n := &network{groups: map[Group]bool{}}
	s, err := parse(params)
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]func(*protonet.Network){protonet.Radio(nil), func(pn *protonet.Network) {
		n.Network = pn // the steps of the boot check invariants
		pn.MaxSteps = 3_000_000
		pn.SendOnly = s.reach == ReachOneHop
		pn.AfterStep = n.invariants
	}}, opts...)
	protonet.New(t, Name, members, params, seed, opts...)
	return n
}

// run pumps until the virtual time passes until, and sets it to until.
func (n *network) run(until time.Duration, actions ...action) {
	n.T.Helper()
	n.Run(until, actions...)
	n.Now = max(n.Now, until)
}

func (n *network) proc(id protocol.NodeID) *Node { return n.Nodes[id].Proc.(*Node) }

// invariants checks what must hold after every step: a node in
// Reorganization or Normal is in a group named by its coordinator
// (Assertion 3: nodes in one group share the coordinator), a coordinator
// of a group is its own coordinator, the counter in stable storage is the
// one the node last used, and no group is named twice.
func (n *network) invariants(sn *protonet.Node) {
	for _, r := range n.Notes[n.noted:] {
		if r.Kind != protocol.NoteElectionStart {
			continue
		}
		var g Group
		if _, err := fmt.Sscanf(r.Epoch, "%d.%d", &g.Coord, &g.Counter); err != nil {
			n.T.Fatalf("node %d: election-start with epoch %q: %v", r.Node, r.Epoch, err)
		}
		if g.Coord == r.Node {
			if n.groups[g] {
				n.T.Fatalf("%v: node %d names group %s a second time", r.At, r.Node, g)
			}
			n.groups[g] = true
		}
	}
	n.noted = len(n.Notes)
	p := sn.Proc.(*Node)
	if p.status == Reorganization || p.status == Normal {
		if p.coord == protocol.None || p.coord != p.group.Coord {
			n.T.Fatalf("%v: node %d in %v has coordinator %d in group %s", n.Now, sn.ID, p.status, p.coord, p.group)
		}
		if p.coord == sn.ID && p.group.Counter > p.counter {
			n.T.Fatalf("%v: node %d coordinates group %s beyond its counter %d", n.Now, sn.ID, p.group, p.counter)
		}
	}
	if b, ok := sn.Store.Get(StoreKey); ok && string(b) != strconv.FormatUint(p.counter, 10) {
		n.T.Fatalf("%v: node %d has counter %d, its storage %s", n.Now, sn.ID, p.counter, b)
	}
}

// checkGroups fails unless every component is one group in Normal led by
// its highest live ID, and returns the groups by component.
func (n *network) checkGroups() []Group {
	n.T.Helper()
	var gs []Group
	for _, c := range n.Components() {
		want := c[0]
		for _, id := range c {
			want = max(want, id)
		}
		var g Group
		for _, id := range c {
			p := n.proc(id)
			if p.status != Normal || p.coord != want || g != (Group{}) && p.group != g {
				n.T.Fatalf("%v: component %v: node %d is %v in group %s under %d; want Normal under %d (in one group)\n%s",
					n.Now, c, id, p.status, p.group, p.coord, want, n.describe())
			}
			g = p.group
		}
		// The leader notes agree with the state.
		for _, id := range c {
			l, e := n.follows(id)
			if l != want || e != g.String() {
				n.T.Fatalf("node %d last noted leader %d in %q; its state says %d in %s", id, l, e, want, g)
			}
		}
		gs = append(gs, g)
	}
	return gs
}

// follows is a live node's current incarnation's last leader note.
func (n *network) follows(id protocol.NodeID) (protocol.NodeID, string) {
	if l, e, ok := n.Follows(id); ok {
		return l, e
	}
	return protocol.None, ""
}

func (n *network) describe() string {
	s := ""
	for _, id := range n.Members {
		if !n.Nodes[id].Alive {
			s += fmt.Sprintf("  %d: down\n", id)
			continue
		}
		p := n.proc(id)
		s += fmt.Sprintf("  %d: %v coord %d group %s up %v counter %d\n", id, p.status, p.coord, p.group, p.up, p.counter)
	}
	return s
}

func ids(k int) []protocol.NodeID {
	out := make([]protocol.NodeID, k)
	for i := range out {
		out[i] = protocol.NodeID(i + 1)
	}
	return out
}

// lossy drops a fraction of the messages and randomises latencies, with
// its own seed.
func lossy(p float64, seed uint64) func(*protonet.Network) {
	return func(n *protonet.Network) {
		protonet.Lossy(p, seed)(n)
		n.Jitter = true
	}
}

// line puts the members on a line: only consecutive IDs are in range.
var line = protonet.Radio(func(a, b protocol.NodeID) bool { return a+1 == b || b+1 == a })

// failingStore is stable storage whose writes fail while broken is set.
type failingStore struct {
	protocol.MemStore
	broken bool
}

func (s *failingStore) Put(key string, value []byte) error {
	if s.broken {
		return errors.New("disk full")
	}
	return s.MemStore.Put(key, value)
}
