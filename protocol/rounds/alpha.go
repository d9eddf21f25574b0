package rounds

import (
	"strconv"

	"manetlab/protocol"
)

// The alpha synchronizer (seed 000): a node sends its messages of the
// round (batched per neighbour, no nulls); every envelope is acknowledged
// (sync-ack); once all of its envelopes of the round are acknowledged the
// node is safe and tells every neighbour (sync-safe); it starts round r+1
// when every neighbour is safe for round r. A node whose algorithm halted
// says so in its last sync-safe, and its neighbours stop waiting for it.

// ackedSend sends the round's envelopes that alpha and beta acknowledge.
func (p *proc[T]) ackedSend(r int, byTo map[protocol.NodeID][]T) {
	clear(p.pending)
	for _, j := range p.nbrs {
		if len(byTo[j]) == 0 || p.knownHalted(j, r) {
			continue
		}
		p.ch.Send(j, Wire[T]{Type: uint8(wBatch), Round: uint32(r), Msgs: byTo[j]})
		p.pending[j] = true
	}
	p.checkSafe()
}

// checkSafe makes this node safe for its round once every envelope of the
// round is acknowledged.
func (p *proc[T]) checkSafe() {
	if len(p.pending) > 0 || p.safeRound >= p.round || p.round == 0 {
		return
	}
	p.safeRound = p.round
	p.env.Note(protocol.Note{Kind: protocol.NoteSafe, Epoch: strconv.Itoa(p.round), Text: "safe " + strconv.Itoa(p.round)})
	if p.set.sync == Beta {
		p.betaCheck()
		return
	}
	for _, j := range p.nbrs {
		if !p.knownHalted(j, p.round) {
			p.ch.Send(j, Wire[T]{Type: uint8(wSafe), Round: uint32(p.round), Halted: p.halted})
		}
	}
	if p.halted {
		p.done = true
	}
	p.advance()
}

func (p *proc[T]) alphaSafe(from protocol.NodeID, r int, halted bool) {
	if r < 1 {
		return
	}
	mark(p.safeFrom, r, from, true)
	if halted {
		p.peerHalted[from] = r
	}
	p.advance()
}

func (p *proc[T]) alphaReady(r int) bool {
	if r == 1 {
		return true
	}
	if p.safeRound < r-1 {
		return false
	}
	for _, j := range p.nbrs {
		if !p.knownHalted(j, r-1) && !p.safeFrom[r-1][j] {
			return false
		}
	}
	delete(p.safeFrom, r-1)
	return true
}
