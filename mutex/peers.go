package mutex

import (
	"fmt"
	"slices"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// This file holds what the all-to-all algorithms (Ricart-Agrawala,
// Lamport, Suzuki-Kasami) share: the members, the reliable channel to
// every other member, the client bookkeeping and the event dispatch.

// others returns the members but self, in the members' order.
func others(members []protocol.NodeID, self protocol.NodeID) []protocol.NodeID {
	out := make([]protocol.NodeID, 0, len(members))
	for _, id := range members {
		if id != self {
			out = append(out, id)
		}
	}
	return out
}

// lamportStamp is a request's place in the total order of requests: its
// Lamport timestamp, ties broken by the lower ID.
type lamportStamp struct {
	ts uint64
	id protocol.NodeID
}

// before reports whether a is ordered before b.
func (a lamportStamp) before(b lamportStamp) bool {
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	return a.id < b.id
}

func (a lamportStamp) String() string { return fmt.Sprintf("(%d,%d)", a.ts, a.id) }

// peerMsg is a message type of one of the all-to-all algorithms: it can
// mark a copy of itself as resent.
type peerMsg[T any] interface {
	protocol.Message
	resent() T
}

// peerRules is what an algorithm adds to peerNode.
type peerRules[T any] interface {
	// boot runs on protocol.Start, after the channel started.
	boot()
	// ask starts a request: the client is now wanting.
	ask()
	// release leaves the section: the client holds it. It calls exit.
	release()
	// receive handles one message the channel delivered from a member.
	receive(from protocol.NodeID, m T)
}

// peerNode is one member of an all-to-all algorithm: the reliable FIFO
// channel to every other member, over Env.Deliver, and the client
// bookkeeping. The channel sees every event first.
type peerNode[T peerMsg[T]] struct {
	client
	alg     string
	id      protocol.NodeID
	members []protocol.NodeID // ascending
	others  []protocol.NodeID // ascending, without id
	ch      *reliable.Channel[T]
	rules   peerRules[T]
	started bool
	// unreachable lists the peers the channel gave up on and that have not
	// been heard from since, so that each loss is noted once.
	unreachable map[protocol.NodeID]bool
	// warn is New's warning about the parameters (an rto shorter than a
	// few hop times), nil for none.
	warn *protocol.Warning
}

func newPeerNode[T peerMsg[T]](alg string, cfg protocol.Config) (*peerNode[T], error) {
	if cfg.Env == nil {
		return nil, fmt.Errorf("%s: node %d: no Env", alg, cfg.ID)
	}
	rel, err := peerParams(alg, cfg.Params)
	if err != nil {
		return nil, err
	}
	rel.RouteDelay = cfg.RouteDelay
	if !slices.Contains(cfg.Members, cfg.ID) {
		return nil, fmt.Errorf("%s: node %d is not a member (members: %v)", alg, cfg.ID, cfg.Members)
	}
	members := slices.Clone(cfg.Members)
	slices.Sort(members)
	return &peerNode[T]{
		client:      client{env: cfg.Env},
		alg:         alg,
		id:          cfg.ID,
		members:     members,
		others:      others(members, cfg.ID),
		ch:          reliable.New[T](cfg.Env, cfg.ID, rel),
		unreachable: map[protocol.NodeID]bool{},
		warn:        reliable.HopWarning(alg, rel, cfg.HopDelay),
	}, nil
}

// warnErr returns w as an error, or a nil error for a nil w (a nil
// *Warning in an error interface is not nil).
func warnErr(w *protocol.Warning) error {
	if w == nil {
		return nil
	}
	return w
}

// Step implements protocol.Process.
func (n *peerNode[T]) Step(ev protocol.Event) {
	if _, ok := ev.(protocol.Start); ok {
		if !n.started {
			n.started = true
			n.ch.Start()
			n.rules.boot()
		}
		return
	}
	if !n.started {
		return
	}
	if r, ok := ev.(protocol.Receive); ok && (r.From == n.id || r.From == protocol.None) {
		// Drivers never deliver such frames; a forged one would make the
		// channel acknowledge to itself or to nobody.
		n.env.Logf("%s: %T from %d: not from another node, ignored", n.alg, r.Msg, r.From)
		return
	}
	if out, ok := n.ch.Step(ev); ok {
		for _, f := range out.Unreachable {
			n.giveUp(f)
		}
		for _, d := range out.Delivered {
			if _, member := slices.BinarySearch(n.others, d.From); !member {
				n.env.Logf("%s: %s from %d, not a member: ignored", n.alg, d.Msg.Kind(), d.From)
				continue
			}
			if n.unreachable[d.From] {
				delete(n.unreachable, d.From)
				n.env.Logf("%s: node %d answers again", n.alg, d.From)
			}
			n.rules.receive(d.From, d.Msg)
		}
		return
	}
	if e, ok := ev.(protocol.Command); ok {
		switch n.command(e) {
		case askNow:
			n.rules.ask()
		case releaseNow:
			n.rules.release()
		}
	}
}

// send sends m to one other member.
func (n *peerNode[T]) send(to protocol.NodeID, m T) { n.ch.Send(to, m) }

// sendAll sends m to every other member.
func (n *peerNode[T]) sendAll(m T) {
	for _, to := range n.others {
		n.ch.Send(to, m)
	}
}

// giveUp handles a peer the channel gave up on. The algorithms assume
// reliable channels and no crashes, and a missing reply or token is never
// made up: the unacknowledged messages are sent again, marked resent (a
// transport repeat, counted apart), in a new session, and the receivers
// ignore what they already had. Under a partition this repairs the loss
// once the peer is reachable again; a crashed peer blocks the algorithm,
// as the theory says (its problem column), and the run lies outside its
// assumptions.
func (n *peerNode[T]) giveUp(f reliable.Failure[T]) {
	if !n.unreachable[f.Peer] {
		n.unreachable[f.Peer] = true
		n.env.Note(protocol.Note{Kind: protocol.NoteInfo, Text: fmt.Sprintf(
			"node %d did not acknowledge %d message(s): unreachable, outside the algorithm's assumptions (no failures); sending them again",
			f.Peer, len(f.Unacked))})
	}
	n.env.Logf("%s: node %d unreachable, %d message(s) sent again", n.alg, f.Peer, len(f.Unacked))
	for _, m := range f.Unacked {
		n.ch.Send(f.Peer, m.resent())
	}
}
