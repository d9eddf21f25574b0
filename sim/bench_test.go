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
// (user and system) per run.
func BenchmarkFloodMaxStaticGrid(b *testing.B) {
	for _, c := range []struct {
		n   int
		mac string
	}{{100, "ideal"}, {1000, "ideal"}, {1000, "dcf"}} {
		b.Run(fmt.Sprintf("nodes=%d/mac=%s", c.n, c.mac), func(b *testing.B) {
			n := c.n
			y := fmt.Sprintf("duration: 10s\nnodes: {count: %d, placement: grid}\nmobility: {area: [%d, %d]}\nradio: {range: 150, mac: %s}\n", n, 100*isqrt(n), 100*isqrt(n), c.mac)
			benchRun(b, func() *scenario.Scenario { return parseB(b, y) })
		})
	}
}

// BenchmarkStatic10k runs configs/static-10k.yaml (floodmax, 10,000 nodes
// on a grid, 30 s) on each medium: the simulation alone, without the
// loading and the summary of `manetlab sim`. On a shared machine run the
// two alternately and compare their CPU times (docs/performance.md):
//
//	go test ./sim -run X -bench 'Static10k/mac=ideal' -benchtime 1x
//	go test ./sim -run X -bench 'Static10k/mac=dcf' -benchtime 1x
func BenchmarkStatic10k(b *testing.B) {
	for _, mac := range []string{"ideal", "dcf"} {
		b.Run("mac="+mac, func(b *testing.B) {
			benchRun(b, func() *scenario.Scenario {
				s, err := scenario.Load("../configs/static-10k.yaml", []string{"radio.mac=" + mac})
				if err != nil {
					b.Fatal(err)
				}
				return s
			})
		})
	}
}

// BenchmarkStaticScale runs configs/static-10k.yaml, static-100k.yaml and
// static-1m.yaml (floodmax on a grid at one density) on each medium and
// reports the CPU time per event beside events/s: the cost of an event
// as the network grows (docs/performance.md, "Cost per event"). The
// 100,000- and million-node runs need 2 and 5-16 GiB: run one at a time
// (flock /tmp/manetlab-bigmem.lock on a shared machine):
//
//	go test ./sim -run X -bench 'StaticScale/nodes=10k' -benchtime 1x
func BenchmarkStaticScale(b *testing.B) {
	for _, n := range []string{"10k", "100k", "1m"} {
		for _, mac := range []string{"ideal", "dcf"} {
			b.Run("nodes="+n+"/mac="+mac, func(b *testing.B) {
				benchRun(b, func() *scenario.Scenario {
					s, err := scenario.Load("../configs/static-"+n+".yaml", []string{"radio.mac=" + mac})
					if err != nil {
						b.Fatal(err)
					}
					return s
				})
			})
		}
	}
}

// BenchmarkHello runs issue 37's hello-only workload (scripts/ns3/hello.sh:
// static nodes on a grid 100 m apart, a 150 m range, a hello a second, 60 s,
// one beacon) on each medium: the simulation alone, for a profile of what
// the comparison with ns-3 measures.
//
//	go test ./sim -run X -bench 'Hello/nodes=10000/mac=ideal' -benchtime 1x -cpuprofile cpu.prof
func BenchmarkHello(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, mac := range []string{"ideal", "dcf"} {
			b.Run(fmt.Sprintf("nodes=%d/mac=%s", n, mac), func(b *testing.B) {
				side := 100 * isqrt(n)
				y := fmt.Sprintf("seed: 1\nduration: 60s\nnodes: {count: %d, placement: grid}\nradio: {propagation: unit-disk, range: 150, mac: %s}\nmobility: {model: static, area: [%d, %d]}\nprotocol: {name: traffic/beacon, params: {from: [1]}}\n", n, mac, side, side)
				benchRun(b, func() *scenario.Scenario { return parseB(b, y) })
			})
		}
	}
}

// benchRun runs the scenario scen gives b.N times and reports events per
// second and the process's CPU time (user and system) per run: on a
// shared machine the CPU time of two runs taken one after the other
// compares better than their wall times.
func benchRun(b *testing.B, scen func() *scenario.Scenario) {
	var events uint64
	var wall float64
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		s := scen()
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
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(events), "cpu-ns/event")
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
