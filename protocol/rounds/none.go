package rounds

import (
	"fmt"
	"strconv"

	"manetlab/protocol"
)

// none runs the algorithm with no synchronizer: the asynchronous execution
// of the same code. A node that has a wake round in protocol.params.wake
// wakes when it settles, as round w (its wake round); then every envelope
// that arrives (the messages one neighbour sent in one of its rounds) is
// handed to the algorithm at once as a round of its own, numbered on from
// the node's last: rounds are local counters, not shared time, and rounds
// without messages never happen. A node with no wake round wakes with its
// first envelope. Algorithms that count empty rounds (TimeSlice) or rely
// on messages of one round arriving together (BFS: it may build a tree
// that is not breadth-first) behave differently, which is the point.

func (p *proc[T]) noneStart() {
	w, ok := p.set.wake[p.id]
	if ok {
		p.awake = true
		p.round = w - 1
		p.alg.Start(w, true)
		p.noneRound(nil)
	}
	q := p.queue
	p.queue = nil
	for _, d := range q {
		p.noneDeliver(d.from, d.w)
	}
}

func (p *proc[T]) noneDeliver(from protocol.NodeID, w Wire[T]) {
	if !p.settled {
		p.queue = append(p.queue, delivery[T]{from, w})
		return
	}
	if p.halted || p.done {
		return
	}
	in := make([]In[T], len(w.Msgs))
	for i, m := range w.Msgs {
		in[i] = In[T]{From: from, Msg: m}
	}
	if !p.awake {
		p.awake = true
		p.alg.Start(p.round+1, false)
	}
	p.noneRound(in)
}

// noneRound runs the next local round on in and sends its messages at once.
func (p *proc[T]) noneRound(in []In[T]) {
	r := p.round + 1
	p.round = r
	outs := p.alg.Round(r, in)
	byTo := map[protocol.NodeID][]T{}
	sent := 0
	for _, o := range outs {
		if !p.isNbr[o.To] {
			p.env.Logf("sync: round %d: the algorithm sent a %s to %d, not a neighbour; dropped", r, o.Msg.Kind(), o.To)
			continue
		}
		byTo[o.To] = append(byTo[o.To], o.Msg)
		sent++
	}
	state := "running"
	if p.alg.Halted() {
		state = "halted"
		p.halted, p.haltRound, p.done = true, r, true
	}
	p.env.Note(protocol.Note{Kind: protocol.NoteRound, Epoch: strconv.Itoa(r), Text: fmt.Sprintf("round %d sent=%d state=%s", r, sent, state)})
	for _, to := range p.nbrs {
		if len(byTo[to]) > 0 {
			p.ch.Send(to, Wire[T]{Type: uint8(wBatch), Round: uint32(r), Msgs: byTo[to]})
		}
	}
}
