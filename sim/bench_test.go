package sim

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"manetlab/scenario"
)

// BenchmarkFloodMaxStaticGrid runs floodmax on a static connected grid,
// 100 m between neighbours and a 150 m range, on the ideal and the DCF
// medium, and reports events per second and the process's CPU time
// (user and system) per run: on a shared machine the CPU time of the two
// media, taken one after the other, compares better than their wall
// times (-bench 'StaticGrid/nodes=10000' is configs/static-10k.yaml for
// 10 s; docs/performance.md).
func BenchmarkFloodMaxStaticGrid(b *testing.B) {
	for _, c := range []struct {
		n   int
		mac string
	}{{100, "ideal"}, {1000, "ideal"}, {1000, "dcf"}, {10000, "ideal"}, {10000, "dcf"}} {
		b.Run(fmt.Sprintf("nodes=%d/mac=%s", c.n, c.mac), func(b *testing.B) {
			n := c.n
			y := fmt.Sprintf("duration: 10s\nnodes: {count: %d, placement: grid}\nmobility: {area: [%d, %d]}\nradio: {range: 150, mac: %s}\n", n, 100*isqrt(n), 100*isqrt(n), c.mac)
			var events uint64
			var wall float64
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				s := parseB(b, y)
				out := b.TempDir()
				c0 := cpuTime(b)
				res, err := Run(s, Options{Out: out})
				cpu += cpuTime(b) - c0
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				wall += res.Wall.Seconds()
			}
			b.ReportMetric(float64(events)/wall, "events/s")
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
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

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
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
