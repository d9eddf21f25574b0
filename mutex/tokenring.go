package mutex

import (
	"fmt"
	"math"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/logicalring"
	"manetlab/protocol/reliable"
)

// TokenRing is the registered name of the token ring algorithm.
const TokenRing = "mutex/token-ring"

// Defaults of the token ring's parameters.
const (
	// DefaultTokenPassDelay is how long a node keeps the token that
	// nobody at it wants before passing it on, so that an idle ring does
	// not flood the network and the trace (100 passes a second at most).
	DefaultTokenPassDelay = 10 * time.Millisecond
	// DefaultTokenStart is when, after Start, the first member of the
	// ring creates the token, so that every process of a real run is up.
	DefaultTokenStart = time.Second
)

// Timer names; the reliable channel's is tokenTimerChan.
const (
	tokenTimerChan  = "mutex"
	tokenTimerStart = "mutex-start" // the first member creates the token
	tokenTimerPass  = "mutex-pass"  // pass the token nobody here wants
	tokenTimerWatch = "mutex-watch" // the token has not been seen for token_timeout
)

// tokenStoreKey marks, in stable storage, that this node has booted: a
// recovered first member must not create a second token.
const tokenStoreKey = "mutex.token-ring.booted"

func init() {
	protocol.Register(protocol.Spec{
		Name: TokenRing,
		Summary: "token ring mutual exclusion (seed 002): the token circulates on the logical ring (protocol.params.ring); " +
			"a node that wants the section keeps it for one entry; lost-token regeneration by an election as an option",
		New:         NewTokenRing,
		Messages:    reliable.Messages[tokenMsg](),
		Goal:        protocol.GoalMutex,
		LogicalRing: true,
		Commands:    []protocol.CommandName{protocol.Request, protocol.Release},
		Budget:      tokenBudget,
		Mutex: &protocol.MutexCost{
			Messages: "1 to ∞",
			PerEntry: func(int) (float64, float64) { return 1, math.Inf(1) },
			Delay:    "0 to n-1",
			Problems: "lost token, process crash",
		},
	})
}

// tokenParams are the token ring's parameters.
type tokenParams struct {
	ring       *logicalring.Ring
	rel        reliable.Config
	passDelay  time.Duration
	start      time.Duration
	regenerate bool
	timeout    time.Duration // token_timeout
}

// readTokenParams reads ring and channels, rto and retries, pass_delay,
// start, regenerate and token_timeout. Errors name the field.
func readTokenParams(p protocol.Params, members []protocol.NodeID, seed uint64, route time.Duration) (*tokenParams, error) {
	r := p.Reader()
	s := &tokenParams{rel: reliable.ParamsConfig(r)}
	s.rel.Timer = tokenTimerChan
	s.rel.RouteDelay = route
	ring, err := logicalring.FromParams(r, members, seed, false)
	if err != nil {
		return nil, err
	}
	s.ring = ring
	s.passDelay = r.Duration("pass_delay", DefaultTokenPassDelay)
	s.start = r.Duration("start", DefaultTokenStart)
	s.regenerate = r.Bool("regenerate", false)
	s.timeout = r.Duration("token_timeout", defaultTokenTimeout(len(members), s.passDelay, s.rel))
	if v, _ := r.Any("token_timeout"); v != nil && s.timeout == 0 {
		r.Reject("token_timeout", v, `a positive duration such as "5s"`)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// defaultTokenTimeout is how long a node waits without seeing the token
// before it suspects the token lost: four rounds of n passes, each a
// pass_delay and a retransmission timeout (room for losses the channel
// repairs), plus one wait for a route per pass (rel.RouteDelay: under
// AODV every pass of the first round may have to find its successor).
// A section held longer than that makes the others suspect a
// live token; their elections meet the holder and die there, so a
// suspicion costs messages, never a second token. 8 members with the
// defaults: 4·8·(10ms + 200ms) = 6.72s under flooding, 6.72s + 8·1.92s =
// 22.08s under AODV.
func defaultTokenTimeout(n int, pass time.Duration, rel reliable.Config) time.Duration {
	return time.Duration(n) * (4*(pass+rel.RTO()) + rel.RouteDelay)
}

// tokenRing is one node of the token ring.
type tokenRing struct {
	env   protocol.Env
	id    protocol.NodeID
	set   *tokenParams
	store protocol.Store
	ch    *reliable.Channel[tokenMsg]
	c     client

	started   bool
	gen       uint64 // the highest generation seen
	passes    uint64 // the highest pass of generation gen seen (tokenMsg.Pass)
	has       bool   // this node holds the token
	pass      protocol.TimerID
	watch     protocol.TimerID
	candidate bool   // regeneration: this node's election is going round
	since     uint64 // the candidacy's stamp: when it began (tokenMsg.Stamp)
	missed    bool   // regeneration off: the loss was noted
	dead      map[protocol.NodeID]bool
	down      protocol.NodeID // where the token and elections went last
	// passed are the skipped nodes the token went past, to be told
	// (tokenPassedOver) when they are back (tokenring_regen.go).
	passed map[protocol.NodeID]bool
	// recreate is a broken variant's: with regenerate on, a node that
	// misses the token creates one at once, of the generation it saw
	// last, without an election (NewTokenRingRule).
	recreate bool
}

// NewTokenRing builds a node of mutex/token-ring.
func NewTokenRing(cfg protocol.Config) (protocol.Process, error) {
	return NewTokenRingRule(cfg, false)
}

// NewTokenRingRule builds a node of mutex/token-ring that, with
// protocol.params.regenerate on, regenerates a token it misses by the
// election and a new generation (recreate false: the algorithm,
// NewTokenRing), or at once, without an election, as a token no
// generation tells from the old one (recreate true): a seam for the
// test-only broken variants of package explore/brokentest, which show
// that the checker and the search catch the bug.
func NewTokenRingRule(cfg protocol.Config, recreate bool) (protocol.Process, error) {
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", TokenRing, cfg.ID)
	}
	s, err := readTokenParams(cfg.Params, cfg.Members, cfg.Seed, cfg.RouteDelay)
	if err != nil {
		return nil, err
	}
	if _, ok := s.ring.Index(cfg.ID); !ok {
		return nil, fmt.Errorf("%s: node %d is not a member (members: %s)", TokenRing, cfg.ID, protocol.DescribeIDs(cfg.Members))
	}
	store := cfg.Store
	if store == nil {
		store = &protocol.MemStore{}
	}
	return &tokenRing{env: cfg.Env, id: cfg.ID, set: s, store: store, c: client{env: cfg.Env},
			ch: reliable.New[tokenMsg](cfg.Env, cfg.ID, s.rel), dead: map[protocol.NodeID]bool{}, passed: map[protocol.NodeID]bool{}, recreate: recreate},
		warnErr(reliable.HopWarning(TokenRing, s.rel, cfg.HopDelay))
}

// Step implements protocol.Process: the channel sees every event first.
func (n *tokenRing) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); ok {
		if !n.started {
			n.boot()
		}
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
			if _, member := n.set.ring.Index(d.From); member && d.From != n.id {
				n.receive(d.From, d.Msg)
			}
		}
		return
	}
	switch e := ev.(type) {
	case protocol.Timeout:
		n.timer(e)
	case protocol.Command:
		n.command(e)
	case protocol.Receive:
		if _, raw := e.Msg.(tokenMsg); raw {
			n.env.Logf("%s from %d outside the reliable channel: ignored", e.Msg.Kind(), e.From)
		}
	}
}

// boot starts the channel; the ring's first member, on its first boot
// only, creates the token after start. A recovered node tells its
// predecessor it is back.
func (n *tokenRing) boot() {
	n.started = true
	n.ch.Start()
	_, booted := n.store.Get(tokenStoreKey)
	if err := n.store.Put(tokenStoreKey, []byte("1")); err != nil {
		n.info("stable storage failed: %v (a recovery could create a second token)", err)
	}
	if !booted && n.set.ring.Order()[0] == n.id {
		n.env.SetTimer(n.set.start, tokenTimerStart, 0)
	}
	if booted {
		n.send(n.predecessor(), tokenMsg{Type: tokenRejoin})
	}
	n.armWatch(n.set.start + n.set.timeout)
}

func (n *tokenRing) timer(e protocol.Timeout) {
	switch e.Name {
	case tokenTimerStart:
		if n.gen == 0 {
			n.gen, n.passes = 1, 0
			n.info("token created (generation 1)")
			n.acquire()
		}
	case tokenTimerPass:
		if e.ID == n.pass {
			n.pass = 0
			n.passOn()
		}
	case tokenTimerWatch:
		if e.ID == n.watch {
			n.watch = 0
			n.watchFired()
		}
	}
}

// command handles the workload: a request while the token waits here is
// granted at once; a release passes the token on (at most one entry per
// visit: a request queued meanwhile waits for the next round).
func (n *tokenRing) command(cmd protocol.Command) {
	switch n.c.command(cmd) {
	case askNow:
		if n.has {
			n.cancelPass()
			n.c.enter(fmt.Sprintf("token generation %d here already", n.gen))
		}
	case releaseNow:
		n.c.exit()
		n.passOn()
	}
}

// acquire takes the token: a node that wants the section enters, and
// otherwise keeps the token pass_delay before passing it on.
func (n *tokenRing) acquire() {
	n.has = true
	n.candidate = false
	n.missed = false
	n.armWatch(n.set.timeout)
	if n.c.wants() {
		n.c.enter(fmt.Sprintf("token generation %d", n.gen))
		return
	}
	n.cancelPass()
	n.pass = n.env.SetTimer(n.set.passDelay, tokenTimerPass, 0)
}

// passOn sends the token to the next live successor, unless the section is
// held here (it goes on release) or this node is alone on the ring.
func (n *tokenRing) passOn() {
	if !n.has || n.c.holds() {
		return
	}
	next := n.downstream()
	if next == n.id {
		// Alone: keep it, and enter when asked, or now for a request
		// queued while in the section (no round would bring it back).
		n.cancelPass()
		if n.c.wants() {
			n.c.enter(fmt.Sprintf("token generation %d, alone on the ring", n.gen))
		}
		return
	}
	n.cancelPass()
	n.has = false
	n.sendToken(next, tokenMsg{Type: tokenToken, Gen: n.gen, Pass: n.passes + 1})
}

// receive handles one delivered message.
func (n *tokenRing) receive(from protocol.NodeID, m tokenMsg) {
	if n.dead[from] {
		delete(n.dead, from)
		n.info("node %d is back on the ring", from)
		if n.passed[from] {
			// Before anything else from here reaches it.
			delete(n.passed, from)
			n.tellPassedOver(from)
		}
	}
	switch m.Type {
	case tokenToken:
		n.token(from, m)
	case tokenElection:
		n.election(m)
	case tokenPassedOver:
		n.passedOver(from)
	case tokenRejoin:
		// from is no longer skipped (above); a token kept here while
		// this node was alone moves again.
		if n.has && !n.c.holds() && n.pass == 0 {
			n.pass = n.env.SetTimer(n.set.passDelay, tokenTimerPass, 0)
		}
	default:
		n.env.Logf("message type %d from %d: unknown, ignored", m.Type, from)
	}
}

// token takes a token of the current or a later generation; an older one
// (regenerated meanwhile) is discarded, and so are a second token of the
// generation held here and a copy of a pass seen here already.
func (n *tokenRing) token(from protocol.NodeID, m tokenMsg) {
	switch {
	case m.Gen < n.gen:
		n.info("stale token of generation %d from %d discarded (generation %d is current)", m.Gen, from, n.gen)
		return
	case n.has && m.Gen == n.gen:
		n.info("second token of generation %d from %d discarded", m.Gen, from)
		return
	case n.has:
		n.info("token of generation %d from %d replaces the one of generation %d held here", m.Gen, from, n.gen)
		n.gen, n.passes = m.Gen, m.Pass
		return
	case m.Gen == n.gen && m.Pass <= n.passes:
		n.info("token of generation %d, pass %d, from %d discarded: pass %d came here already", m.Gen, m.Pass, from, n.passes)
		return
	}
	n.gen, n.passes = m.Gen, m.Pass
	n.acquire()
}

// overtaken reports whether m, a token this node sent, has been followed
// here by a later pass of it (or a later generation): the node it went
// to passed it on.
func (n *tokenRing) overtaken(m tokenMsg) bool {
	return m.Gen < n.gen || m.Gen == n.gen && m.Pass <= n.passes
}

// unreachable skips a successor (or predecessor) the channel gave up on:
// what it did not acknowledge (the token, elections, a rejoin) goes to the
// next live node in the same direction, in order. The ring runs on
// without it until it rejoins.
func (n *tokenRing) unreachable(f reliable.Failure[tokenMsg]) {
	n.dead[f.Peer] = true
	n.info("node %d unreachable (%d message(s) unacknowledged): skipped on the ring", f.Peer, len(f.Unacked))
	for _, m := range f.Unacked {
		switch m.Type {
		case tokenRejoin:
			n.send(n.predecessor(), m)
			continue
		case tokenPassedOver:
			n.passed[f.Peer] = true // told when it is back
			continue
		case tokenToken:
			if n.overtaken(m) {
				// The peer passed it on and crashed before its
				// acknowledgement came: sent on, it would be a
				// second token (the property scenario with
				// flooding on the DCF medium, seed 200).
				n.info("token of generation %d, pass %d, to %d dropped: pass %d came here since", m.Gen, m.Pass, f.Peer, n.passes)
				continue
			}
		}
		if next := n.downstream(); next != n.id {
			if m.Type == tokenToken {
				n.sendToken(next, m)
			} else {
				n.send(next, m)
			}
			continue
		}
		// Alone on the ring: the message comes back here.
		switch m.Type {
		case tokenToken:
			n.token(n.id, m)
		case tokenElection:
			if m.ID == n.id {
				n.election(m)
			}
		}
	}
}

// downstream is where the token and elections go: the next live
// successor, except that they keep going to the node they went to last
// while it has not acknowledged them all. A skipped node that rejoins
// between this node and that one would otherwise get later messages while
// earlier ones still wait for the farther node: an election would overtake
// the token, come back to its candidate and make a second token (the
// property test found it, token ring seed 133). Kept in one queue, the
// messages reach the farther node, or on a give-up go on in order to the
// successor.
func (n *tokenRing) downstream() protocol.NodeID {
	if d := n.down; d != protocol.None && d != n.id && !n.dead[d] && n.ch.Unacked(d) > 0 {
		return d
	}
	return n.successor()
}

func (n *tokenRing) successor() protocol.NodeID {
	return n.set.ring.Next(n.id, false, func(x protocol.NodeID) bool { return n.dead[x] })
}

func (n *tokenRing) predecessor() protocol.NodeID {
	return n.set.ring.Next(n.id, true, func(x protocol.NodeID) bool { return n.dead[x] })
}

func (n *tokenRing) send(to protocol.NodeID, m tokenMsg) {
	if to == protocol.None || to == n.id {
		return
	}
	if m.Type == tokenToken || m.Type == tokenElection {
		n.down = to
	}
	n.ch.Send(to, m)
}

func (n *tokenRing) cancelPass() {
	if n.pass != 0 {
		n.env.CancelTimer(n.pass)
		n.pass = 0
	}
}

func (n *tokenRing) armWatch(after time.Duration) {
	if n.watch != 0 {
		n.env.CancelTimer(n.watch)
	}
	n.watch = n.env.SetTimer(after, tokenTimerWatch, 0)
}

func (n *tokenRing) info(format string, args ...any) {
	n.env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: fmt.Sprintf(format, args...)})
}
