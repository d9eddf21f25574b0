package mutex

import (
	"fmt"
	"slices"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// Lamport is the registered name of Lamport's mutual exclusion algorithm.
const Lamport = "mutex/lamport"

func init() {
	protocol.Register(protocol.Spec{
		Name:     Lamport,
		Summary:  "Lamport's mutual exclusion (1978): every member keeps the requests in (timestamp, ID) order; request, reply and release to every member, 3(n-1) messages per entry",
		New:      NewLamport,
		Messages: reliable.Messages[LamportMsg](),
		Goal:     protocol.GoalMutex,
		Commands: []protocol.CommandName{protocol.Request, protocol.Release},
		Complexity: &protocol.Complexity{
			Assumes: "no failures",
		},
		Budget: lamportBudget,
		Mutex: &protocol.MutexCost{
			Messages: "3(n-1)",
			PerEntry: func(n int) (float64, float64) { return float64(3 * (n - 1)), float64(3 * (n - 1)) },
			Delay:    "2(n-1)",
			Problems: "process crash (n points of failure)",
			HiIf:     protocol.Faultless, // package doc, "Message bounds"
		},
	})
}

// lamport is Lamport's algorithm (1978): every member keeps a queue of
// requests ordered by (timestamp, ID). A member that wants the section
// queues its request and sends it to every other member, which queues it
// too and replies. The member enters when its request heads its queue and
// every other member has replied (the channels are FIFO, so an earlier
// request of theirs arrived before their reply). On exit it removes its
// request and sends release to every member, which removes it too.
// Clocks are Lamport clocks: ticked on every send, moved past every
// timestamp received.
type lamport struct {
	*peerNode[LamportMsg]
	clock   uint64
	queue   []lamportStamp // every request heard of and not released, in order
	req     uint64         // this node's outstanding request's timestamp; 0 for none
	replied map[protocol.NodeID]bool
	seen    map[protocol.NodeID]uint64     // the latest request timestamp of each member
	enough  func(replies, others int) bool // LamportEnough, or a broken variant's rule
}

// NewLamport builds a process of Lamport's algorithm. Its parameters are
// the reliable channel's rto and retries.
func NewLamport(cfg protocol.Config) (protocol.Process, error) {
	return NewLamportRule(cfg, LamportEnough)
}

// LamportEnough is Lamport's rule: a member may enter (its request heading
// its queue) once every other member has replied.
func LamportEnough(replies, others int) bool { return replies == others }

// NewLamportRule builds a process of Lamport's algorithm that counts the
// replies as enough to enter when enough says so (NewLamport:
// LamportEnough): a seam for the test-only broken variants of package
// explore/brokentest.
func NewLamportRule(cfg protocol.Config, enough func(replies, others int) bool) (protocol.Process, error) {
	n, err := newPeerNode[LamportMsg](Lamport, cfg)
	if err != nil {
		return nil, err
	}
	p := &lamport{peerNode: n, seen: map[protocol.NodeID]uint64{}, enough: enough}
	n.rules = p
	return p, warnErr(n.warn)
}

func (p *lamport) boot() {}

func (p *lamport) ask() {
	p.clock++
	p.req = p.clock
	p.replied = map[protocol.NodeID]bool{}
	p.insert(lamportStamp{p.req, p.id})
	p.sendAll(LamportMsg{Type: LamportRequest, TS: p.req})
	p.tryEnter()
}

// insert puts s in the queue in order.
func (p *lamport) insert(s lamportStamp) {
	i, _ := slices.BinarySearchFunc(p.queue, s, func(a, b lamportStamp) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	p.queue = slices.Insert(p.queue, i, s)
}

// remove takes s out of the queue and reports whether it was there.
func (p *lamport) remove(s lamportStamp) bool {
	i := slices.Index(p.queue, s)
	if i < 0 {
		return false
	}
	p.queue = slices.Delete(p.queue, i, i+1)
	return true
}

func (p *lamport) tryEnter() {
	if p.wants() && p.enough(len(p.replied), len(p.others)) && len(p.queue) > 0 && p.queue[0] == (lamportStamp{p.req, p.id}) {
		p.enter(fmt.Sprintf("request (%d,%d) heads the queue; %d replies", p.req, p.id, len(p.replied)))
	}
}

func (p *lamport) release() {
	again := p.exit()
	p.remove(lamportStamp{p.req, p.id})
	p.clock++
	p.sendAll(LamportMsg{Type: LamportRelease, TS: p.clock, For: p.req})
	p.req, p.replied = 0, nil
	if again {
		p.ask()
	}
}

func (p *lamport) receive(from protocol.NodeID, m LamportMsg) {
	p.clock = max(p.clock, m.TS) + 1
	switch m.Type {
	case LamportRequest:
		if m.TS <= p.seen[from] {
			p.env.Logf("%s: request %d from %d, not after its last (%d): a duplicate, ignored", p.alg, m.TS, from, p.seen[from])
			return
		}
		if prev := p.seen[from]; prev != 0 && p.remove(lamportStamp{prev, from}) {
			// FIFO channels bring its release first; a member that
			// crashed and came back knows nothing of its old request.
			p.env.Logf("%s: request %d from %d while its request %d was queued: the old one dropped", p.alg, m.TS, from, prev)
		}
		p.seen[from] = m.TS
		p.insert(lamportStamp{m.TS, from})
		p.clock++
		p.send(from, LamportMsg{Type: LamportReply, TS: p.clock, For: m.TS})
		// Queueing a later request never lets this node in; an earlier
		// one keeps it out.
	case LamportReply:
		if !p.wants() || m.For != p.req || p.replied[from] {
			p.env.Logf("%s: reply from %d for request %d while %s with request %d: stale or duplicate, ignored", p.alg, from, m.For, p.state, p.req)
			return
		}
		p.replied[from] = true
		p.tryEnter()
	case LamportRelease:
		if !p.remove(lamportStamp{m.For, from}) {
			p.env.Logf("%s: release of request %d from %d, not queued: ignored", p.alg, m.For, from)
			return
		}
		p.tryEnter()
	default:
		p.env.Logf("%s: message of unknown type %d from %d: ignored", p.alg, m.Type, from)
	}
}
