package radio

import (
	"math"
	"time"

	"manetlab/internal/geo"
)

// Link probabilities: the ground truth of the trace analysis asks the same
// propagation and loss models that decide receptions how likely a link is
// to be seen by neighbour discovery, instead of taking the mean range for
// the truth (docs/analysis.md, "Ground truth").

// MeanLoss is the long-run probability that the loss model l drops a frame
// over d metres that propagation let through: p for Bernoulli, the
// distance model's probability at d, the stationary loss of
// Gilbert-Elliott (bursts are averaged out), 0 for none or a model it does
// not know.
func MeanLoss(l Loss, d float64) float64 {
	switch m := l.(type) {
	case bernoulli:
		return m.p
	case distanceLoss:
		return m.prob(d)
	case *GilbertElliott:
		return m.StationaryLoss()
	}
	return 0
}

// FrameProb is the probability that one frame sent over d metres is
// received: propagation (with shadowing) times one minus the mean loss.
func (m *Medium) FrameProb(d float64) float64 {
	return m.prop.ReceiveProb(d) * (1 - MeanLoss(m.loss, d))
}

// HellosPerWindow is the number of hellos that neighbour discovery hears
// at the least within its timeout: floor(timeout / period), at least 1.
// A link stays up in discovery while one of them gets through.
func (m *Medium) HellosPerWindow() int {
	p, to := m.cfg.Hello.Period.D(), m.cfg.Hello.Timeout.D()
	if p <= 0 || to <= 0 {
		return 1
	}
	return max(1, int(to/p))
}

// LinkProb is the delivery probability of a link of d metres over the
// neighbour-discovery window: the chance that at least one of the
// HellosPerWindow hellos of the window is received,
// 1 - (1 - FrameProb(d))^k. It is 0 or 1 for a deterministic radio
// (unit disk or no shadowing, no loss) and falls with d.
func (m *Medium) LinkProb(d float64) float64 {
	p := m.FrameProb(d)
	if p <= 0 {
		return 0
	}
	if p >= 1 {
		return 1
	}
	return 1 - math.Pow(1-p, float64(m.HellosPerWindow()))
}

// LinkReach is the distance beyond which LinkProb stays below minProb
// (minProb > 0): a search radius for Links. It never exceeds MaxRange.
func (m *Medium) LinkReach(minProb float64) float64 {
	lo, hi := 0.0, m.maxR
	if m.LinkProb(hi) >= minProb {
		return hi
	}
	for range 60 {
		mid := (lo + hi) / 2
		if m.LinkProb(mid) >= minProb {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// Links calls fn(i, j, p) once for every pair i < j of alive nodes (alive
// nil: all) whose LinkProb p at time t is at least minProb (> 0), in
// ascending order of i. It uses the spatial grid, so it costs about the
// number of such pairs.
func (m *Medium) Links(t time.Duration, alive []bool, minProb float64, fn func(i, j int, p float64)) {
	pos := m.positionsAt(t)
	r := m.LinkReach(minProb)*(1+1e-9) + 1e-9
	// Pairs whose squared distance is clearly beyond r² are skipped
	// without the square root; the bound's margin (1e-6 relative) is far
	// above rounding, so every pair within r is still measured as before.
	far := r * r * (1 + 1e-6)
	m.cgrid.build(pos, alive, r)
	for i := range pos {
		if m.cgrid.cellOf[i] < 0 {
			continue
		}
		x0, x1, y0, y1, ok := m.cgrid.span(pos[i], r)
		if !ok {
			continue
		}
		for y := y0; y <= y1; y++ {
			for _, j := range m.cgrid.row(y, x0, x1) {
				if int(j) <= i {
					continue
				}
				d2 := geo.Dist2(pos[i], pos[j])
				if d2 > far {
					continue
				}
				d := math.Sqrt(d2) // geo.Dist, bit for bit
				if d > r {
					continue
				}
				if p := m.LinkProb(d); p >= minProb {
					fn(i, int(j), p)
				}
			}
		}
	}
}

// LinkProbBetween is LinkProb for nodes a and b at their positions at t
// (1 for a node and itself).
func (m *Medium) LinkProbBetween(a, b int, t time.Duration) float64 {
	if a == b {
		return 1
	}
	return m.LinkProb(geo.Dist(m.position(a, t), m.position(b, t)))
}
