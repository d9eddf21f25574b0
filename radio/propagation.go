package radio

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// speedOfLight in metres per second, for the wavelength.
const speedOfLight = 299792458.0

// ShadowingCap is how many standard deviations of shadowing are allowed at
// most: the Gaussian is truncated to ±ShadowingCap·sigma so that MaxRange
// is a true bound (the mass cut off, 6.3e-5, is negligible) and the spatial
// index never misses a receiver.
const ShadowingCap = 4.0

// Propagation decides whether a frame crosses a distance. Implementations
// are immutable; all randomness comes from the caller's rng.
type Propagation interface {
	// Receive reports whether a frame sent over d metres is heard. It
	// draws from rng when the model is random (shadowing), once per call.
	Receive(d float64, rng *rand.Rand) bool
	// InRange reports whether the mean received power at d reaches the
	// threshold: deterministic, for ground-truth connectivity.
	InRange(d float64) bool
	// Range is the distance up to which InRange holds.
	Range() float64
	// ReceiveProb is the probability that Receive lets a frame over d
	// metres through: 0 or 1 for a deterministic model.
	ReceiveProb(d float64) float64
	// MaxRange bounds Receive: beyond it nothing is ever received.
	MaxRange() float64
	// Power is the mean received power at d metres in dBm (unit-disk:
	// the transmit power, at every distance).
	Power(d float64) float64
}

// NewPropagation builds the propagation model of c (after Defaults).
func NewPropagation(c Config) (Propagation, error) {
	switch c.Propagation {
	case UnitDisk:
		return unitDisk{r: c.Range, p: c.TxPower}, nil
	case LogDistance:
		return newLogDistance(c), nil
	case TwoRay:
		return newTwoRay(c), nil
	}
	return nil, fmt.Errorf("radio.propagation: %q is unknown (allowed: %s, %s, %s)", c.Propagation, UnitDisk, LogDistance, TwoRay)
}

// unitDisk receives exactly up to its range.
type unitDisk struct{ r, p float64 }

func (u unitDisk) Power(float64) float64 { return u.p }

func (u unitDisk) Receive(d float64, _ *rand.Rand) bool { return d <= u.r }
func (u unitDisk) InRange(d float64) bool               { return d <= u.r }
func (u unitDisk) ReceiveProb(d float64) float64        { return step(d <= u.r) }
func (u unitDisk) Range() float64                       { return u.r }
func (u unitDisk) MaxRange() float64                    { return u.r }

// friisLoss1m is the free-space path loss at one metre in dB, with unity
// antenna gains: 20·log10(4π/λ).
func friisLoss1m(freq float64) float64 {
	return 20 * math.Log10(4*math.Pi*freq/speedOfLight)
}

// logDistance is PL(d) = PL(1m) + 10·n·log10(d), with optional log-normal
// shadowing. Receiving is compared in distance terms (margin in dB against
// the mean range) so InRange is exact at the range without rounding.
type logDistance struct {
	txPower, pl0, n float64
	thr             float64 // receive threshold in dBm
	r               float64 // distance where the mean power equals thr
	sigma           float64 // shadowing in dB
	maxR            float64
}

func newLogDistance(c Config) *logDistance {
	m := &logDistance{txPower: c.TxPower, pl0: friisLoss1m(c.Frequency), n: c.Exponent, sigma: c.Shadowing}
	if c.Threshold == nil {
		m.r = c.Range
		m.thr = m.meanPower(c.Range)
	} else {
		m.thr = *c.Threshold
		m.r = math.Pow(10, (m.txPower-m.pl0-m.thr)/(10*m.n))
	}
	// Beyond maxR the mean margin is below -cap·sigma, which the truncated
	// shadowing can never make up.
	m.maxR = m.r * math.Pow(10, ShadowingCap*m.sigma/(10*m.n))
	return m
}

// meanPower is the mean received power in dBm at d metres.
func (m *logDistance) meanPower(d float64) float64 {
	return m.txPower - m.pl0 - 10*m.n*math.Log10(d)
}

func (m *logDistance) Receive(d float64, rng *rand.Rand) bool {
	if m.sigma == 0 {
		return d <= m.r
	}
	x := rng.NormFloat64()
	x = max(-ShadowingCap, min(ShadowingCap, x))
	margin := 10 * m.n * math.Log10(m.r/d)
	return margin+x*m.sigma >= 0
}

func (m *logDistance) InRange(d float64) bool { return d <= m.r }

// ReceiveProb is P(margin + X·sigma >= 0) for the standard normal X
// clamped to ±ShadowingCap, as Receive draws it.
func (m *logDistance) ReceiveProb(d float64) float64 {
	if m.sigma == 0 {
		return step(d <= m.r)
	}
	z := -10 * m.n * math.Log10(m.r/d) / m.sigma // X must reach z
	switch {
	case z <= -ShadowingCap:
		return 1
	case z > ShadowingCap:
		return 0
	}
	return 0.5 * math.Erfc(z/math.Sqrt2)
}
func (m *logDistance) Range() float64 { return m.r }
func (m *logDistance) Power(d float64) float64 {
	return m.meanPower(max(d, 1))
}
func (m *logDistance) MaxRange() float64 { return m.maxR }

// twoRay is the two-ray ground model: free-space Friis up to the crossover
// distance 4π·ht·hr/λ and Pt·ht²·hr²/d⁴ beyond it (unity gains, both
// antennas at the same height). The two meet at the crossover, so the mean
// power falls monotonically and a threshold maps to one distance.
type twoRay struct {
	txPower, h, lambda float64
	cross              float64 // crossover distance in metres
	thr, r             float64
}

func newTwoRay(c Config) *twoRay {
	lambda := speedOfLight / c.Frequency
	m := &twoRay{txPower: c.TxPower, h: c.AntennaHeight, lambda: lambda}
	m.cross = 4 * math.Pi * m.h * m.h / lambda
	if c.Threshold == nil {
		m.r = c.Range
		m.thr = m.meanPower(c.Range)
		return m
	}
	m.thr = *c.Threshold
	if m.thr >= m.meanPower(m.cross) {
		// Friis: Pt + 20·log10(λ/(4πd)) = thr.
		m.r = lambda / (4 * math.Pi) * math.Pow(10, (m.txPower-m.thr)/20)
	} else {
		// Two-ray: Pt + 20·log10(ht·hr) - 40·log10(d) = thr.
		m.r = m.h * math.Pow(10, (m.txPower-m.thr)/40)
	}
	return m
}

// meanPower is the received power in dBm at d metres.
func (m *twoRay) meanPower(d float64) float64 {
	if d <= m.cross {
		return m.txPower + 20*math.Log10(m.lambda/(4*math.Pi*d))
	}
	return m.txPower + 20*math.Log10(m.h*m.h) - 40*math.Log10(d)
}

func (m *twoRay) Receive(d float64, _ *rand.Rand) bool { return d <= m.r }
func (m *twoRay) InRange(d float64) bool               { return d <= m.r }
func (m *twoRay) ReceiveProb(d float64) float64        { return step(d <= m.r) }
func (m *twoRay) Range() float64                       { return m.r }
func (m *twoRay) Power(d float64) float64              { return m.meanPower(max(d, 1e-3)) }
func (m *twoRay) MaxRange() float64                    { return m.r }

// step is 1 for true, 0 for false.
func step(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
