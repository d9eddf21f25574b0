package rounds

import "manetlab/protocol"

// The simple synchronizer (seed 000): in every round a node sends each
// neighbour exactly one envelope, its messages of the round batched, or an
// empty one (sync-null); it starts round r+1 when it holds round r's
// envelope from every neighbour. The envelope of a node's last round
// (its algorithm halted) says so; its neighbours stop waiting for it and
// sending to it.

func (p *proc[T]) simpleReady(r int) bool {
	if r == 1 {
		return true
	}
	for _, j := range p.nbrs {
		if !p.knownHalted(j, r-1) && !p.got[r-1][j] {
			return false
		}
	}
	return true
}

func (p *proc[T]) simpleSend(r int, byTo map[protocol.NodeID][]T) {
	for _, j := range p.nbrs {
		if p.knownHalted(j, r) {
			continue
		}
		p.ch.Send(j, Wire[T]{Type: uint8(wBatch), Round: uint32(r), Halted: p.halted, Msgs: byTo[j]})
	}
	if p.halted {
		p.done = true
	}
}
