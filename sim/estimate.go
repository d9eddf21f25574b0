package sim

import (
	"math"
	"runtime"
	"syscall"
	"time"

	"github.com/klauspost/compress/zstd"

	"manetlab/internal/units"
	"manetlab/mobility"
	"manetlab/scenario"
	"manetlab/trace"
)

// Estimate is what a simulated run of a scenario is expected to cost,
// predicted before it starts (EstimateRun): the figures `sim`, `run` and
// `sweep` print for a large run and check against the machine and their
// limits (docs/performance.md, "The pre-start estimate").
type Estimate struct {
	Nodes    int
	Duration time.Duration
	// Events is the simulator's queue items.
	Events float64
	// TraceBytes is what the node traces and the run file take on disk.
	TraceBytes float64
	// Recorded is the trace events the summary keeps in memory
	// (Options.Record's).
	Recorded float64
	// SimTime is the simulation's CPU time, SummaryTime the end-of-run
	// summary's after it (on an idle machine the wall time is about the
	// same: the writer and the summary's second pass use the other core).
	SimTime, SummaryTime time.Duration
	// Memory is the peak resident memory of `sim`, in bytes.
	Memory float64
	// Pilot is the short run the figures are extrapolated from.
	Pilot Pilot
}

// Pilot is the short run behind an Estimate: the scenario with at most
// PilotNodes nodes at the same density (a smaller area), for at most
// PilotTime of model time or PilotEvents events, traces encoded and
// counted but not written.
type Pilot struct {
	Nodes   int
	Virtual time.Duration // model time it covered
	Events  uint64
	CPU     time.Duration // its event loop's CPU time
	// Scaled: the pilot had fewer nodes than the scenario (it is scaled
	// up by Nodes / Pilot.Nodes).
	Scaled bool
}

// The pilot's bounds. 4,000 nodes keep the grid's edge (where nodes have
// fewer neighbours) to 6 % of the nodes; PilotTime covers the hello
// period, floodmax's announcement period and its settling delay several
// times; a pilot goes on past it (up to PilotMaxTime) until it has
// PilotMinEvents, so that a run of few nodes is timed on enough events;
// PilotEvents and PilotCPU keep it under about a second (a dense
// network's events cost more: each frame reaches more nodes).
const (
	PilotNodes     = 4000
	PilotTime      = 20 * time.Second
	PilotMaxTime   = time.Hour
	PilotMinEvents = 200_000
	PilotEvents    = 1_500_000
	PilotCPU       = time.Second
)

// A quick pilot comes first: the full pilot's rules with at most
// quickNodes nodes (and a second of half as many) and quickMaxEvents
// events or quickCPU. A run it finds small (quickSmall) keeps its
// figures, so that a small run is not simulated twice and a mid-sized
// one (static-10k: 0.05-0.1 s instead of 0.7-1.4 s) does not pay the
// full pilot; any other gets the full pilot.
const (
	quickNodes     = 500
	quickEvents    = 20_000
	quickMaxEvents = 150_000
	quickCPU       = 100 * time.Millisecond
)

// pilotLimits bound a pilot run: at most nodes nodes; it stops at
// maxEvents events, at cpu of CPU time, or past PilotTime once it has
// minEvents. (Variables, so that a test can make them small and
// independent of the machine's speed.)
type pilotLimits struct {
	nodes                int
	minEvents, maxEvents uint64
	cpu                  time.Duration
}

var (
	fullPilot  = pilotLimits{PilotNodes, PilotMinEvents, PilotEvents, PilotCPU}
	quickPilot = pilotLimits{quickNodes, quickEvents, quickMaxEvents, quickCPU}
)

// quickSmall reports whether a quick estimate is far enough under the
// sizes the CLI prints and checks (30 s, 1 GiB) to stand: half of each.
// The quick pilot of 500 nodes is within 10 % of the full one on
// static-10k and static-100k (events and traces; docs/performance.md).
func (e *Estimate) quickSmall() bool {
	return e.TraceBytes < 512<<20 && e.Memory < 512<<20 && e.SimTime+e.SummaryTime < 15*time.Second
}

// The model's constants, fitted to this machine's runs of static-10k
// (30 s and 120 s) and static-100k on both media (docs/performance.md,
// "The pre-start estimate"): what a run costs beyond the pilot's events.
const (
	// baseBytes is the process at rest; nodeBytes a node's share of the
	// peak (the simulation's node, stack, queue and radio state and the
	// summary's per-node state); recordBytes a recorded event's (the
	// packed recording, 13.5 bytes, and what the summary's analysis
	// builds from it, with the collector's slack).
	baseBytes   = 16 << 20
	nodeBytes   = 4 << 10
	recordBytes = 256
	// summaryNode and summaryRecord are the summary's time per node and
	// per recorded event at 10,000 nodes; summaryGrowth how much more
	// each costs for every tenfold of nodes past that (its per-node maps
	// leave the caches): 0.6 s at 10,000 nodes, 10 s at 100,000.
	summaryNode   = 20 * time.Microsecond
	summaryRecord = 800 * time.Nanosecond
	summaryGrowth = 0.67
	// growth is how much more an event costs each time the node count
	// doubles past the pilot's (the working set leaving the caches), by
	// medium: perEvent(n) = perEvent(pilot) x (1 + growth x log2(n/pilot)).
	growthIdeal = 0.18
	growthDCF   = 0.25
	// runCost is what the real run does per event beyond the pilot's
	// encoding (recording, handing buffers to the writer, its collector),
	// byteCost what writing a byte of trace costs the writer (mostly
	// system time).
	runCost  = 1.3
	byteCost = 2 * time.Nanosecond
)

// EstimateRun predicts the cost of simulating s with its traces kept as
// record keeps them (Options.Record; nil: nothing recorded), from a pilot
// run of s scaled down (Pilot).
func EstimateRun(s *scenario.Scenario, record func(ev string) bool) (*Estimate, error) {
	e, err := estimate(s, record, quickPilot)
	if err != nil || e.quickSmall() {
		return e, err
	}
	return estimate(s, record, fullPilot)
}

// estimate is EstimateRun from pilots bounded by lim.
func estimate(s *scenario.Scenario, record func(ev string) bool, lim pilotLimits) (*Estimate, error) {
	ps, scale := pilotScenario(s, lim.nodes)
	p, err := runPilot(ps, record, lim)
	if err != nil {
		return nil, err
	}
	n := s.Size()
	d := s.Duration.D()
	e := &Estimate{Nodes: n, Duration: d}
	e.Pilot = Pilot{Nodes: ps.Size(), Virtual: p.reached, Events: p.events, CPU: p.cpu, Scaled: scale > 1}
	count := func(p *pilotRun, f func(mark) float64, final uint64) float64 {
		return p.extrapolate(d, f) + float64(final)
	}
	events := func(c mark) float64 { return float64(c.events) }
	bytes := func(c mark) float64 { return float64(c.bytes) }
	recorded := func(c mark) float64 { return float64(c.recorded) }
	e.Events = scale * count(p, events, 0)
	e.TraceBytes = scale * count(p, bytes, p.finalBytes)
	e.Recorded = scale * count(p, recorded, p.finalRecorded)
	if scale > 1 {
		// A second pilot of half the nodes: a node of a larger network
		// costs more, as a smaller share of the nodes are at its edge,
		// with fewer neighbours (the 4,000-node grid has 6 % of its nodes
		// there, a million-node one 0.4 %). That share falls as
		// 1/sqrt(nodes): a per-node count is q - c/sqrt(k), and the two
		// pilots give c.
		hs, _ := pilotScenario(s, lim.nodes/2)
		h, err := runPilot(hs, record, lim)
		if err != nil {
			return nil, err
		}
		edge := (1 - math.Sqrt(1/scale)) / (math.Sqrt2 - 1)
		grow := func(full, half float64) float64 {
			if half <= 0 {
				return 1
			}
			return min(max(1+(full/half-1)*edge, 0.8), 1.6)
		}
		e.Events *= grow(count(p, events, 0), 2*count(h, events, 0))
		e.TraceBytes *= grow(count(p, bytes, p.finalBytes), 2*count(h, bytes, h.finalBytes))
		e.Recorded *= grow(count(p, recorded, p.finalRecorded), 2*count(h, recorded, h.finalRecorded))
		e.Pilot.CPU += h.cpu
	}
	plain := e.TraceBytes
	e.TraceBytes *= p.zratio                  // trace.compress: zstd
	e.TraceBytes += float64(scenarioBytes(s)) // the run file's copy of the scenario, not in the pilot's

	// The simulation's time is the pilot's CPU time carried like its
	// events (the start's transient costs more an event than what
	// follows), scaled up, times what a real run does beyond the pilot
	// and what a larger working set costs.
	cpu := scale * p.extrapolate(d, func(c mark) float64 { return c.cpu.Seconds() }) * runCost
	if g := float64(n) / float64(ps.Size()); g > 1 {
		growth := growthIdeal
		if s.Radio.MAC != "ideal" {
			growth = growthDCF
		}
		cpu *= 1 + growth*math.Log2(g)
	}
	e.SimTime = seconds(cpu + e.TraceBytes*byteCost.Seconds() + plain*p.zcost)
	sum := float64(n)*summaryNode.Seconds() + e.Recorded*summaryRecord.Seconds()
	if n > 10_000 {
		sum *= 1 + summaryGrowth*math.Log10(float64(n)/10_000)
	}
	e.SummaryTime = seconds(sum)
	e.Memory = baseBytes + float64(n)*nodeBytes + e.Recorded*recordBytes
	return e, nil
}

// scenarioBytes is what the scenario adds to the run file's header.
func scenarioBytes(s *scenario.Scenario) int {
	y, err := s.YAML()
	if err != nil {
		return 0
	}
	h := trace.Event{Ev: trace.EvHeader}
	without := len(trace.AppendJSON(nil, &h))
	h.Scenario = string(y)
	return len(trace.AppendJSON(nil, &h)) - without
}

func seconds(s float64) time.Duration {
	if s > float64(math.MaxInt64)/1e9 {
		return math.MaxInt64
	}
	return time.Duration(s * 1e9)
}

// pilotScenario is s with at most k nodes at the same density,
// for at most PilotMaxTime, and the factor its counts are scaled up by. Only
// a scenario of counted nodes placed in an area, static or moving at
// random, without faults or commands naming nodes, is scaled down; any
// other runs whole (within PilotTime and PilotEvents).
func pilotScenario(s *scenario.Scenario, k int) (*scenario.Scenario, float64) {
	ps := *s
	ps.Duration = units.Duration(min(s.Duration.D(), PilotMaxTime))
	n := s.Size()
	m := s.Mobility.Model
	if n <= k || len(s.Nodes.List) > 0 || s.Nodes.Placement == "ring" ||
		(m != mobility.ModelStatic && m != mobility.ModelRandomWaypoint) ||
		len(s.Faults) > 0 || len(s.Workload.Commands) > 0 || len(s.Workload.Nodes) > 0 {
		return &ps, 1
	}
	ps.Nodes.Count = k
	f := math.Sqrt(float64(k) / float64(n))
	ps.Mobility.Area[0] *= f
	ps.Mobility.Area[1] *= f
	return &ps, float64(n) / float64(k)
}

// mark is the pilot's counts at a model time.
type mark struct {
	t                       time.Duration
	events, bytes, recorded uint64
	cpu                     time.Duration // the pilot's CPU time so far
}

type pilotRun struct {
	marks   []mark // every 4,096 events, and where it stopped
	reached time.Duration
	events  uint64
	cpu     time.Duration // the event loop's CPU time
	// finalBytes and finalRecorded are the run's end: the last positions
	// and every node's end event.
	finalBytes, finalRecorded uint64
	// zratio is, with trace.compress: zstd, what the pilot's traces
	// compressed to over what they took plain (1 otherwise), and
	// zcost the CPU seconds compressing a plain byte took.
	zratio, zcost float64
}

// zcount compresses a pilot's traces as the sink does, in chunks of
// flushCombined bytes, each a zstd frame, and counts the bytes in and out.
type zcount struct {
	enc     *zstd.Encoder
	chunk   []byte
	out     []byte
	in, got float64
	// cpu is the thread's CPU time spent compressing: kept out of the
	// simulation's (the writer compresses on its own goroutine, at a
	// cost per byte that does not grow with the network).
	cpu time.Duration
}

func (z *zcount) add(line []byte) {
	z.chunk = append(append(z.chunk, line...), '\n')
	if len(z.chunk) >= flushCombined {
		z.flush()
	}
}

func (z *zcount) flush() {
	if len(z.chunk) == 0 {
		return
	}
	c := threadCPU()
	z.out = z.enc.EncodeAll(z.chunk, z.out[:0])
	z.cpu += threadCPU() - c
	z.in += float64(len(z.chunk))
	z.got += float64(len(z.out))
	z.chunk = z.chunk[:0]
}

// spent is the CPU time compressing so far (0 for no zcount).
func (z *zcount) spent() time.Duration {
	if z == nil {
		return 0
	}
	return z.cpu
}

// ratio is the bytes out over the bytes in (1 with nothing in).
func (z *zcount) ratio() float64 {
	z.flush()
	if z.in == 0 {
		return 1
	}
	return z.got / z.in
}

// runPilot runs ps with its traces encoded and counted, not written.
func runPilot(ps *scenario.Scenario, record func(ev string) bool, lim pilotLimits) (p *pilotRun, err error) {
	w, err := newWorld(ps, Options{Discard: true})
	if err != nil {
		return nil, err
	}
	defer func() {
		if v := recover(); v != nil {
			p, err = nil, w.failed(v) // a process failed: failure.go
		}
	}()
	var bytes, recorded uint64
	var buf []byte
	var z *zcount
	if ps.Trace.Zstd() {
		z = &zcount{enc: newZstd()}
	}
	w.out.observe = func(e *trace.Event) {
		if w.out.leftOut(e) { // a node event the summary level does not write
			return
		}
		buf = trace.AppendJSON(buf[:0], e)
		bytes += uint64(len(buf)) + 1
		if z != nil {
			z.add(buf)
		}
		if record != nil && record(e.Ev) {
			recorded++
		}
	}
	if err := w.begin(); err != nil {
		return nil, err
	}
	p = &pilotRun{reached: w.end} // unless stopped before: nothing more happens until the end
	// The pilot is timed in CPU time of its thread: on a loaded machine
	// its wall time says more of the others than of the run.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	cpu0 := threadCPU()
	for w.q.len() > 0 {
		it := w.q.pop()
		if it.at > w.end {
			break
		}
		if w.res.Events >= lim.maxEvents || (it.at >= PilotTime && w.res.Events >= lim.minEvents) ||
			(w.res.Events%1024 == 0 && threadCPU()-cpu0-z.spent() > lim.cpu) {
			p.reached = it.at // the counts are those before it.at
			break
		}
		if w.res.Events%4096 == 0 {
			p.marks = append(p.marks, mark{it.at, w.res.Events, bytes, recorded, threadCPU() - cpu0 - z.spent()})
		}
		w.now = it.at
		w.res.Events++
		w.dispatch(it)
	}
	p.cpu = threadCPU() - cpu0 - z.spent()
	p.events = w.res.Events
	p.marks = append(p.marks, mark{p.reached, w.res.Events, bytes, recorded, p.cpu})
	b, r := bytes, recorded
	if err := w.finish(start); err != nil {
		return nil, err
	}
	p.finalBytes, p.finalRecorded = bytes-b, recorded-r
	p.zratio = 1
	if z != nil {
		p.zratio = z.ratio()
		p.zcost = z.cpu.Seconds() / max(z.in, 1)
	}
	return p, nil
}

// extrapolate is the count f reads of the pilot carried to model time d:
// within the pilot, the count at the mark at or after d; beyond it, the
// count at its end plus the rate of its second half for the rest (the
// first half holds the start's transient: the first hellos, the
// election).
func (p *pilotRun) extrapolate(d time.Duration, f func(mark) float64) float64 {
	last := p.marks[len(p.marks)-1]
	if d <= last.t || last.t <= 0 {
		return f(last)
	}
	var mid mark // the last mark in the first half; the start if none
	for _, m := range p.marks {
		if m.t <= last.t/2 {
			mid = m
		}
	}
	rate := (f(last) - f(mid)) / (last.t - mid.t).Seconds()
	return f(last) + rate*(d-last.t).Seconds()
}

// threadCPU is the CPU time of the calling thread (user and system), 0
// where it cannot be read.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1, &ru) != nil { // RUSAGE_THREAD
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
