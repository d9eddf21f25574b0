package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/report"
)

// The pre-start estimate's thresholds (docs/limits.md): a run predicted
// past a "large" figure has its estimate printed; one past a limit is
// refused unless --allow-large is given, as is one that would not fit in
// the available memory or the free space on --out.
const (
	largeTime  = 30 * time.Second
	largeBytes = 1 << 30
	limitTime  = time.Hour
	limitBytes = 64 << 30
)

// allowLargeFlag lets a run past the estimate's limits start.
func allowLargeFlag() cli.Flag {
	return &cli.BoolFlag{Name: "allow-large", Usage: "start even when the pre-start estimate is over the limits (1 h, 64 GiB of traces) or the machine's available memory or free space on --out"}
}

// freeSpace is the space available to an unprivileged user on the file
// system that holds dir, or would hold it (its nearest existing
// ancestor); a variable so that a test can stand in a small disk.
var freeSpace = func(dir string) (uint64, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	for {
		var st syscall.Statfs_t
		err := syscall.Statfs(d, &st)
		if err == nil {
			return st.Bavail * uint64(st.Bsize), nil
		}
		parent := filepath.Dir(d)
		if !errors.Is(err, syscall.ENOENT) || parent == d {
			return 0, err
		}
		d = parent
	}
}

// budget is what a command is about to start, from the estimates of its
// runs: time and traces add up, memory is what the runs at once hold.
type budget struct {
	what   string // "sim", "run", "sweep"
	runs   int
	events float64
	bytes  float64
	memory float64
	time   time.Duration
	one    *sim.Estimate // the largest run's estimate
	// real: the run is real time (run): its time is the duration, and
	// its memory is checked by the launcher (per process).
	real bool
}

// estimateSim is the budget of one simulated run of s.
func estimateSim(s *scenario.Scenario) (*budget, error) {
	e, err := sim.EstimateRun(s, report.Keep)
	if err != nil {
		return nil, err
	}
	return &budget{what: "sim", runs: 1, events: e.Events, bytes: e.TraceBytes, memory: e.Memory, time: e.SimTime + e.SummaryTime, one: e}, nil
}

// estimateSweep is the budget of a sweep of seeds runs of each point,
// workers at once.
func estimateSweep(points []*scenario.Scenario, seeds, workers int) (*budget, error) {
	b := &budget{what: "sweep", runs: len(points) * seeds}
	var mems []float64
	for _, s := range points {
		p, err := estimateSim(s)
		if err != nil {
			return nil, err
		}
		k := float64(seeds)
		b.events += k * p.events
		b.bytes += k * p.bytes
		b.time += time.Duration(k * float64(p.time))
		for range seeds {
			mems = append(mems, p.memory)
		}
		if b.one == nil || p.memory > b.one.Memory {
			b.one = p.one
		}
	}
	// The runs share the cores: the time is the sum over the workers
	// (at most the cores); the memory the largest runs held at once.
	b.time /= time.Duration(max(1, min(workers, runtime.NumCPU(), b.runs)))
	slices.SortFunc(mems, func(x, y float64) int { return cmp.Compare(y, x) })
	for _, m := range mems[:min(workers, len(mems))] {
		b.memory += m
	}
	return b, nil
}

// estimateReal is the budget of a real run of s: the traces its nodes
// write (as the simulator would), for the scenario's duration.
func estimateReal(s *scenario.Scenario) (*budget, error) {
	e, err := sim.EstimateRun(s, nil)
	if err != nil {
		return nil, err
	}
	return &budget{what: "run", runs: 1, events: e.Events, bytes: e.TraceBytes, time: e.Duration, one: e, real: true}, nil
}

// checkReal estimates a real run of s slowed down dilation times, its
// traces written under out on this machine, and checks it (check).
func checkReal(c *cli.Context, s *scenario.Scenario, out string, dilation int) error {
	b, err := estimateReal(s)
	if err != nil {
		return err
	}
	b.time *= time.Duration(dilation)
	if err := b.check(c, out, readMachine()); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	return nil
}

// check prints the estimate when it is large and refuses what is over a
// limit or would not fit, unless --allow-large.
func (b *budget) check(c *cli.Context, out string, m scenario.Machine) error {
	var over []string
	if b.time > limitTime {
		over = append(over, fmt.Sprintf("time: about %s, the limit is %s", roundDur(b.time), limitTime))
	}
	if b.bytes > limitBytes {
		over = append(over, fmt.Sprintf("traces: about %s, the limit is %s", bytesOf(b.bytes), bytesOf(limitBytes)))
	}
	if !b.real && m.MemAvailable > 0 && b.memory > float64(m.MemAvailable) {
		over = append(over, fmt.Sprintf("memory: about %s, this machine has %s available (MemAvailable)", bytesOf(b.memory), bytesOf(float64(m.MemAvailable))))
	}
	if free, err := freeSpace(out); err == nil && b.bytes > float64(free) {
		over = append(over, fmt.Sprintf("disk: about %s of traces, %s is free on %s", bytesOf(b.bytes), bytesOf(float64(free)), out))
	}
	large := b.time >= largeTime || b.bytes >= largeBytes || b.memory >= largeBytes
	if !large && len(over) == 0 {
		return nil
	}
	w := c.App.ErrWriter
	if w == nil {
		w = os.Stderr
	}
	b.write(w)
	if len(over) == 0 {
		return nil
	}
	if c.Bool("allow-large") {
		fmt.Fprintf(w, "manetlab: %s: over the estimate's limits, starting anyway (--allow-large): %s\n", b.what, strings.Join(over, "; "))
		return nil
	}
	return fmt.Errorf("%s: refused before it started, by the pre-start estimate: %s (pass --allow-large to start anyway)", b.what, strings.Join(over, "; "))
}

// write prints the estimate on a line.
func (b *budget) write(w io.Writer) {
	e := b.one
	runs := ""
	if b.runs > 1 {
		runs = fmt.Sprintf("%d runs, the largest ", b.runs)
	}
	fmt.Fprintf(w, "manetlab: %s: estimate: %s%d nodes for %s: about %.3g events, %s of traces",
		b.what, runs, e.Nodes, e.Duration, b.events, bytesOf(b.bytes))
	if b.real {
		fmt.Fprintf(w, ", %s of wall time", roundDur(b.time))
	} else {
		fmt.Fprintf(w, ", %s of memory, %s (simulation %s, summary %s)",
			bytesOf(b.memory), roundDur(b.time), roundDur(e.SimTime), roundDur(e.SummaryTime))
	}
	scaled := ""
	if e.Pilot.Scaled {
		scaled = fmt.Sprintf(", scaled up %.3g times", float64(e.Nodes)/float64(e.Pilot.Nodes))
	}
	fmt.Fprintf(w, "; from a pilot of %d nodes for %s (%d events in %s of CPU%s)\n",
		e.Pilot.Nodes, e.Pilot.Virtual.Round(time.Millisecond), e.Pilot.Events, e.Pilot.CPU.Round(time.Millisecond), scaled)
}

// roundDur rounds d for a human: to the second from a minute up.
func roundDur(d time.Duration) string {
	switch {
	case d >= 1000*time.Hour:
		return fmt.Sprintf("%.3g h", d.Hours())
	case d >= time.Minute:
		return d.Round(time.Second).String()
	default:
		return d.Round(10 * time.Millisecond).String()
	}
}

// bytesOf is n bytes in the largest binary unit under it.
func bytesOf(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.3g %s", n, units[i])
}
