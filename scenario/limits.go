package scenario

import (
	"fmt"
	"math"
	"os"
	"time"

	"manetlab/mobility"
	"manetlab/radio"
)

// The scenario's limits, each with its reason; docs/limits.md lists them
// all. A value past one is refused with its figure and the limit, rather
// than left to overflow, spin or exhaust memory.
const (
	// MaxFileBytes bounds a scenario file: YAML takes about thirty times
	// a document's size to parse (a 50 MB name took 1.5 GB), and a list of
	// 100,000 nodes with positions is about 6 MB.
	MaxFileBytes = 16 << 20
	// MaxNameBytes bounds the scenario's name: it labels runs, directories
	// and every trace header.
	MaxNameBytes = 256
	// MaxAreaSide bounds mobility.area's sides, in metres: 10,000 km, a
	// quarter of the Earth's circumference. A larger arena is a unit
	// mistake, and its coordinates leave the range the models and the
	// radio index are written for.
	MaxAreaSide = 1e7
	// MaxLegs bounds the legs random waypoint would generate, summed over
	// the nodes: 5 million legs of 56 bytes (twice that while the slices
	// grow) is half a gigabyte. Tiny areas with fast nodes and no pause
	// produce legs without end.
	MaxLegs = 5_000_000
	// NodeProcessBytes is what one `manetlab node` process holds at rest
	// (10.6 MB resident, measured in issue 10); `run` starts one per node
	// or per --ids-per-process nodes, plus the mobility player.
	NodeProcessBytes = 11 << 20
)

// validateLimits checks the values whose derived quantities would
// overflow or not finish: the name, the area, random waypoint's legs and
// the hello period against the hop delay.
func (s *Scenario) validateLimits() error {
	if len(s.Name) > MaxNameBytes {
		return fmt.Errorf("name: %d bytes, at most %d", len(s.Name), MaxNameBytes)
	}
	m := &s.Mobility
	for i, v := range m.Area {
		if v > MaxAreaSide {
			return fmt.Errorf("mobility.area[%d]: %g m, at most %g m (10,000 km)", i, v, float64(MaxAreaSide))
		}
	}
	if m.Model == mobility.ModelRandomWaypoint {
		lo, hi := m.Speed[0], m.Speed[1]
		diag := math.Hypot(m.Area[0], m.Area[1])
		if leg := diag / lo; !(leg <= mobility.MaxLeg.Seconds()) {
			return fmt.Errorf("mobility.speed: minimum %g m/s crosses the %g m diagonal in %.3g s, more than the longest leg a duration holds (%.3g s, 146 years)",
				lo, diag, leg, mobility.MaxLeg.Seconds())
		}
		// Legs per node: the run over a leg's typical time (a third of
		// the longer side at the highest speed: an over-estimate of the
		// count, which is what a bound wants) plus the pause.
		per := max(m.Area[0], m.Area[1])/3/hi + m.Pause.D().Seconds()
		legs := float64(s.Nodes.size()) * (s.Duration.D().Seconds()/per + 1)
		if legs > MaxLegs {
			return fmt.Errorf("mobility: random waypoint would generate about %.3g legs (%d nodes, %v, legs of about %.3g s with the pause), at most %d: use a larger area, slower nodes or a pause",
				legs, s.Nodes.size(), s.Duration, per, MaxLegs)
		}
	}
	if err := checkHello(s.Radio); err != nil {
		return err
	}
	return nil
}

// MinHelloPeriod is the shortest hello period: a hello every millisecond
// already doubles the frames of any protocol in these scenarios, and a
// driver cannot keep shorter periods.
const MinHelloPeriod = time.Millisecond

// checkHello refuses hello periods below the hop delay or MinHelloPeriod:
// a node would send hellos faster than one crosses a hop, and the frames
// in flight (the simulator's queue, the node's socket) grow without bound.
func checkHello(r radio.Config) error {
	p := r.Hello.Period.D()
	if lim := max(r.Delay.D(), MinHelloPeriod); p < lim {
		return fmt.Errorf("radio.hello.period: %v is below %v (the hop delay radio.delay %v, and at least %v): hellos would be sent faster than they cross a hop",
			p, lim, r.Delay.D(), MinHelloPeriod)
	}
	return nil
}

// Machine is what this machine can hold: the memory free for a run and
// the processes it may start.
type Machine struct {
	// MemAvailable is /proc/meminfo's MemAvailable, in bytes (0: unknown).
	MemAvailable uint64
	// MaxProcs is the user's process limit (ulimit -u), 0 when unlimited
	// or unknown.
	MaxProcs uint64
	// PidMax is /proc/sys/kernel/pid_max (0: unknown).
	PidMax uint64
}

// CheckProcesses refuses starting n processes of perProc bytes each on
// m: more than the user's process limit (ulimit -u), than pid_max, or
// than the available memory holds.
func CheckProcesses(n int, perProc uint64, m Machine) error {
	type lim struct {
		v   uint64
		why string
	}
	for _, l := range []lim{
		{m.MaxProcs, "the user's process limit (ulimit -u)"},
		{m.PidMax, "the kernel's pid_max"},
		{m.MemAvailable / max(perProc, 1), fmt.Sprintf("what the available memory (%d MiB) holds at %d MiB per process", m.MemAvailable>>20, perProc>>20)},
	} {
		if l.v > 0 && uint64(n) > l.v {
			return fmt.Errorf("processes: %d to start, at most %d: %s (use --ids-per-process to host several nodes per process)", n, l.v, l.why)
		}
	}
	return nil
}

// ReadMachine reads this machine's limits from /proc and getrlimit;
// what it cannot read stays 0 (unknown).
func ReadMachine() Machine {
	var m Machine
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb uint64
		for _, line := range splitLines(b) {
			if n, _ := fmt.Sscanf(line, "MemAvailable: %d kB", &kb); n == 1 {
				m.MemAvailable = kb << 10
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		fmt.Sscanf(string(b), "%d", &m.PidMax)
	}
	m.MaxProcs = maxProcs()
	return m
}

func splitLines(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	return append(out, string(b[start:]))
}
