package rounds

import (
	"fmt"
	"slices"

	"manetlab/protocol"
)

// The beta synchronizer (seed 000). First a spanning tree rooted at the
// smallest member: the root sends sync-tree-join to its neighbours; a node
// joining for the first time takes the sender as parent and sends
// sync-tree-join to its other neighbours; every join is answered with a
// sync-tree-ack saying whether the sender became a child; a node whose
// joins are all answered and whose children all reported sends
// sync-tree-done to its parent; when the root's subtree is done it starts
// round 1. Then every round: the pulse goes down the tree (sync-pulse),
// each node runs the round and sends its envelopes, acknowledged as in
// alpha; a node that is safe and whose children all reported sends
// sync-safe to its parent, saying whether its whole subtree has halted;
// the root starts the next pulse when its subtree is safe, and stops when
// it has halted.

// tree is beta's spanning tree, as this node knows it.
type tree struct {
	root     protocol.NodeID
	joined   bool
	parent   protocol.NodeID
	children []protocol.NodeID
	waiting  map[protocol.NodeID]bool // joins sent, not yet answered
	doneFrom map[protocol.NodeID]bool // children whose subtree is built
	built    bool
}

func (p *proc[T]) treeStart() {
	p.tree.root = p.cfg.Members[0]
	p.tree.waiting = map[protocol.NodeID]bool{}
	p.tree.doneFrom = map[protocol.NodeID]bool{}
	if p.id == p.tree.root {
		p.join(protocol.None)
	}
}

// join makes this node part of the tree under parent (None: the root).
func (p *proc[T]) join(parent protocol.NodeID) {
	p.tree.joined, p.tree.parent = true, parent
	for _, j := range p.nbrs {
		if j != parent {
			p.ch.Send(j, Wire[T]{Type: uint8(wTreeJoin)})
			p.tree.waiting[j] = true
		}
	}
	p.treeCheck()
}

func (p *proc[T]) treeMsg(from protocol.NodeID, t wireType, child bool) {
	if p.set.sync != Beta {
		p.env.Logf("sync: ignoring a tree message from %d: the synchronizer is %s", from, p.set.sync)
		return
	}
	switch t {
	case wTreeJoin:
		if !p.tree.joined && p.id != p.tree.root {
			p.ch.Send(from, Wire[T]{Type: uint8(wTreeAck), Halted: true})
			p.join(from)
			return
		}
		p.ch.Send(from, Wire[T]{Type: uint8(wTreeAck)})
	case wTreeAck:
		if !p.tree.waiting[from] {
			return
		}
		delete(p.tree.waiting, from)
		if child {
			p.tree.children = append(p.tree.children, from)
			slices.Sort(p.tree.children)
		}
		p.treeCheck()
	case wTreeDone:
		p.tree.doneFrom[from] = true
		p.treeCheck()
	}
}

func (p *proc[T]) treeCheck() {
	t := &p.tree
	if !t.joined || t.built || len(t.waiting) > 0 {
		return
	}
	for _, c := range t.children {
		if !t.doneFrom[c] {
			return
		}
	}
	t.built = true
	p.env.Note(protocol.Note{Kind: protocol.NoteSync, Text: fmt.Sprintf("beta tree parent=%d", t.parent)})
	if t.parent == protocol.None {
		p.rootPulse(1)
		return
	}
	p.ch.Send(t.parent, Wire[T]{Type: uint8(wTreeDone)})
}

func (p *proc[T]) betaPulse(from protocol.NodeID, r int) {
	if p.set.sync != Beta || from != p.tree.parent || r != p.pulse+1 {
		p.env.Logf("sync: ignoring pulse %d from %d (parent %d, pulse %d)", r, from, p.tree.parent, p.pulse)
		return
	}
	p.betaRound(r)
}

// betaRound takes part in pulse r: pass it on, run the round.
func (p *proc[T]) betaRound(r int) {
	p.pulse = r
	for _, c := range p.tree.children {
		p.ch.Send(c, Wire[T]{Type: uint8(wPulse), Round: uint32(r)})
	}
	if !p.halted && !p.done {
		p.run(r) // sends through ackedSend, which checks safety
		return
	}
	p.betaCheck()
}

func (p *proc[T]) betaSafe(from protocol.NodeID, r int, halted bool) {
	if !slices.Contains(p.tree.children, from) || r < 1 {
		return
	}
	mark(p.safeFrom, r, from, true)
	mark(p.subHalted, r, from, halted)
	p.betaCheck()
}

// betaCheck reports pulse p.pulse's subtree safe to the parent once this
// node is safe and every child reported; at the root it starts the next
// pulse, or stops when every algorithm has halted.
func (p *proc[T]) betaCheck() {
	r := p.pulse
	if r == 0 || p.safeFrom[r] == nil && len(p.tree.children) > 0 {
		return
	}
	if p.round == r && p.safeRound < r {
		return // it ran this round: its envelopes are not all acknowledged
	}
	all := p.halted
	for _, c := range p.tree.children {
		if !p.safeFrom[r][c] {
			return
		}
		all = all && p.subHalted[r][c]
	}
	delete(p.safeFrom, r)
	delete(p.subHalted, r)
	if p.tree.parent != protocol.None {
		p.ch.Send(p.tree.parent, Wire[T]{Type: uint8(wSafe), Round: uint32(r), Halted: all})
		return
	}
	if all {
		p.done = true
		return
	}
	p.rootPulse(r + 1)
}

// rootPulse starts pulse r at the root; called back from the pulse it
// runs (a root alone is safe at once), it leaves the next one to the
// loop.
func (p *proc[T]) rootPulse(r int) {
	p.nextPulse = r
	if p.pulsing {
		return
	}
	p.pulsing = true
	defer func() { p.pulsing = false }()
	for i := 0; p.nextPulse > 0; i++ {
		if i == maxAlone {
			p.env.Logf("sync: %d pulses in one step and the algorithm still runs: stopping", maxAlone)
			p.done = true
			return
		}
		next := p.nextPulse
		p.nextPulse = 0
		p.betaRound(next)
	}
}
