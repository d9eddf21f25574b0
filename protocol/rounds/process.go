package rounds

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// maxAlone bounds the rounds a node with no neighbours runs in one step
// (nothing paces it): an algorithm that never halts alone stops there.
const maxAlone = 1 << 20

// proc runs one node's Algorithm over a synchronizer: the state every
// synchronizer shares (the channel, the neighbours, the inbox, the
// algorithm's round and halting); simple.go, alpha.go, beta.go, abd.go and
// none.go hold what each adds.
type proc[T protocol.Message] struct {
	fam *Family[T]
	cfg protocol.Config
	env protocol.Env
	id  protocol.NodeID
	set *settings
	ch  *reliable.Channel[Wire[T]]
	alg Algorithm[T]

	settled bool
	hello   bool                     // radio: hellos sent, waiting HelloWait before settling
	learnt  map[protocol.NodeID]bool // radio: neighbours heard while settling
	nbrs    []protocol.NodeID        // fixed once settled, ascending
	isNbr   map[protocol.NodeID]bool
	early   []delivery[T] // synchronizer messages that came before settling

	round     int // the last round this node ran (0: none yet)
	awake     bool
	halted    bool // the algorithm halted, in round haltRound
	haltRound int
	done      bool // the synchronizer has nothing more to do
	advancing bool // advance is running (alpha calls it back from a round)

	inbox      map[int]map[protocol.NodeID][]T  // algorithm messages sent in round r, by sender
	got        map[int]map[protocol.NodeID]bool // envelopes of round r received, by sender
	peerHalted map[protocol.NodeID]int          // simple, alpha: a neighbour's halt round

	// alpha, beta: this node's envelopes of its last round not yet
	// acknowledged, and the last round it was safe for.
	pending   map[protocol.NodeID]bool
	safeRound int
	safeFrom  map[int]map[protocol.NodeID]bool // alpha: neighbours safe; beta: children safe
	subHalted map[int]map[protocol.NodeID]bool // beta: children whose subtree halted

	tree  tree // beta
	pulse int  // beta: the last pulse this node took part in
	// beta's root: the next pulse to start, and whether the loop that
	// starts them runs (a root with no children would recurse).
	nextPulse int
	pulsing   bool

	started bool          // abd: the start flood passed here
	startAt time.Duration // abd: when round 1 began here

	queue []delivery[T] // none: envelopes that came before settling
}

type delivery[T protocol.Message] struct {
	from protocol.NodeID
	w    Wire[T]
}

// hopEnv turns the reliable channel's multi-hop Deliver into a one-hop
// Send, for the radio graph: neighbours are one hop away.
type hopEnv struct{ protocol.Env }

func (h hopEnv) Deliver(to protocol.NodeID, m protocol.Message) { h.Env.Send(to, m) }

func newProc[T protocol.Message](fam *Family[T], cfg protocol.Config) (protocol.Process, error) {
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", fam.Name, cfg.ID)
	}
	if !isMember(cfg.Members, cfg.ID) {
		return nil, fmt.Errorf("%s: node %d is not a member (members: %s)", fam.Name, cfg.ID, protocol.DescribeIDs(cfg.Members))
	}
	r := cfg.Params.Reader()
	set, err := parseSettings(r, fam.Graph, cfg.Members, cfg.Seed)
	if err != nil {
		return nil, err
	}
	var warn *protocol.Warning
	if fam.Graph == GraphRing {
		// Ring neighbours are reached with Deliver, across hops: under
		// AODV a first message waits for its route (the radio graph's
		// neighbours are one Send away).
		set.rel.RouteDelay = cfg.RouteDelay
		if set.sync == ABD && set.d < cfg.RouteDelay {
			warn = &protocol.Warning{Text: fmt.Sprintf("%s over abd: protocol.params.d %v, but under routing.protocol aodv a message to a ring neighbour "+
				"beyond routing.aodv.ttl_threshold hops waits %v for its route: round messages will come after their round (sync-late) and the "+
				"rounds break; give d above that wait plus the path's hops, or routing.protocol flood (docs/routing.md). Ring neighbours one hop apart "+
				"(nodes.placement: ring) find their routes in milliseconds and need neither", fam.Name, set.d, cfg.RouteDelay)}
		}
	}
	p := &proc[T]{
		fam: fam, cfg: cfg, env: cfg.Env, id: cfg.ID, set: set,
		learnt: map[protocol.NodeID]bool{}, isNbr: map[protocol.NodeID]bool{},
		inbox: map[int]map[protocol.NodeID][]T{}, got: map[int]map[protocol.NodeID]bool{},
		peerHalted: map[protocol.NodeID]int{}, pending: map[protocol.NodeID]bool{},
		safeFrom: map[int]map[protocol.NodeID]bool{}, subHalted: map[int]map[protocol.NodeID]bool{},
	}
	var env protocol.Env = cfg.Env
	if fam.Graph == GraphRing {
		p.setNeighbors(ringNeighbors(set, cfg.ID))
	} else {
		env = hopEnv{cfg.Env}
	}
	// On the radio graph the neighbours are learnt while settling: this
	// first algorithm only checks the parameters; settle builds the one
	// that runs, with the neighbours.
	alg, err := fam.New(p.context(), r)
	if err != nil {
		return nil, err
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if alg == nil {
		return nil, fmt.Errorf("%s: New returned no algorithm", fam.Name)
	}
	p.alg = alg
	p.ch = reliable.New[Wire[T]](env, cfg.ID, set.rel)
	if w := protocol.JoinWarnings(reliable.HopWarning(fam.Name, set.rel, cfg.HopDelay), warn); w != nil {
		return p, w
	}
	return p, nil
}

func ringNeighbors(set *settings, id protocol.NodeID) []protocol.NodeID {
	var ns []protocol.NodeID
	for _, n := range []protocol.NodeID{set.ring.Predecessor(id), set.ring.Successor(id)} {
		if n != id && n != protocol.None && !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	return ns
}

func (p *proc[T]) setNeighbors(ns []protocol.NodeID) {
	slices.Sort(ns)
	p.nbrs = ns
	clear(p.isNbr)
	for _, n := range ns {
		p.isNbr[n] = true
	}
}

func (p *proc[T]) context() Context {
	c := Context{ID: p.id, Members: slices.Clone(p.cfg.Members), Neighbors: slices.Clone(p.nbrs), Note: p.env.Note}
	if p.set.ring != nil {
		c.Left, c.Right = p.set.ring.Predecessor(p.id), p.set.ring.Successor(p.id)
		if c.Left == p.id {
			c.Left, c.Right = protocol.None, protocol.None
		}
	}
	return c
}

// Step handles one event.
func (p *proc[T]) Step(ev protocol.Event) {
	if out, ok := p.ch.Step(ev); ok {
		for _, d := range out.Delivered {
			p.receive(d.From, d.Msg)
		}
		for _, f := range out.Unreachable {
			// Loss must not break a round: resend what the peer did not
			// acknowledge (duplicates are recognised by their round). A
			// crashed peer keeps this going, at the channel's give-up
			// pace, until the run ends: the synchronizer stalls.
			p.env.Logf("sync: %d did not acknowledge %d messages; sending them again", f.Peer, len(f.Unacked))
			for _, m := range f.Unacked {
				p.ch.Send(f.Peer, m)
			}
		}
		return
	}
	switch e := ev.(type) {
	case protocol.Start:
		p.ch.Start()
		p.env.SetTimer(p.set.settle, timerSettle, 0)
	case protocol.Timeout:
		switch e.Name {
		case timerSettle:
			if p.fam.Graph == GraphRadio {
				p.sayHello()
			} else {
				p.settle()
			}
		case timerHello:
			p.settle()
		case timerPulse:
			p.abdPulse()
		}
	case protocol.NeighborUp:
		if !p.settled && p.fam.Graph == GraphRadio && isMember(p.cfg.Members, e.ID) && e.ID != p.id && !p.learnt[e.ID] {
			p.learnt[e.ID] = true
			if p.hello {
				p.ch.Send(e.ID, Wire[T]{Type: uint8(wHello)})
			}
		}
	case protocol.NeighborDown:
		if !p.settled && !p.hello {
			delete(p.learnt, e.ID)
		}
	case protocol.Receive:
		p.env.Logf("sync: ignoring a %s from %d outside the channel", e.Msg.Kind(), e.From)
	}
}

// sayHello sends sync-hello to every neighbour heard while settling, so
// that a neighbour that did not hear this node counts it all the same,
// and settles HelloWait later.
func (p *proc[T]) sayHello() {
	if p.hello || p.settled {
		return
	}
	p.hello = true
	for _, j := range sortedIDs(p.learnt) {
		p.ch.Send(j, Wire[T]{Type: uint8(wHello)})
	}
	p.env.SetTimer(HelloWait, timerHello, 0)
}

func sortedIDs(set map[protocol.NodeID]bool) []protocol.NodeID {
	ns := make([]protocol.NodeID, 0, len(set))
	for n := range set {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// settle ends the settling period: the neighbours are now fixed and the
// synchronizer begins.
func (p *proc[T]) settle() {
	if p.settled {
		return
	}
	p.settled = true
	if p.fam.Graph == GraphRadio {
		p.setNeighbors(sortedIDs(p.learnt))
		alg, err := p.fam.New(p.context(), p.cfg.Params.Reader())
		if err != nil || alg == nil {
			p.env.Logf("sync: %s: %v", p.fam.Name, err)
			p.done = true
			return
		}
		p.alg = alg
	}
	p.env.Note(protocol.Note{Kind: protocol.NoteSync, Text: SyncNoteText(p.set.sync, p.nbrs)})
	switch p.set.sync {
	case Beta:
		p.treeStart()
	case ABD:
		p.abdStart()
	case None:
		p.noneStart()
	default:
		p.advance()
	}
	early := p.early
	p.early = nil
	for _, d := range early {
		p.receive(d.from, d.w)
	}
}

// receive handles one synchronizer message delivered by the channel.
func (p *proc[T]) receive(from protocol.NodeID, w Wire[T]) {
	t := wireType(w.Type)
	if t == wHello {
		switch {
		case !p.settled && p.fam.Graph == GraphRadio && isMember(p.cfg.Members, from):
			p.learnt[from] = true
		case !p.isNbr[from]:
			p.env.Logf("sync: a hello from %d came after the neighbours were fixed (%v): it will wait for this node in vain", from, p.nbrs)
		}
		return
	}
	if !p.settled && t != wBatch && t != wAck && t != wSafe {
		p.early = append(p.early, delivery[T]{from, w})
		return
	}
	r := int(w.Round)
	switch t {
	case wBatch:
		p.onBatch(from, r, w)
	case wAck:
		if r == p.round && p.pending[from] {
			delete(p.pending, from)
			p.checkSafe()
		}
	case wSafe:
		if p.set.sync == Beta {
			p.betaSafe(from, r, w.Halted)
		} else {
			p.alphaSafe(from, r, w.Halted)
		}
	case wPulse:
		p.betaPulse(from, r)
	case wStart:
		p.abdStart()
	case wTreeJoin, wTreeAck, wTreeDone:
		p.treeMsg(from, t, w.Halted)
	default:
		p.env.Logf("sync: ignoring a message of unknown type %d from %d", w.Type, from)
	}
}

// onBatch takes an envelope of the algorithm's messages sent in round r.
func (p *proc[T]) onBatch(from protocol.NodeID, r int, w Wire[T]) {
	if r < 1 {
		p.env.Logf("sync: ignoring an envelope of round %d from %d", r, from)
		return
	}
	if p.set.sync == Alpha || p.set.sync == Beta {
		p.ch.Send(from, Wire[T]{Type: uint8(wAck), Round: w.Round})
	}
	if p.settled && !p.isNbr[from] {
		p.env.Logf("sync: ignoring an envelope from %d, not a neighbour (%v)", from, p.nbrs)
		return
	}
	if p.got[r][from] {
		return // a resent duplicate
	}
	if p.got[r] == nil {
		p.got[r] = map[protocol.NodeID]bool{}
	}
	p.got[r][from] = true
	if w.Halted && p.set.sync == Simple {
		p.peerHalted[from] = r
	}
	if p.set.sync == None {
		p.noneDeliver(from, w)
		return
	}
	if p.halted {
		p.advance() // simple: a halted neighbour may be all it waited for
		return
	}
	if p.settled && r < p.round {
		p.late(from, r)
		return
	}
	if p.inbox[r] == nil {
		p.inbox[r] = map[protocol.NodeID][]T{}
	}
	p.inbox[r][from] = append(p.inbox[r][from], w.Msgs...)
	p.advance()
}

// late notes a message of round r that came after this node began round
// r+1: the synchronizer broke (abd with delays above d).
func (p *proc[T]) late(from protocol.NodeID, r int) {
	text := fmt.Sprintf("late: the round %d message from %d arrived in round %d (%d round(s) late)", r, from, p.round, p.round-r)
	if p.set.sync == ABD {
		began := p.startAt + time.Duration(r)*2*p.set.d
		text += fmt.Sprintf(", %v after round %d began here", p.env.Now()-began, r+1)
	}
	p.env.Note(protocol.Note{Kind: protocol.NoteLate, Leader: from, Epoch: strconv.Itoa(r), Text: text})
}

// advance runs every round the synchronizer allows now (simple, alpha).
func (p *proc[T]) advance() {
	if p.advancing {
		return // called back from the round it runs: the loop below goes on
	}
	p.advancing = true
	defer func() { p.advancing = false }()
	for i := 0; i < maxAlone && p.settled && !p.halted && !p.done && p.ready(p.round+1); i++ {
		p.run(p.round + 1)
	}
}

func (p *proc[T]) ready(r int) bool {
	switch p.set.sync {
	case Simple:
		return p.simpleReady(r)
	case Alpha:
		return p.alphaReady(r)
	}
	return false
}

// run runs round r of the algorithm: it hands over the messages sent to
// this node in round r-1, notes the round, and sends what the round
// returned as the synchronizer does.
func (p *proc[T]) run(r int) {
	p.round = r
	in := p.take(r - 1)
	if !p.awake {
		spont := p.set.wake[p.id] == r
		if spont || len(in) > 0 {
			p.awake = true
			p.alg.Start(r, spont)
		}
	}
	var outs []Out[T]
	if p.awake && !p.alg.Halted() {
		outs = p.alg.Round(r, in)
	}
	byTo := map[protocol.NodeID][]T{}
	sent := 0
	for _, o := range outs {
		if !p.isNbr[o.To] {
			p.env.Logf("sync: round %d: the algorithm sent a %s to %d, not a neighbour (%v); dropped", r, o.Msg.Kind(), o.To, p.nbrs)
			continue
		}
		byTo[o.To] = append(byTo[o.To], o.Msg)
		sent++
	}
	state := "asleep"
	if p.awake {
		state = "running"
		if p.alg.Halted() {
			state = "halted"
			p.halted, p.haltRound = true, r
		}
	}
	p.env.Note(protocol.Note{Kind: protocol.NoteRound, Epoch: strconv.Itoa(r), Text: fmt.Sprintf("round %d sent=%d state=%s", r, sent, state)})
	switch p.set.sync {
	case Simple:
		p.simpleSend(r, byTo)
	case Alpha, Beta:
		p.ackedSend(r, byTo)
	default:
		for _, to := range p.nbrs {
			if len(byTo[to]) > 0 {
				p.ch.Send(to, Wire[T]{Type: uint8(wBatch), Round: uint32(r), Msgs: byTo[to]})
			}
		}
	}
}

// take removes and returns the messages sent to this node in round r, in
// the order of their senders' IDs (and of sending, per sender).
func (p *proc[T]) take(r int) []In[T] {
	box := p.inbox[r]
	delete(p.inbox, r)
	var in []In[T]
	for _, from := range p.nbrs {
		for _, m := range box[from] {
			in = append(in, In[T]{From: from, Msg: m})
		}
	}
	for from := range box {
		if !p.isNbr[from] {
			p.env.Logf("sync: round %d: dropping messages from %d, not a neighbour", r, from)
		}
	}
	return in
}

// knownHalted reports that neighbour j's algorithm halted before round r,
// as far as this node knows: it neither waits for j nor sends to it.
func (p *proc[T]) knownHalted(j protocol.NodeID, r int) bool {
	h := p.peerHalted[j]
	return h > 0 && h < r
}

func mark(m map[int]map[protocol.NodeID]bool, r int, id protocol.NodeID, v bool) {
	if m[r] == nil {
		m[r] = map[protocol.NodeID]bool{}
	}
	m[r][id] = v
}
