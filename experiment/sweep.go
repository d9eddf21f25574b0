// Package experiment runs grids of simulations — every combination of
// scenario overrides, over several seeds — and tabulates their metrics, so
// that algorithms can be compared side by side on the same radio, the same
// mobility and the same faults.
//
// It sits above the simulator: it imports scenario, sim and trace/report.
package experiment

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"manetlab/internal/safefs"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/report"
)

// Axis is one varied scenario field and its values (YAML scalars).
type Axis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// ParseAxis reads "path=v1|v2|v3". Values are separated by '|' because
// commas belong to YAML lists ("mobility.speed=[1,3]|[1,19]").
func ParseAxis(s string) (Axis, error) {
	path, vals, ok := strings.Cut(s, "=")
	if !ok || path == "" || vals == "" {
		return Axis{}, fmt.Errorf("--vary %q: want path=value1|value2|...", s)
	}
	return Axis{Path: path, Values: strings.Split(vals, "|")}, nil
}

// Options describe a sweep.
type Options struct {
	Scenario string   // scenario file
	Sets     []string // fixed overrides applied to every run
	Axes     []Axis
	Seeds    int    // seeds 1..Seeds for every grid point
	Out      string // traces go to Out/<point>/seed<N>
	Workers  int    // concurrent simulations (default 2)
	Progress func(done, total int)
	// Version is written in every run's record (`manetlab version`).
	Version string
	// TempDir holds the traces of runs whose traces are not kept (Out
	// empty); default os.TempDir.
	TempDir string
	// TracesByID names the trace directories by run id (Out/<id>)
	// rather than point and seed.
	TracesByID bool
	// Check, when not nil, sees every grid point's scenario (of seed 1)
	// before any run starts; its error stops the sweep (the CLI's
	// pre-start estimate).
	Check func(points []*scenario.Scenario) error
}

// Point is one combination of axis values with its results over seeds.
type Point struct {
	Values []string `json:"values"` // one per axis, in axis order
	Runs   int      `json:"runs"`
	// Runs by final verdict (docs/analysis.md, "Run summary"): valid,
	// invalid (a settled component with a wrong leader, or overlapping
	// critical sections) and unsettled (components changed too recently
	// to judge); the other verdicts (stalled, unknown) are in none.
	Valid     int `json:"valid"`
	Invalid   int `json:"invalid"`
	Unsettled int `json:"unsettled"`
	// Mean and standard deviation over seeds of each metric; a metric
	// a protocol does not define is absent.
	Mean map[string]float64 `json:"mean"`
	SD   map[string]float64 `json:"sd"`
	// Theory names the bound behind complexity.bound (the first seed's
	// that has one); nil when the protocol has no complexity.
	Theory *Theory `json:"theory,omitempty"`
}

// Theory names a protocol's theoretical message count (protocol.Bound).
type Theory struct {
	Name    string `json:"name"`    // "n(n+1)/2 worst case"
	Formula string `json:"formula"` // "n(n+1)/2"
}

// Result is a whole sweep.
type Result struct {
	Scenario string  `json:"scenario"` // the scenario's name
	Axes     []Axis  `json:"axes"`
	Seeds    int     `json:"seeds"`
	Points   []Point `json:"points"`
}

// MetricNames are the metrics a sweep tabulates, in column order; leader
// is the share of live node-time with a leader; messages counts the
// messages the protocols sent (not frames: relays, retransmissions and
// acknowledgements apart), frames every transmission of them (relays
// included) plus the link layer's acknowledgements and retransmissions
// and the routing protocol's control frames (hellos apart), and
// frames_per_election divides them by the elections the protocol noted;
// for mutual exclusion, mutex.frames_per_entry divides frames by the
// entries. The complexity metrics
// (analysis.Complexity) exist only for protocols whose counts theory
// predicts: the election's, announcement's, transport's and control
// messages, the election time in seconds, and theory for this run: the
// bound's formula for this n, the exact count for the arrangement, the
// best and worst over all arrangements (each where theory gives one).
//
// The mutex metrics (analysis.MutexMetrics) exist only for runs with
// critical sections: messages per entry, the synchronisation delay in
// seconds and in messages, the waiting time's mean and 95th percentile in
// seconds, entries per second, overtakes, Jain's index, requests still
// waiting at the end, entries, violations of mutual exclusion, and theory's
// least and most messages per entry for n (theory_hi absent when
// unbounded).
//
// Round protocols (protocol/rounds) add T_S, the synchronizer's and the
// tree's messages, the synchronizer's messages by its counting rule
// (sync_exact), the measured M_A and the seed's M_A evaluated
// (docs/protocols/synchronizers.md).
var MetricNames = []string{"F", "leader", "R", "T", "M_bcast", "M_ucast", "wrong_or_unknown", "messages", "frames", "frames_per_election",
	"complexity.messages", "complexity.announce", "complexity.transport", "complexity.control", "complexity.time",
	"complexity.bound", "complexity.exact", "complexity.best", "complexity.worst",
	"complexity.rounds", "complexity.sync_messages", "complexity.sync_exact", "complexity.tree_messages", "complexity.m_a", "complexity.m_a_bound",
	"mutex.messages_per_entry", "mutex.sync_delay", "mutex.sync_messages", "mutex.waiting_mean", "mutex.waiting_p95",
	"mutex.throughput", "mutex.overtakes", "mutex.jain", "mutex.waiting_at_end", "mutex.entries", "mutex.violations",
	"mutex.theory_lo", "mutex.theory_hi", "mutex.frames_per_entry"}

// sample is one run's measurements.
type sample struct {
	metrics map[string]float64
	verdict string
	theory  *Theory
}

// Run performs the sweep on this machine, the traces under Out.
func Run(opt Options) (*Result, error) {
	res, _, err := RunRecords(opt)
	return res, err
}

// RunRecords performs the sweep and also returns every run's record, in
// plan order.
func RunRecords(opt Options) (*Result, []*Record, error) {
	p, err := NewPlan(opt)
	if err != nil {
		return nil, nil, err
	}
	recs := make([]*Record, len(p.Runs))
	idx := make([]int, len(p.Runs))
	for i := range idx {
		idx[i] = i
	}
	// Validate every combination before spending time on any run.
	if err := p.load(idx); err != nil {
		return nil, nil, err
	}
	if opt.Check != nil {
		var first []*scenario.Scenario
		for i := range p.Runs {
			if p.Runs[i].Seed == 1 {
				first = append(first, p.Runs[i].s)
			}
		}
		if err := opt.Check(first); err != nil {
			return nil, nil, err
		}
	}
	err = p.execute(opt, idx, func(i int, r *Record) error {
		if r.Error != "" {
			return errors.New(r.Error)
		}
		recs[i] = r
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return p.result(recs), recs, nil
}

// execute runs the plan's runs idx on opt.Workers workers and hands each
// record to done (under a lock) as it ends; the first error done returns
// stops the sweep after the runs under way.
func (p *Plan) execute(opt Options, idx []int, done func(i int, r *Record) error) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = 2
	}
	var mu sync.Mutex
	var firstErr error
	n := 0
	cpu := newCPUMeter()
	ch := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				r := p.runOne(opt, i, cpu)
				mu.Lock()
				if err := done(i, r); err != nil && firstErr == nil {
					firstErr = err
				}
				n++
				if opt.Progress != nil {
					opt.Progress(n, len(idx))
				}
				mu.Unlock()
			}
		}()
	}
	for _, i := range idx {
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		ch <- i
	}
	close(ch)
	wg.Wait()
	return firstErr
}

// aggregate makes a grid point from its runs' samples (nil: no run).
func aggregate(vals []string, samples []*sample) Point {
	pt := Point{Values: vals, Mean: map[string]float64{}, SD: map[string]float64{}}
	for _, s := range samples {
		if s == nil {
			continue
		}
		pt.Runs++
		switch s.verdict {
		case report.Valid:
			pt.Valid++
		case report.Invalid:
			pt.Invalid++
		case report.Unsettled:
			pt.Unsettled++
		}
		if pt.Theory == nil {
			pt.Theory = s.theory
		}
	}
	for _, name := range MetricNames {
		var xs []float64
		for _, s := range samples {
			if v, ok := s.get(name); ok {
				xs = append(xs, v)
			}
		}
		if len(xs) > 0 {
			pt.Mean[name], pt.SD[name] = meanSD(xs)
		}
	}
	return pt
}

func (s *sample) get(name string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	v, ok := s.metrics[name]
	return v, ok
}

// runOne simulates run i and returns its record; a failed run's says
// why. The traces go to opt.Out/<point>/seed<N>, or, with opt.Out empty,
// to a temporary directory removed after.
func (p *Plan) runOne(opt Options, i int, cpu *cpuMeter) *Record {
	j := &p.Runs[i]
	rec := &Record{ID: j.ID, Point: j.Point, Values: j.Values, Seed: j.Seed, Version: opt.Version, ScenarioHash: p.Hash}
	rec.RunHash, _ = j.s.Hash()
	fail := func(err error) *Record {
		rec.Error = err.Error()
		return rec
	}
	dir := opt.Out
	if dir == "" {
		tmp, err := os.MkdirTemp(opt.TempDir, "sweep-"+j.ID+"-")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else {
		dir = filepath.Join(opt.Out, opt.traceDir(p, j))
		if err := safefs.MkdirAll(dir); err != nil {
			return fail(err)
		}
	}
	var sum *report.Summary
	start := time.Now()
	cpu.start(i)
	res, err := sim.Run(j.s, sim.Options{Out: dir, Record: report.Keep})
	if err != nil {
		err = fmt.Errorf("%s %v: %w", p.File, j.sets, err)
	} else {
		sum, err = report.SummarizeFrom(res.Recording, dir)
	}
	rec.CPU = cpu.stop(i).Seconds()
	rec.Wall = time.Since(start).Seconds()
	if err != nil {
		return fail(err)
	}
	s := measure(sum)
	rec.Verdict, rec.Metrics, rec.Theory = s.verdict, s.metrics, s.theory
	return rec
}

// traceDir names a run's trace directory under Out: the point's label
// and the seed, or, for a results directory's kept traces, the id.
func (opt Options) traceDir(p *Plan, j *Spec) string {
	if opt.TracesByID {
		return j.ID
	}
	return filepath.Join(pointLabel(p.Axes, j.Values), fmt.Sprintf("seed%d", j.Seed))
}

// measure takes a run's metrics by name from its summary.
func measure(sum *report.Summary) *sample {
	mr := sum.Measurements()
	out := map[string]float64{"messages": float64(sum.Messages.Total)}
	put := func(name string, v *float64) {
		if v != nil && !math.IsNaN(*v) {
			out[name] = *v
		}
	}
	frames := mr.Link.Frames()
	for k, c := range mr.Messages {
		if k != "hello" {
			frames += c.Broadcast + c.Unicast
		}
	}
	out["frames"] = float64(frames)
	m := mr.Metrics
	put("F", m.F)
	put("R", m.R)
	put("T", m.T)
	put("M_bcast", m.MBcast)
	put("M_ucast", m.MUcast)
	put("wrong_or_unknown", m.WrongOrUnknown)
	if n := len(mr.Elections); n > 0 {
		out["frames_per_election"] = float64(frames) / float64(n)
	}
	var live, none float64
	for _, n := range mr.PerNode {
		live += n.Live
		none += n.NoLeader
	}
	// A mutual exclusion run without leaders has no leader share to give.
	if live > 0 && (sum.Mutex == nil || sum.LeaderChanges > 0) {
		out["leader"] = 1 - none/live
	}
	s := &sample{metrics: out, verdict: sum.Verdict}
	if c := sum.Complexity; c != nil {
		out["complexity.messages"] = float64(c.Messages)
		out["complexity.announce"] = float64(c.Announce)
		out["complexity.transport"] = float64(c.Transport)
		out["complexity.control"] = float64(c.Control)
		out["complexity.time"] = c.Time
		if c.Sync != nil {
			out["complexity.rounds"] = float64(c.Rounds)
			out["complexity.sync_messages"] = float64(c.SyncMessages)
			out["complexity.tree_messages"] = float64(c.TreeMessages)
			if c.Sync.ExactSync != nil {
				out["complexity.sync_exact"] = float64(*c.Sync.ExactSync)
			}
			out["complexity.m_a"] = float64(c.Sync.Measured)
			out["complexity.m_a_bound"] = c.Sync.MAValue
		}
		// An empty formula: the bound is unknown (the scenario was).
		if b := c.Bound; b.Formula != "" {
			out["complexity.bound"] = b.Value
			s.theory = &Theory{Name: b.Name, Formula: b.Formula}
			for name, v := range map[string]*int{"complexity.exact": b.Exact, "complexity.best": b.Best, "complexity.worst": b.Worst} {
				if v != nil {
					out[name] = float64(*v)
				}
			}
		}
	}
	if mx := sum.Mutex; mx != nil {
		put("mutex.messages_per_entry", mx.MessagesPerEntry)
		put("mutex.sync_delay", mx.Sync.MeanTime)
		put("mutex.sync_messages", mx.Sync.MeanMessages)
		put("mutex.waiting_mean", mx.WaitingMean)
		put("mutex.waiting_p95", mx.WaitingP95)
		put("mutex.throughput", mx.Throughput)
		put("mutex.jain", mx.Jain)
		out["mutex.overtakes"] = float64(mx.Overtakes)
		out["mutex.waiting_at_end"] = float64(mx.WaitingAtEnd)
		out["mutex.entries"] = float64(mx.Entries)
		if mx.Entries > 0 {
			out["mutex.frames_per_entry"] = out["frames"] / float64(mx.Entries)
		}
		out["mutex.violations"] = float64(mx.Violations)
		if th := mx.Theory; th != nil {
			put("mutex.theory_lo", th.PerEntryLo)
			put("mutex.theory_hi", th.PerEntryHi)
			if s.theory == nil {
				s.theory = &Theory{Name: "messages per entry and exit (seed 002's table); delay " + th.Delay + " message times", Formula: th.Messages}
			}
		}
	}
	return s
}

// grid lists every combination of axis values, the first axis slowest.
func grid(axes []Axis) [][]string {
	out := [][]string{{}}
	for _, a := range axes {
		var next [][]string
		for _, prefix := range out {
			for _, v := range a.Values {
				next = append(next, append(append([]string{}, prefix...), v))
			}
		}
		out = next
	}
	return out
}

// pointLabel names a grid point's directory: path-value pairs made safe
// for file names.
func pointLabel(axes []Axis, vals []string) string {
	if len(vals) == 0 {
		return "base"
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = axes[i].Path + "=" + v
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '[' || r == ']' || r == ',' {
			return '_'
		}
		return r
	}, strings.Join(parts, "+"))
}

func meanSD(xs []float64) (float64, float64) {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// SortedMetrics lists the metric names present in any point, in
// MetricNames order.
func (r *Result) SortedMetrics() []string {
	seen := map[string]bool{}
	for _, p := range r.Points {
		for k := range p.Mean {
			seen[k] = true
		}
	}
	var out []string
	for _, n := range MetricNames {
		if seen[n] {
			out = append(out, n)
		}
	}
	return out
}
