package firewire

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"manetlab/protocol"
)

// Name is the registered name of tree identify.
const Name = "firewire/tree-identify"

// Parameter defaults.
const (
	DefaultSettle = 3 * time.Second        // three hello periods of the default radio.hello
	DefaultStall  = 10 * time.Second       // after settle: far beyond any tree's identify
	DefaultShort  = 100 * time.Millisecond // root contention's short wait
	DefaultLong   = 300 * time.Millisecond // root contention's long wait
)

// ContentionRounds is the expected number of root contention rounds when
// two nodes contend: each round ends when the fair coins differ,
// probability 1/2, so the rounds are geometric with mean 2 (variance 2).
const ContentionRounds = 2

func init() {
	protocol.Register(protocol.Spec{
		Name:     Name,
		Summary:  "IEEE 1394 tree identify on an acyclic radio topology: parent requests from the leaves in, root contention by a fair coin",
		New:      New,
		Messages: []protocol.Message{Request{}, Ack{}, Contention{}, Root{}}, // wire codes 1..4: append only
		Goal:     protocol.GoalTree,
		Topology: CheckAcyclic,
		Budget:   Budget,
		Complexity: &protocol.Complexity{
			// complexity.messages counts the contention requests alone:
			// requests and acks are n-1 each (one more request when two
			// nodes contend) whatever the coins say, and the root
			// announcement is n-1 messages.
			Announce: []string{KindRoot},
			Control:  []string{KindRequest, KindAck},
			Bound:    contentionBound,
			Assumes:  "no failures",
		},
	})
}

// contentionBound is the expected count of contention requests when two
// nodes contend: after every round but the last both send one, after the
// last only the node that drew the short wait, so R rounds cost 2R-1 and
// E[2R-1] = 2·2-1 = 3. A tree with a single centre (an even diameter, all
// nodes starting together) has no contention and counts 0.
func contentionBound([]protocol.NodeID, protocol.Params, uint64) (protocol.Bound, error) {
	return protocol.Bound{
		Name:    "root contention: expected 2 rounds with a fair coin, 2R-1 = 3 contention requests",
		Formula: "2R-1, E[R]=2",
		Value:   2*ContentionRounds - 1,
	}, nil
}

// state is where a node stands in tree identify.
type state uint8

const (
	settling    state = iota // learning the neighbours
	identifying              // waiting for requests from all neighbours but one
	requested                // asked parent to be its parent; waiting for its ack
	contending               // root contention with parent: withdrew, waiting short or long
	child                    // parent acknowledged
	root                     // requests from every neighbour
)

var stateNames = [...]string{"settling", "identifying", "requested", "contending", "child", "root"}

func (s state) String() string { return stateNames[s] }

// Tree is one node of tree identify.
type Tree struct {
	env   protocol.Env
	id    protocol.NodeID
	value float64

	settle, gather, stall, short, long time.Duration

	state    state
	deciding bool                     // a decide timer is pending
	nbrs     map[protocol.NodeID]bool // the neighbours known (discovery, and any node that sent a request)
	asked    map[protocol.NodeID]bool // the neighbours that sent a request: children once acknowledged
	// parent is the neighbour asked to be the parent (requested,
	// contending) or that accepted (child).
	parent  protocol.NodeID
	round   uint32 // root contention rounds so far
	pending bool   // contending: the peer's request arrived during the wait
	wait    protocol.TimerID

	root      protocol.NodeID // the root, once announced
	rootValue float64
	changed   bool // the topology changed after settle (noted once)
}

// New builds a tree identify process. Parameters (protocol.params):
// settle (3s), gather (0), stall (10s), short (100ms), long (300ms); see
// the package comment.
func New(cfg protocol.Config) (protocol.Process, error) {
	r := cfg.Params.Reader()
	t := &Tree{env: cfg.Env, id: cfg.ID, value: cfg.Value,
		nbrs: map[protocol.NodeID]bool{}, asked: map[protocol.NodeID]bool{}}
	t.settle = r.Duration("settle", DefaultSettle)
	t.gather = r.Duration("gather", 0)
	t.stall = r.Duration("stall", DefaultStall)
	t.short = r.Duration("short", DefaultShort)
	t.long = r.Duration("long", DefaultLong)
	if t.settle <= 0 {
		r.Reject("settle", t.settle, "a positive duration: the neighbours must be known before tree identify starts")
	}
	if t.stall <= 0 {
		r.Reject("stall", t.stall, "a positive duration")
	}
	if t.short <= 0 {
		r.Reject("short", t.short, "a positive duration")
	}
	if t.long <= t.short {
		r.Reject("long", t.long, fmt.Sprintf("longer than short (%v): the coin must separate the two waits", t.short))
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	// The long wait must outlast the short one by the short waiter's
	// request: two one-hop delays and their retries (the package comment).
	if w := protocol.HopWaitsWarning(Name, cfg.HopDelay, 4,
		"the short waiter's request can reach the long waiter after its wait, and differing coins still cross (rounds of contention, not correctness)",
		protocol.HopWait{Field: "long - short", Wait: t.long - t.short}); w != nil {
		return t, w
	}
	return t, nil
}

// Step implements protocol.Process.
func (t *Tree) Step(ev protocol.Event) {
	switch e := ev.(type) {
	case protocol.Start:
		t.env.SetTimer(t.settle, "settle", 0)
	case protocol.NeighborUp:
		if t.state == settling {
			t.nbrs[e.ID] = true
		} else if !t.nbrs[e.ID] {
			t.topologyChanged(fmt.Sprintf("neighbour %d appeared", e.ID))
		}
	case protocol.NeighborDown:
		if t.state == settling {
			if !t.asked[e.ID] {
				delete(t.nbrs, e.ID)
			}
		} else if t.nbrs[e.ID] {
			t.topologyChanged(fmt.Sprintf("neighbour %d disappeared", e.ID))
		}
	case protocol.Timeout:
		switch e.Name {
		case "settle":
			t.startIdentify()
		case "decide":
			t.decide()
		case "wait":
			if e.ID == t.wait && t.state == contending {
				t.endWait()
			}
		case "stall":
			t.checkStall()
		}
	case protocol.Receive:
		switch m := e.Msg.(type) {
		case Request:
			t.request(e.From)
		case Contention:
			t.request(e.From)
		case Ack:
			t.ack(e.From)
		case Root:
			t.announce(e.From, m)
		}
	case protocol.Command:
		if e.Name == protocol.SetValue {
			t.value = e.Value
		}
	}
}

// startIdentify ends the settle period: the neighbours known now are the
// topology.
func (t *Tree) startIdentify() {
	if t.state != settling {
		return
	}
	t.state = identifying
	t.env.Note(protocol.Note{Kind: protocol.NoteElectionStart,
		Text: fmt.Sprintf("tree identify: %d neighbours %s", len(t.nbrs), idList(sorted(t.nbrs)))})
	t.env.SetTimer(t.stall, "stall", 0)
	t.evaluate()
}

// evaluate arranges the decision once every neighbour but one has asked:
// at the end of the gather delay (by default the end of the current
// instant), so that requests arriving together count together, as IEEE
// 1394's line states do.
func (t *Tree) evaluate() {
	if t.state != identifying || t.deciding || len(t.missing()) > 1 {
		return
	}
	t.deciding = true
	t.env.SetTimer(t.gather, "decide", 0)
}

// decide sends the parent request to the one neighbour that has not
// asked, or becomes root when all have.
func (t *Tree) decide() {
	t.deciding = false
	if t.state != identifying {
		return
	}
	switch missing := t.missing(); len(missing) {
	case 0:
		t.becomeRoot()
	case 1:
		t.parent, t.state = missing[0], requested
		t.env.Send(t.parent, Request{})
	}
}

// missing lists the neighbours that have not asked, ascending.
func (t *Tree) missing() []protocol.NodeID {
	var out []protocol.NodeID
	for _, id := range sorted(t.nbrs) {
		if !t.asked[id] {
			out = append(out, id)
		}
	}
	return out
}

// request handles a parent request (first or after contention) from a
// neighbour.
func (t *Tree) request(from protocol.NodeID) {
	if !t.nbrs[from] {
		// Undiscovered, but a one-hop request proves the link.
		t.nbrs[from] = true
		if t.state != settling {
			t.topologyChanged(fmt.Sprintf("a request from node %d, not a neighbour at settle", from))
		}
	}
	if from == t.parent {
		switch t.state {
		case requested:
			t.contend()
		case contending:
			t.pending = true
		default: // child: the parent asking its child cannot happen in a tree
			t.env.Logf("request from parent %d ignored in state %s", from, t.state)
		}
		return
	}
	if t.asked[from] {
		return // a duplicate: acknowledged already
	}
	// A neighbour that asks before this node asked it is its child for
	// good: this node only ever asks the one neighbour that has not.
	t.asked[from] = true
	t.env.Send(from, Ack{})
	if t.root != protocol.None {
		t.env.Send(from, Root{Root: t.root, Value: t.rootValue})
	}
	t.evaluate()
}

// contend starts a root contention round: this node and its parent
// candidate asked each other. Both withdraw and wait short or long, by a
// fair coin.
func (t *Tree) contend() {
	t.round++
	t.state, t.pending = contending, false
	d, which := t.short, "short"
	if t.env.Rand().IntN(2) == 1 {
		d, which = t.long, "long"
	}
	t.env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: fmt.Sprintf("contention round %d", t.round)})
	t.env.Logf("contention round %d with node %d: waiting %s (%v)", t.round, t.parent, which, d)
	t.wait = t.env.SetTimer(d, "wait", int64(t.round))
}

// endWait ends a contention wait: a request from the peer that came
// meanwhile is accepted (this node is root, the peer its child); else the
// request goes out again.
func (t *Tree) endWait() {
	if t.pending {
		peer := t.parent
		t.asked[peer], t.parent, t.pending = true, protocol.None, false
		t.env.Send(peer, Ack{})
		t.becomeRoot()
		return
	}
	t.state = requested
	t.env.Send(t.parent, Contention{Round: t.round})
}

// ack handles the parent's acknowledgement.
func (t *Tree) ack(from protocol.NodeID) {
	if t.state != requested || from != t.parent {
		t.env.Logf("ack from %d ignored in state %s (parent %d)", from, t.state, t.parent)
		return
	}
	t.state = child
	t.env.Note(protocol.Note{Kind: protocol.NoteParent, Leader: from})
}

// becomeRoot: every neighbour asked.
func (t *Tree) becomeRoot() {
	t.state, t.parent = root, protocol.None
	t.env.Note(protocol.Note{Kind: protocol.NoteParent, Leader: protocol.None})
	t.learnRoot(t.id, t.value)
}

// announce handles the root announcement from the parent.
func (t *Tree) announce(from protocol.NodeID, m Root) {
	if t.state != child || from != t.parent || t.root != protocol.None {
		t.env.Logf("root announcement from %d ignored in state %s (parent %d)", from, t.state, t.parent)
		return
	}
	t.learnRoot(m.Root, m.Value)
}

// learnRoot notes the root and passes it on to the children.
func (t *Tree) learnRoot(id protocol.NodeID, value float64) {
	t.root, t.rootValue = id, value
	t.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: id, Value: value, Epoch: Epoch(id)})
	t.env.Note(protocol.Note{Kind: protocol.NoteElectionEnd})
	for _, c := range sorted(t.asked) {
		t.env.Send(c, Root{Root: id, Value: value})
	}
}

// Epoch names the tree identify whose root is id in leader notes. The
// root's ID, not a counter: two components are two trees, and each has
// its own root.
func Epoch(id protocol.NodeID) string { return fmt.Sprintf("tree-%d", id) }

// checkStall runs stall after settle: a node that has not learnt the root
// says why. One with requests missing from two or more neighbours sits on a
// cycle (in a tree that is finished long before).
func (t *Tree) checkStall() {
	if t.root != protocol.None {
		return
	}
	var text string
	switch t.state {
	case identifying:
		missing := t.missing()
		text = fmt.Sprintf("cyclic topology: no tree identify possible (requests from %d of %d neighbours after %v; none from %s)",
			len(t.nbrs)-len(missing), len(t.nbrs), t.stall, idList(missing))
	case requested, contending:
		text = fmt.Sprintf("tree identify stalled: no acknowledgement from node %d after %v (a cyclic topology?)", t.parent, t.stall)
	case child:
		text = fmt.Sprintf("tree identify stalled: parent %d acknowledged, no root announced after %v (a cyclic topology?)", t.parent, t.stall)
	default:
		return
	}
	t.env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: text})
}

// topologyChanged notes, once, that the neighbours changed after settle:
// IEEE 1394 would reset the bus and identify again; this implementation
// keeps the tree it has (the run lies outside its assumptions).
func (t *Tree) topologyChanged(what string) {
	if t.changed {
		return
	}
	t.changed = true
	t.env.Note(protocol.Note{Kind: protocol.NoteInfo,
		Text: "topology changed after settle (" + what + "): tree identify assumes a static topology"})
}

// sorted lists a set's members in ascending order: map order is random,
// and what a node sends must not depend on it.
func sorted(set map[protocol.NodeID]bool) []protocol.NodeID {
	out := make([]protocol.NodeID, 0, len(set))
	for id, in := range set {
		if in {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func idList(ids []protocol.NodeID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return "{" + strings.Join(s, ",") + "}"
}
