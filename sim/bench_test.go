package sim

import (
	"fmt"
	"testing"

	"manetlab/scenario"
)

// BenchmarkFloodMaxStaticGrid runs floodmax on a static connected grid,
// 100 m between neighbours and a 150 m range, on the ideal and the DCF
// medium, and reports events per second.
func BenchmarkFloodMaxStaticGrid(b *testing.B) {
	for _, c := range []struct {
		n   int
		mac string
	}{{100, "ideal"}, {1000, "ideal"}, {1000, "dcf"}} {
		b.Run(fmt.Sprintf("nodes=%d/mac=%s", c.n, c.mac), func(b *testing.B) {
			n := c.n
			y := fmt.Sprintf("duration: 10s\nnodes: {count: %d, placement: grid}\nmobility: {area: [%d, %d]}\nradio: {range: 150, mac: %s}\n", n, 100*isqrt(n), 100*isqrt(n), c.mac)
			var events uint64
			var wall float64
			for i := 0; i < b.N; i++ {
				s := parseB(b, y)
				res, err := Run(s, Options{Out: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				wall += res.Wall.Seconds()
			}
			b.ReportMetric(float64(events)/wall, "events/s")
		})
	}
}

// BenchmarkFloodMaxMobile runs floodmax with random waypoint mobility.
func BenchmarkFloodMaxMobile(b *testing.B) {
	y := "duration: 30s\nnodes: {count: 200}\nmobility: {model: random-waypoint, area: [2000, 2000], speed: [1, 10]}\nradio: {range: 250}\n"
	var events uint64
	var wall float64
	for i := 0; i < b.N; i++ {
		res, err := Run(parseB(b, y), Options{Out: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		wall += res.Wall.Seconds()
	}
	b.ReportMetric(float64(events)/wall, "events/s")
}

func isqrt(n int) int {
	r := 1
	for r*r < n {
		r++
	}
	return r
}

func parseB(b *testing.B, y string) *scenario.Scenario {
	s, err := scenario.Parse([]byte(y), "bench.yaml", nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}
