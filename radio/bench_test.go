package radio

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"manetlab/internal/geo"
)

// gridModel is n static nodes on a square lattice spacing metres apart.
func gridModel(n int, spacing float64) *fakeModel {
	side := int(math.Ceil(math.Sqrt(float64(n))))
	f := &fakeModel{pos: make([]geo.Vec, n)}
	for i := range f.pos {
		f.pos[i] = geo.Vec{X: float64(i%side) * spacing, Y: float64(i/side) * spacing}
	}
	return f
}

// BenchmarkTransmitStatic10k: 10,000 nodes 100 m apart, range 250: about
// 20 receivers per frame.
func BenchmarkTransmitStatic10k(b *testing.B) {
	m := mustMedium(b, defaulted(func(c *Config) { c.Loss.P = 0.1 }), gridModel(10000, 100), 1)
	var out []Reception
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = m.Transmit(i%10000, time.Duration(i)*time.Millisecond, out[:0])
		i += 7919
	}
}

// BenchmarkTransmitMoving1k: 1,000 nodes moving at up to 20 m/s in a
// 3 km square, time advancing 1 ms per frame, unit disk and Bernoulli loss.
func BenchmarkTransmitMoving1k(b *testing.B) {
	benchMoving(b, func(c *Config) { c.Loss.P = 0.1 })
}

// BenchmarkTransmitMoving1kShadowing is the same with 4 dB shadowing: the
// 4-sigma cap makes MaxRange 3.4 times the range, so most of the arena is
// listed (as out-of-range) and costs a draw.
func BenchmarkTransmitMoving1kShadowing(b *testing.B) {
	benchMoving(b, shadowLossy)
}

func benchMoving(b *testing.B, edit func(*Config)) {
	mob := randomModel(rand.New(rand.NewPCG(1, 1)), 1000, 3000, 20)
	m := mustMedium(b, defaulted(edit), mob, 1)
	var out []Reception
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out = m.Transmit(i%1000, time.Duration(i)*time.Millisecond, out[:0])
		i++
	}
}

func BenchmarkComponents10k(b *testing.B) {
	mob := randomModel(rand.New(rand.NewPCG(2, 2)), 10000, 10000, 0)
	m := mustMedium(b, defaulted(nil), mob, 1)
	b.ReportAllocs()
	for b.Loop() {
		m.Components(0, nil)
	}
}

func BenchmarkComponents10kDense(b *testing.B) {
	mob := randomModel(rand.New(rand.NewPCG(2, 2)), 10000, 3000, 10)
	m := mustMedium(b, defaulted(nil), mob, 1)
	b.ReportAllocs()
	for b.Loop() {
		m.Components(time.Second, nil)
	}
}
