package mutex

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"manetlab/protocol"
	"manetlab/protocol/reliable"

	// The elections the centralized algorithm can embed register
	// themselves; their messages are part of its Spec.Messages.
	_ "manetlab/adhoc"
	_ "manetlab/baseline"
	_ "manetlab/bully"
	_ "manetlab/invitation"
	_ "manetlab/ring"
)

// Centralized is the registered name of the centralized algorithm.
const Centralized = "mutex/centralized"

// CentralElections lists the elections protocol.params.election may name.
// Append only: Spec.Messages lists their messages in this order after the
// algorithm's own, and the wire codec numbers messages by that index.
var CentralElections = []string{
	"bully/garcia-molina",
	"bully/textbook",
	"ring/tanenbaum",
	"ring/chang-roberts",
	"ring/lelann",
	"ring/hirschberg-sinclair",
	"invitation/garcia-molina",
	"adhoc/vasudevan",
	"baseline/floodmax",
}

// DefaultCentralElection is the election that chooses the coordinator when
// protocol.params.election is absent: Garcia-Molina's bully elects the
// highest live ID over reliable multi-hop channels, detects a crashed
// coordinator (its members' Timeout) and survives recoveries with its state
// vector in stable storage, so it elects one coordinator reliably on a
// static multi-hop network and again after the coordinator crashes.
const DefaultCentralElection = "bully/garcia-molina"

// Defaults of the centralized algorithm's own parameters.
const (
	// DefaultCentralCheck is how often the coordinator checks that the
	// holder of the section lives (the reliable channel's acknowledgement
	// of the check answers yes).
	DefaultCentralCheck = 2 * time.Second
)

// Timer names: the reliable channel's and the algorithm's own start with
// centralTimerPrefix, so that every other timer goes to the election.
const (
	centralTimerPrefix = "mutex"
	centralTimerChan   = "mutex"       // the reliable channel (reliable.Config.Timer)
	centralTimerCheck  = "mutex-check" // the coordinator's liveness check of the holder
)

// centralStoreKey keeps the highest term number seen, as decimal text, so
// that a recovered coordinator numbers its term above its earlier ones.
const centralStoreKey = "mutex.centralized.term"

func init() {
	lists := [][]protocol.Message{reliable.Messages[centralMsg]()}
	for _, name := range CentralElections {
		if s, err := protocol.Lookup(name); err == nil {
			lists = append(lists, s.Messages)
		}
	}
	protocol.Register(protocol.Spec{
		Name: Centralized,
		Summary: "centralized mutual exclusion (seed 002): a coordinator, the leader of an embedded election " +
			"(protocol.params.election), grants, queues and releases; request, grant, release: 3 messages per entry",
		New:      NewCentralized,
		Messages: unionMessages(lists...),
		Goal:     protocol.GoalMutex,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release},
		Mutex: &protocol.MutexCost{
			Messages: "3",
			PerEntry: func(int) (float64, float64) { return 0, 3 }, // 0: the coordinator's own entry
			Delay:    "2",
			Problems: "coordinator crash; bottleneck",
			// The per-entry kinds. The embedded election's, and a new
			// coordinator's takeover (inquire, report, outdated: up to
			// 2(n-1) once per term, like the election that precedes
			// it), are counted apart, so that messages per entry is the
			// seed's 3 for a client's entry.
			Kinds: []string{centralKindRequest, centralKindGrant, centralKindRelease, centralKindCheck},
			// At most 3 per request without faults (package doc, "Message
			// bounds"); a long hold adds a check per check period.
			HiIf:      protocol.Faultless,
			Unbounded: []string{centralKindCheck},
		},
	})
}

// centralParams are the centralized algorithm's own parameters.
type centralParams struct {
	rel   reliable.Config
	check time.Duration // 0: no liveness check of the holder
}

// centralized is one node of the centralized algorithm: a client of the
// coordinator it follows, and the coordinator itself while the embedded
// election names this node leader.
type centralized struct {
	env     protocol.Env
	id      protocol.NodeID
	members []protocol.NodeID
	set     centralParams
	store   protocol.Store
	ch      *reliable.Channel[centralMsg]
	elec    *embedded
	c       client

	started bool
	inc     uint64          // this incarnation: Env.Now at Start, in nanoseconds
	maxNum  uint64          // the highest term number seen or used (in stable storage)
	term    centralTerm     // the coordinator this node follows: the newest that inquired
	seq     uint64          // the current request (wanting or holding)
	elected protocol.NodeID // the leader the election noted last
	news    []protocol.NodeID
	co      *centralCoord // non-nil while coordinating
}

// NewCentralized builds a node of mutex/centralized.
func NewCentralized(cfg protocol.Config) (protocol.Process, error) {
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", Centralized, cfg.ID)
	}
	if _, ok := slices.BinarySearch(cfg.Members, cfg.ID); !ok {
		return nil, fmt.Errorf("%s: node %d is not a member (members: %s)", Centralized, cfg.ID, protocol.DescribeIDs(cfg.Members))
	}
	r := cfg.Params.Reader()
	set := centralParams{rel: reliable.ParamsConfig(r), check: r.Duration("check", DefaultCentralCheck)}
	set.rel.Timer = centralTimerChan
	set.rel.RouteDelay = cfg.RouteDelay
	p := &centralized{env: cfg.Env, id: cfg.ID, members: cfg.Members, set: set, store: cfg.Store, c: client{env: cfg.Env}}
	if p.store == nil {
		p.store = &protocol.MemStore{} // tests that build a Config by hand
	}
	elec, err := embedElection(cfg, r, CentralElections, DefaultCentralElection, p.tap)
	warn, legal := protocol.Warned(err)
	if !legal {
		return nil, err
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	p.elec = elec
	p.ch = reliable.New[centralMsg](cfg.Env, cfg.ID, set.rel)
	return p, warnErr(protocol.JoinWarnings(reliable.HopWarning(Centralized, set.rel, cfg.HopDelay), warn))
}

// tap hears the election's notes: a leader note is news for the
// coordinator role, handled once the election's step is over.
func (p *centralized) tap(n protocol.Note) {
	if n.Kind == protocol.NoteLeader {
		p.news = append(p.news, n.Leader)
	}
}

// Step implements protocol.Process. The algorithm's channel sees every
// event first and takes its own messages and timers; requests and
// releases are the algorithm's; every other event (the election's
// messages and timers, elect commands, neighbour events) goes to the
// election.
func (p *centralized) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); ok {
		if !p.started {
			p.boot()
		}
		return
	}
	if !p.started {
		return
	}
	if out, ok := p.ch.Step(ev); ok {
		for _, f := range out.Unreachable {
			p.unreachable(f.Peer, len(f.Unacked))
		}
		for _, d := range out.Delivered {
			if _, member := slices.BinarySearch(p.members, d.From); member && d.From != p.id {
				p.receive(d.From, d.Msg)
			}
		}
		return
	}
	switch e := ev.(type) {
	case protocol.Timeout:
		if strings.HasPrefix(e.Name, centralTimerPrefix) {
			p.timer(e)
			return
		}
	case protocol.Command:
		if e.Name == protocol.Request || e.Name == protocol.Release {
			p.command(e)
			return
		}
	case protocol.Receive:
		if _, raw := e.Msg.(centralMsg); raw {
			p.env.Logf("%s from %d outside the reliable channel: ignored", e.Msg.Kind(), e.From)
			return
		}
	}
	p.elec.proc.Step(ev)
	p.afterElection()
}

func (p *centralized) boot() {
	p.started = true
	p.inc = uint64(p.env.Now())
	if b, ok := p.store.Get(centralStoreKey); ok {
		if n, err := strconv.ParseUint(string(b), 10, 64); err == nil && n < centralMaxTerm {
			p.maxNum = n
		}
	}
	p.ch.Start()
	p.elec.proc.Step(protocol.Start{})
	p.afterElection()
}

// centralMaxTerm bounds the term numbers taken from messages: a larger one is
// corrupt, and the next increment could wrap around.
const centralMaxTerm = 1 << 62

// see raises the highest term number seen.
func (p *centralized) see(num uint64) {
	if num > p.maxNum && num < centralMaxTerm {
		p.maxNum = num
	}
}

// afterElection acts on the leaders the election noted in its last step:
// this node coordinates while the election names it, and stops as soon as
// it names another (or none).
func (p *centralized) afterElection() {
	news := p.news
	p.news = nil
	for _, leader := range news {
		p.elected = leader
		switch {
		case leader == p.id && p.co == nil:
			p.becomeCoordinator()
		case leader != p.id && p.co != nil:
			p.stepDown(fmt.Sprintf("the election names %d", leader))
		}
		if leader != p.id && leader != protocol.None && leader != p.term.Coord && p.c.wants() {
			// A leader that has not inquired of this node (it was
			// unreachable then, or recovered since): the request,
			// in the term this node follows, makes it inquire.
			p.send(leader, p.msg(centralRequest))
		}
	}
}

// receive handles one delivered message of the algorithm.
func (p *centralized) receive(from protocol.NodeID, m centralMsg) {
	if m.Term >= centralMaxTerm {
		p.env.Logf("%s from %d with term %d: corrupt, ignored", m.Kind(), from, m.Term)
		return
	}
	switch m.Type {
	case centralInquire:
		p.see(m.Term)
		p.inquired(from, m)
	case centralGrant:
		p.granted(from, m)
	case centralCheck:
		p.checked(from, m)
	case centralRequest, centralRelease, centralReport, centralOutdated:
		p.see(m.Term)
		if p.co == nil && p.elected == p.id && m.Type == centralRequest && m.Coord != p.id {
			// The election names this node, which stepped down for
			// another's term (supersede), and a client that followed
			// that term asks here: that coordinator is gone for it.
			// Coordinate again; the inquiry collects this request. (A
			// request in this node's own old term is not news: the
			// newer coordinator's inquiry reaches that client.)
			p.becomeCoordinator()
		}
		if p.co == nil {
			p.env.Logf("%s from %d while not coordinating: ignored", m.Kind(), from)
			return
		}
		p.co.receive(from, m)
	default:
		p.env.Logf("message type %d from %d: unknown, ignored", m.Type, from)
	}
}

// unreachable handles a peer the channel gave up on.
func (p *centralized) unreachable(peer protocol.NodeID, unacked int) {
	if p.co != nil {
		p.co.unreachable(peer)
	}
	if peer == p.term.Coord && p.co == nil {
		p.info("coordinator %d unreachable (%d message(s) unacknowledged): waiting for the election to choose another", peer, unacked)
	}
}

func (p *centralized) timer(e protocol.Timeout) {
	if e.Name == centralTimerCheck && p.co != nil {
		p.co.checkTimer(e.ID)
	}
}

func (p *centralized) send(to protocol.NodeID, m centralMsg) {
	if to == protocol.None || to == p.id {
		return
	}
	p.ch.Send(to, m)
}

func (p *centralized) info(format string, args ...any) {
	p.env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: fmt.Sprintf(format, args...)})
}
