package invitation

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// Name is the registered name of the algorithm.
const Name = "invitation/garcia-molina"

func init() {
	protocol.Register(protocol.Spec{
		Name: Name,
		Summary: "Garcia-Molina's invitation election: groups (coordinator.counter) merge when their coordinators find each other, " +
			"members leave a silent coordinator; one group per component, led by its highest ID",
		New:      New,
		Messages: reliable.Messages[Msg](),
		Goal:     protocol.GoalHighestID,
		Budget:   Budget,
		Complexity: &protocol.Complexity{
			Announce: []string{KindReady},
			Control:  []string{KindAreYouCoordinator, KindCoordinatorReply, KindAreYouThere, KindThereReply},
			Bound:    Bound,
		},
		Outside: Outside,
	})
}

// Status is a node's state, S(i).s in the seed.
type Status uint8

// The states of the seed.
const (
	// Down: not started (a crashed node has no process at all).
	Down Status = iota
	// Election: forming a group, as its coordinator (Merge, Recovery) or
	// as an invited node that accepted and waits for the answer.
	Election
	// Reorganization: in the group, waiting for Ready (members), or
	// sending Ready (the coordinator, for an instant).
	Reorganization
	// Normal: in a formed group.
	Normal
)

var statusNames = [...]string{Down: "Down", Election: "Election", Reorganization: "Reorganization", Normal: "Normal"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", s)
}

// StoreKey is where a node keeps its counter in stable storage
// (protocol.Config.Store), as decimal text.
const StoreKey = "invitation.counter"

// Timer names; the reliable channel's timer is reliable.DefaultTimer.
const (
	timerCheck   = "check"   // periodic: a coordinator in Normal runs Check
	timerProbe   = "probe"   // periodic: a member in Normal asks AreYouThere
	timerAnswers = "answers" // Check stops waiting for AreYouCoordinator answers
	timerGap     = "gap"     // the lower coordinator's wait before it merges
	timerWindow  = "window"  // Merge stops waiting for accepts
	timerWait    = "wait"    // an invited node gives up waiting for the accept's answer or Ready
	timerSoon    = "soon"    // a coordinator that declined a lower one's invitation checks once its merge is over
)

// maxUnacked is how many messages to one peer may wait for their
// acknowledgement before periodic questions (AreYouCoordinator,
// AreYouThere) to it are skipped. One would do for a dead peer, but a live
// one often has an answer in flight when the next question is due.
const maxUnacked = 2

// Node is one node's instance of the invitation algorithm: the state
// vector of the seed (status, coordinator, group, counter, Up) and the
// procedures Check, Merge, Invitation, Accept, Ready, AreYouCoordinator,
// AreYouThere, Timeout and Recovery, as a state machine over a reliable
// FIFO channel. Garcia-Molina's procedures call each other and wait for
// answers; here each call is a message and each wait a timer, and "call
// Stop" cancels whatever the node was waiting for.
type Node struct {
	env     protocol.Env
	id      protocol.NodeID
	members []protocol.NodeID
	set     *settings
	store   protocol.Store
	ch      *reliable.Channel[Msg]
	nbr     map[protocol.NodeID]bool // one-hop: the radio neighbours now

	started bool
	status  Status
	coord   protocol.NodeID           // S.c; None while no group could be formed
	group   Group                     // S.g
	counter uint64                    // S.counter, as in stable storage
	up      []protocol.NodeID         // S.Up at a coordinator: the members, ascending
	apart   map[protocol.NodeID]Group // members last reported in another group (noted once)

	// Check, at a coordinator in Normal.
	round   uint64
	asked   map[protocol.NodeID]bool // asked this round, not answered yet
	found   []protocol.NodeID        // coordinators that answered yes
	answers protocol.TimerID         // collecting answers while set
	gapWait protocol.TimerID         // waiting for a higher coordinator to merge first while set

	window protocol.TimerID // Merge: collecting accepts while set
	wait   protocol.TimerID // invited: waiting for the accept's answer and Ready
	soon   protocol.TimerID // an extra Check is due

	heard time.Duration // a member's last yes from its coordinator (or when it joined)

	// Notes: the leader last noted and the election under way.
	noted     bool
	notedWho  protocol.NodeID
	notedWhat Group
	electing  Group
}

// New builds one node's process from cfg. A nil cfg.Store gets a MemStore,
// which survives nothing: drivers always give a real one.
func New(cfg protocol.Config) (protocol.Process, error) {
	return newNode(cfg)
}

func newNode(cfg protocol.Config) (*Node, error) {
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", Name, cfg.ID)
	}
	s, err := parseWith(cfg.Params, cfg.RouteDelay)
	warn, ok := protocol.Warned(err)
	if !ok {
		return nil, err
	}
	if _, ok := slices.BinarySearch(cfg.Members, cfg.ID); !ok {
		return nil, fmt.Errorf("%s: node %d is not a member of the run", Name, cfg.ID)
	}
	store := cfg.Store
	if store == nil {
		store = &protocol.MemStore{}
	}
	var counter uint64
	if b, ok := store.Get(StoreKey); ok {
		counter, err = strconv.ParseUint(string(b), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: node %d: stable storage %s holds %q, not a counter", Name, cfg.ID, StoreKey, b)
		}
	}
	n := &Node{
		env: cfg.Env, id: cfg.ID, members: cfg.Members, set: s, store: store, counter: counter,
		asked: map[protocol.NodeID]bool{}, nbr: map[protocol.NodeID]bool{},
	}
	chEnv := cfg.Env
	if s.reach == ReachOneHop {
		chEnv = oneHopEnv{Env: cfg.Env, n: n}
	}
	n.ch = reliable.New[Msg](chEnv, cfg.ID, s.rel)
	if w := protocol.JoinWarnings(warn, hopWarning(s, cfg.HopDelay)); w != nil {
		return n, w
	}
	return n, nil
}

// oneHopEnv carries the channel's frames (data, retransmissions and
// acknowledgements) by Env.Send to radio neighbours only; a frame for any
// other node is dropped, so the channel ends up declaring it unreachable.
type oneHopEnv struct {
	protocol.Env
	n *Node
}

func (e oneHopEnv) Deliver(to protocol.NodeID, m protocol.Message) {
	if e.n.nbr[to] {
		e.Env.Send(to, m)
	}
}

// Step implements protocol.Process: the channel sees every event first.
func (n *Node) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); ok {
		n.boot()
		return
	}
	if !n.started {
		return
	}
	if out, ok := n.ch.Step(ev); ok {
		for _, f := range out.Unreachable {
			n.unreachable(f)
		}
		for _, d := range out.Delivered {
			n.receive(d.From, d.Msg)
		}
		return
	}
	switch e := ev.(type) {
	case protocol.Timeout:
		n.timeout(e)
	case protocol.NeighborUp:
		n.nbr[e.ID] = true
	case protocol.NeighborDown:
		delete(n.nbr, e.ID)
	case protocol.Command:
		if e.Name == protocol.Elect {
			n.elect()
		}
	}
}

// boot is Garcia-Molina's Recovery at start: the node forms a group of its
// own, then looks for others with Check.
func (n *Node) boot() {
	if n.started {
		return
	}
	n.started = true
	n.ch.Start()
	n.env.SetTimer(n.set.check, timerCheck, 0)
	n.env.SetTimer(n.set.probe, timerProbe, 0)
	n.recovery("start")
}

// reachable reports whether messages can go to j: any other member over
// multi-hop delivery, only a radio neighbour with one-hop reach.
func (n *Node) reachable(j protocol.NodeID) bool {
	return j != n.id && j != protocol.None && (n.set.reach == ReachMultiHop || n.nbr[j])
}

func (n *Node) send(to protocol.NodeID, m Msg) bool {
	if !n.reachable(to) {
		return false
	}
	n.ch.Send(to, m)
	return true
}

func (n *Node) info(format string, args ...any) {
	n.env.Note(protocol.Note{Kind: protocol.NoteInfo, Epoch: n.group.String(), Text: fmt.Sprintf(format, args...)})
}

// ---- state transitions ----

// stop is the seed's "call Stop": the node stops whatever it was waiting
// for (a Check's answers, the wait before a merge, a Merge's accepts, an
// invitation's answer, a probe).
func (n *Node) stop() {
	for _, t := range []*protocol.TimerID{&n.answers, &n.gapWait, &n.window, &n.wait} {
		if *t != 0 {
			n.env.CancelTimer(*t)
			*t = 0
		}
	}
	clear(n.asked)
	n.found = nil
}

// newGroup names a new group coordinated by this node: the counter goes
// up by one in stable storage first, so that no name is ever used twice,
// even across a crash. If the storage fails, no group is formed.
func (n *Node) newGroup() (Group, bool) {
	c := n.counter + 1
	if err := n.store.Put(StoreKey, []byte(strconv.FormatUint(c, 10))); err != nil {
		n.info("stable storage failed (%v): no new group until it works", err)
		return Group{}, false
	}
	n.counter = c
	return Group{Coord: n.id, Counter: c}, true
}

// becomeElection stops everything and enters Election for group g with
// coordinator coord: the node has left its group (leader none) and an
// election starts.
func (n *Node) becomeElection(g Group, coord protocol.NodeID) {
	n.stop()
	n.endElection()
	n.status = Election
	n.coord, n.group = coord, g
	n.follow(protocol.None, Group{})
	n.electing = g
	n.env.Note(protocol.Note{Kind: protocol.NoteElectionStart, Epoch: g.String()})
}

// becomeReorganization: the node is in group n.group under n.coord. Leader
// notes are made here only, so that a leader note always names a group the
// node is in (Reorganization or Normal): the one-leader-per-epoch check
// is then Assertion 3.
func (n *Node) becomeReorganization() {
	n.status = Reorganization
	n.follow(n.coord, n.group)
}

func (n *Node) becomeNormal() {
	if n.wait != 0 {
		n.env.CancelTimer(n.wait)
		n.wait = 0
	}
	n.status = Normal
	n.heard = n.env.Now()
	n.endElection()
}

func (n *Node) endElection() {
	if n.electing.Coord != protocol.None {
		n.env.Note(protocol.Note{Kind: protocol.NoteElectionEnd, Epoch: n.electing.String()})
		n.electing = Group{}
	}
}

// follow notes leader as this node's leader in group g, once.
func (n *Node) follow(leader protocol.NodeID, g Group) {
	if n.noted && n.notedWho == leader && n.notedWhat == g {
		return
	}
	if !n.noted && leader == protocol.None {
		return // nothing to take back
	}
	n.noted, n.notedWho, n.notedWhat = true, leader, g
	n.env.Note(protocol.Note{Kind: protocol.NoteLeader, Leader: leader, Epoch: g.String()})
}

// recovery is the seed's Recovery: the node forms a singleton group of
// which it is the coordinator (Election, Reorganization, Normal at once).
func (n *Node) recovery(why string) {
	if why != "start" {
		n.info("Recovery: %s", why)
	}
	g, ok := n.newGroup()
	if !ok {
		// In Election with no group; the next check tick tries again.
		n.stop()
		n.endElection()
		n.status, n.coord, n.group, n.up = Election, protocol.None, Group{}, nil
		n.follow(protocol.None, Group{})
		return
	}
	n.becomeElection(g, n.id)
	n.up = nil
	n.becomeReorganization()
	n.becomeNormal()
}

// ---- timers and commands ----

func (n *Node) timeout(e protocol.Timeout) {
	switch e.Name {
	case timerCheck:
		n.env.SetTimer(n.set.check, timerCheck, 0)
		if n.coord == protocol.None {
			n.recovery("stable storage works again?")
			return
		}
		n.check()
	case timerProbe:
		n.env.SetTimer(n.set.probe, timerProbe, 0)
		n.probe()
	case timerAnswers:
		if e.ID == n.answers {
			n.answers = 0
			n.endCheck()
		}
	case timerGap:
		if e.ID == n.gapWait {
			n.gapWait = 0
			if n.status == Normal && n.coord == n.id {
				n.merge(n.found)
			}
		}
	case timerWindow:
		if e.ID == n.window {
			n.window = 0
			n.reorganize()
		}
	case timerSoon:
		if e.ID == n.soon {
			n.soon = 0
			n.check()
		}
	case timerWait:
		if e.ID == n.wait {
			n.wait = 0
			if n.coord != n.id && (n.status == Election || n.status == Reorganization) {
				n.recovery(fmt.Sprintf("no answer and Ready from coordinator %d for group %s within %v", n.coord, n.group, n.set.timeout))
			}
		}
	}
}

// elect runs Check (a coordinator) or a probe (a member) now.
func (n *Node) elect() {
	if n.coord == protocol.None {
		n.recovery("elect command")
		return
	}
	n.check()
	n.probe()
}

// ---- Check: a coordinator looks for other coordinators ----

// check is the seed's Check: a coordinator in Normal asks every other
// member (one-hop: every neighbour) AreYouCoordinator. A peer with
// maxUnacked messages unacknowledged is skipped, so a silent one holds few
// questions.
func (n *Node) check() {
	if n.status != Normal || n.coord != n.id || n.answers != 0 || n.gapWait != 0 {
		return
	}
	n.round++
	clear(n.asked)
	n.found = nil
	for _, j := range n.members {
		if !n.reachable(j) || n.ch.Unacked(j) >= maxUnacked {
			continue
		}
		n.asked[j] = true
		n.ch.Send(j, Msg{Type: TypeAreYouCoordinator, Round: n.round})
	}
	if len(n.asked) > 0 {
		n.answers = n.env.SetTimer(n.set.answer, timerAnswers, 0)
	}
}

func (n *Node) coordinatorReply(from protocol.NodeID, m Msg) {
	if n.answers == 0 || m.Round != n.round || !n.asked[from] {
		return
	}
	delete(n.asked, from)
	if m.Yes {
		n.found = append(n.found, from)
	} else if n.isMember(from) && m.Coord != protocol.None && m.group() != n.group && n.apart[from] != m.group() {
		// Garcia-Molina's coordinator never learns this; the note only
		// makes a departure visible in the trace (Stoller's example).
		if n.apart == nil {
			n.apart = map[protocol.NodeID]Group{}
		}
		n.apart[from] = m.group()
		n.info("node %d, a member of group %s for this coordinator, says it is in group %s", from, n.group, m.group())
	}
	if len(n.asked) == 0 {
		n.env.CancelTimer(n.answers)
		n.answers = 0
		n.endCheck()
	}
}

// endCheck decides once the answers are in: nothing to do without other
// coordinators; merge at once if this node is the highest of them; else
// wait in proportion to the gap to the highest, so that it merges first.
func (n *Node) endCheck() {
	clear(n.asked)
	if len(n.found) == 0 {
		return
	}
	slices.Sort(n.found)
	p := n.found[len(n.found)-1]
	if p > n.id && n.set.gap > 0 {
		n.gapWait = n.env.SetTimer(scale(n.set.gap, uint64(p-n.id)), timerGap, 0)
		return
	}
	n.merge(n.found)
}

// scale is d·k, held below overflow.
func scale(d time.Duration, k uint64) time.Duration {
	if k > 0 && uint64(d) > uint64(math.MaxInt64)/k {
		return math.MaxInt64
	}
	return d * time.Duration(k)
}

func (n *Node) areYouCoordinator(from protocol.NodeID, m Msg) {
	yes := n.status == Normal && n.coord == n.id
	n.send(from, Msg{Type: TypeCoordinatorReply, Round: m.Round, Yes: yes, Coord: n.group.Coord, Counter: n.group.Counter})
}

// ---- Merge ----

// merge is the seed's Merge: a new group named by this node and its next
// counter; invitations to the coordinators found and to the members of the
// old group; accepts collected for the window; then Reorganization, Ready
// to every node that accepted, and Normal.
func (n *Node) merge(coordinators []protocol.NodeID) {
	invite := slices.Clone(coordinators)
	invite = append(invite, n.up...)
	slices.Sort(invite)
	invite = slices.Compact(invite)
	g, ok := n.newGroup()
	if !ok {
		return
	}
	n.becomeElection(g, n.id)
	n.up = nil
	for _, j := range invite {
		n.send(j, Msg{Type: TypeInvitation, Coord: n.id, Counter: g.Counter})
	}
	n.window = n.env.SetTimer(n.set.window, timerWindow, 0)
}

func (n *Node) accept(from protocol.NodeID, m Msg) {
	ok := n.status == Election && n.coord == n.id && m.group() == n.group && n.window != 0
	if ok {
		n.addMember(from)
	}
	n.send(from, Msg{Type: TypeAcceptReply, Coord: m.Coord, Counter: m.Counter, Yes: ok})
}

func (n *Node) reorganize() {
	if n.status != Election || n.coord != n.id {
		return
	}
	n.becomeReorganization()
	size := uint32(len(n.up) + 1)
	for _, j := range n.up {
		if !n.send(j, Msg{Type: TypeReady, Coord: n.id, Counter: n.group.Counter, Size: size}) {
			// One-hop: the member is no longer a neighbour. The seed
			// calls Recovery; here, as when the channel gives up on a
			// Ready, the member stays in Up and, missing its Ready,
			// leaves by itself.
			n.info("Ready to member %d of group %s cannot go: not a radio neighbour", j, n.group)
		}
	}
	n.becomeNormal()
}

// ---- Invitation ----

// invitation is the seed's Invitation procedure at an invited node. Only a
// node in Normal considers it. Under accept: higher it takes an invitation
// forwarded by its own coordinator, or one from a coordinator above itself
// and its coordinator, and declines the rest; under accept: any it takes
// every one. A coordinator that accepts forwards the invitation to its
// members; then the node accepts to the new coordinator and waits.
func (n *Node) invitation(from protocol.NodeID, m Msg) {
	j, g := m.Coord, m.group()
	if n.status != Normal || j == protocol.None || j == n.id {
		return
	}
	forwarded := from == n.coord
	if !forwarded && n.set.accept == AcceptHigher && (j < n.coord || j < n.id) {
		n.info("declines the invitation to group %s: coordinator %d is below %d", g, j, max(n.coord, n.id))
		if n.coord == n.id && n.soon == 0 {
			// A lower coordinator merges without waiting for this one
			// (its wait ran out, or it missed this one's Checks): this
			// one checks as soon as that merge is over, to invite it.
			n.soon = n.env.SetTimer(n.set.window, timerSoon, 0)
		}
		return
	}
	wasCoord := n.coord == n.id
	oldUp, oldGroup, oldCoord := n.up, n.group, n.coord
	if !wasCoord && !forwarded {
		n.info("leaves group %s for group %s: its coordinator %d still counts it as a member", oldGroup, g, oldCoord)
	}
	n.becomeElection(g, j)
	n.up = nil
	if wasCoord {
		for _, k := range oldUp {
			if k != j {
				n.send(k, Msg{Type: TypeInvitation, Coord: j, Counter: g.Counter})
			}
		}
	}
	if !n.send(j, Msg{Type: TypeAccept, Coord: j, Counter: g.Counter}) {
		n.recovery(fmt.Sprintf("cannot accept the invitation to group %s: coordinator %d is not a radio neighbour", g, j))
		return
	}
	n.wait = n.env.SetTimer(n.set.timeout, timerWait, 0)
}

func (n *Node) acceptReply(from protocol.NodeID, m Msg) {
	if n.status != Election || from != n.coord || n.coord == n.id || m.group() != n.group {
		return
	}
	if !m.Yes {
		n.recovery(fmt.Sprintf("coordinator %d refused the accept for group %s: it came after the window", from, n.group))
		return
	}
	n.becomeReorganization()
}

func (n *Node) ready(from protocol.NodeID, m Msg) {
	if n.status != Reorganization || from != n.coord || n.coord == n.id || m.group() != n.group {
		return
	}
	n.becomeNormal()
}

// ---- Timeout: a member checks its coordinator ----

// probe is the seed's Timeout procedure: a member in Normal asks its
// coordinator AreYouThere every probe period; a no, or no yes for the
// timeout, and the member forms a group of its own (Recovery). A question
// goes only while fewer than maxUnacked messages to the coordinator wait
// for their acknowledgement, so a dead coordinator holds few; the answers
// of a live one get through once the channel gives up on an answer that
// losses kept back (the next answers go in a new session).
func (n *Node) probe() {
	if n.status != Normal || n.coord == n.id || n.coord == protocol.None {
		return
	}
	if !n.reachable(n.coord) {
		n.recovery(fmt.Sprintf("coordinator %d is not a radio neighbour", n.coord))
		return
	}
	if quiet := n.env.Now() - n.heard; quiet >= n.set.timeout {
		n.recovery(fmt.Sprintf("coordinator %d has not answered AreYouThere for %v", n.coord, quiet))
		return
	}
	if n.ch.Unacked(n.coord) < maxUnacked {
		n.ch.Send(n.coord, Msg{Type: TypeAreYouThere, Coord: n.group.Coord, Counter: n.group.Counter})
	}
}

func (n *Node) thereReply(from protocol.NodeID, m Msg) {
	if n.status != Normal || from != n.coord || n.coord == n.id || m.group() != n.group {
		return
	}
	if !m.Yes {
		n.recovery(fmt.Sprintf("coordinator %d answers that group %s is gone", from, n.group))
		return
	}
	n.heard = n.env.Now()
}

// areYouThere answers yes when the asker is a member of this node's
// group, which this node coordinates.
func (n *Node) areYouThere(from protocol.NodeID, m Msg) {
	yes := n.coord == n.id && m.group() == n.group && n.isMember(from)
	n.send(from, Msg{Type: TypeThereReply, Coord: m.Coord, Counter: m.Counter, Yes: yes})
}

// ---- messages and failures ----

func (n *Node) receive(from protocol.NodeID, m Msg) {
	switch m.Type {
	case TypeAreYouCoordinator:
		n.areYouCoordinator(from, m)
	case TypeCoordinatorReply:
		n.coordinatorReply(from, m)
	case TypeAreYouThere:
		n.areYouThere(from, m)
	case TypeThereReply:
		n.thereReply(from, m)
	case TypeInvitation:
		n.invitation(from, m)
	case TypeAccept:
		n.accept(from, m)
	case TypeAcceptReply:
		n.acceptReply(from, m)
	case TypeReady:
		n.ready(from, m)
	}
}

// unreachable handles a peer the channel gave up on. An invited node whose
// new coordinator does not acknowledge calls Recovery, as the seed's
// Invitation does when Accept fails. A member in Normal leaves that to its
// probes' timeout, and a coordinator whose Ready was not acknowledged keeps
// the member (the seed calls Recovery): on a lossy multi-hop path the
// channel gives up on live peers, and the member that missed its Ready
// leaves by itself. A peer asked AreYouCoordinator has no answer.
func (n *Node) unreachable(f reliable.Failure[Msg]) {
	peer := f.Peer
	if n.coord == peer && n.coord != n.id && n.status != Normal {
		n.recovery(fmt.Sprintf("the channel gave up on coordinator %d", peer))
		return
	}
	if n.coord == n.id {
		for _, m := range f.Unacked {
			if m.Type == TypeReady && m.group() == n.group {
				n.info("Ready to member %d of group %s not acknowledged: it stays a member (a member that missed its Ready leaves by itself)", peer, n.group)
				break
			}
		}
	}
	if n.answers != 0 && n.asked[peer] {
		delete(n.asked, peer)
		if len(n.asked) == 0 {
			n.env.CancelTimer(n.answers)
			n.answers = 0
			n.endCheck()
		}
	}
}

func (n *Node) isMember(j protocol.NodeID) bool {
	_, ok := slices.BinarySearch(n.up, j)
	return ok
}

func (n *Node) addMember(j protocol.NodeID) {
	if i, ok := slices.BinarySearch(n.up, j); !ok {
		n.up = slices.Insert(n.up, i, j)
	}
}
