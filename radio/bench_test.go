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

// BenchmarkNearMillion: a million static nodes 100 m apart, range 150 (8
// receivers a frame, static-1m's grid), frames from senders in a random
// order, each sender several times (as hellos do): with the budget of
// remembered receivers as it was (2 M receptions: 1 sender in 4 on this
// grid, the others searching the index at every frame) and as it is (12
// a node: every sender).
func BenchmarkNearMillion(b *testing.B) {
	const n = 1_000_000
	mob := gridModel(n, 100)
	for _, c := range []struct {
		name string
		per  int
	}{{"budget=2M", 0}, {"budget=12/node", 12}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(k int) { nearPerNode = k }(nearPerNode)
			nearPerNode = c.per
			m := mustMedium(b, defaulted(func(c *Config) { c.Range = 150 }), mob, 1)
			var buf []Reception
			rng := rand.New(rand.NewPCG(5, 5))
			for i := range n { // every sender once: what is remembered is
				m.Near(i, 0, &buf)
			}
			received := 0
			b.ResetTimer()
			for b.Loop() {
				received += len(m.Near(rng.IntN(n), 0, &buf))
			}
			b.ReportMetric(float64(received)/float64(b.N), "receivers/frame")
		})
	}
}
