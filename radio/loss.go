package radio

import (
	"fmt"
	"math/rand/v2"
)

// Loss decides whether a frame that propagation let through is lost
// anyway. Loss models with state (Gilbert-Elliott) keep it per directed
// link and are not safe for concurrent use.
type Loss interface {
	// Lost reports whether the frame from node from to node to, over d
	// metres, is lost. Every call draws from rng the same number of times
	// whatever the outcome, so one changed outcome does not shift the
	// draws of every later frame.
	Lost(from, to int, d float64, rng *rand.Rand) bool
}

// NewLoss builds the loss model of c (after Defaults).
func NewLoss(c Config) (Loss, error) {
	l := c.Loss
	switch l.Model {
	case LossNone:
		return noLoss{}, nil
	case LossBernoulli:
		return bernoulli{p: l.P}, nil
	case LossDistance:
		return distanceLoss{p: l.P, start: l.Start * c.Range, end: c.Range}, nil
	case LossGilbert:
		lossBad := DefaultLossBad
		if l.LossBad != nil {
			lossBad = *l.LossBad
		}
		return &GilbertElliott{GoodToBad: l.GoodToBad, BadToGood: l.BadToGood,
			LossGood: l.LossGood, LossBad: lossBad, bad: map[uint64]struct{}{}}, nil
	}
	return nil, fmt.Errorf("radio.loss.model: %q is unknown (allowed: %s, %s, %s, %s)",
		l.Model, LossNone, LossBernoulli, LossDistance, LossGilbert)
}

type noLoss struct{}

func (noLoss) Lost(int, int, float64, *rand.Rand) bool { return false }

// bernoulli loses every frame independently with probability p.
type bernoulli struct{ p float64 }

func (b bernoulli) Lost(_, _ int, _ float64, rng *rand.Rand) bool { return rng.Float64() < b.p }

// distanceLoss loses nothing up to start metres, then with a probability
// rising linearly to p at end (the range) and staying at p beyond, where
// only shadowing can carry a frame.
type distanceLoss struct{ p, start, end float64 }

func (m distanceLoss) prob(d float64) float64 {
	switch {
	case d <= m.start:
		return 0
	case d >= m.end:
		return m.p
	}
	return m.p * (d - m.start) / (m.end - m.start)
}

func (m distanceLoss) Lost(_, _ int, d float64, rng *rand.Rand) bool {
	return rng.Float64() < m.prob(d)
}

// GilbertElliott is the two-state bursty loss model, one chain per
// directed link. Every link starts in the good state; its state advances
// once per frame that reaches the loss stage on that link: the frame is
// lost with the current state's probability, then the state moves.
type GilbertElliott struct {
	GoodToBad, BadToGood float64 // transition probabilities per frame
	LossGood, LossBad    float64 // loss probability in each state
	// bad holds the links now in the bad state, keyed by linkKey; links in
	// the good state take no memory.
	bad map[uint64]struct{}
}

func linkKey(from, to int) uint64 { return uint64(uint32(from))<<32 | uint64(uint32(to)) }

// Lost draws twice from rng: once for the loss, once for the transition.
func (g *GilbertElliott) Lost(from, to int, _ float64, rng *rand.Rand) bool {
	if g.bad == nil {
		g.bad = map[uint64]struct{}{}
	}
	k := linkKey(from, to)
	_, isBad := g.bad[k]
	p := g.LossGood
	if isBad {
		p = g.LossBad
	}
	lost := rng.Float64() < p
	move := rng.Float64()
	switch {
	case isBad && move < g.BadToGood:
		delete(g.bad, k)
	case !isBad && move < g.GoodToBad:
		g.bad[k] = struct{}{}
	}
	return lost
}

// StationaryLoss is the long-run loss rate: the chain spends
// GoodToBad/(GoodToBad+BadToGood) of the frames in the bad state.
func (g *GilbertElliott) StationaryLoss() float64 {
	if g.GoodToBad+g.BadToGood == 0 {
		return g.LossGood // never leaves the good state it starts in
	}
	piBad := g.GoodToBad / (g.GoodToBad + g.BadToGood)
	return piBad*g.LossBad + (1-piBad)*g.LossGood
}
