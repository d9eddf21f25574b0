package rounds

import (
	"time"
)

// The abd synchronizer (asynchronous bounded delay, seed 000): a node
// begins round 1 when it settles or when the start flood reaches it,
// whichever is first (a node that hears the flood while still settling
// begins when it settles), and sends sync-start to every neighbour once;
// then it begins round r+1 at 2d·r of its local time after round 1. There
// are no acknowledgements of its own: with every delay below d (and
// starts less than d apart), round r's messages arrive before round r+1.
// A message that arrives later is noted (NoteLate: sender, round, how
// late) and dropped: the run shows where the bound broke.

func (p *proc[T]) abdStart() {
	if p.started || !p.settled || p.set.sync != ABD {
		return
	}
	p.started = true
	p.startAt = p.env.Now()
	for _, j := range p.nbrs {
		p.ch.Send(j, Wire[T]{Type: uint8(wStart)})
	}
	p.run(1)
	p.armPulse()
}

func (p *proc[T]) armPulse() {
	if p.halted {
		p.done = true
		return
	}
	next := p.startAt + time.Duration(p.round)*2*p.set.d
	p.env.SetTimer(max(next-p.env.Now(), 0), timerPulse, 0)
}

func (p *proc[T]) abdPulse() {
	if !p.started || p.halted {
		return
	}
	p.run(p.round + 1)
	p.armPulse()
}
