package analysis

import (
	"fmt"
	"io"
	"time"
)

// Progress, when not nil, receives a progress line every ProgressEvery
// while an analysis reads a run's files and samples its ground truth, so
// that a command that takes long on a large run (10,000 nodes) says how
// far it is. Commands that end sooner print nothing. The command line
// sets it; tests leave it nil.
var Progress io.Writer

// ProgressName begins every progress line ("trace check").
var ProgressName = "trace"

// ProgressEvery is the period of progress lines (a variable for tests).
var ProgressEvery = 2 * time.Second

// progress reports one phase of an analysis: done of total units.
type progress struct {
	phase string
	unit  func(int64) string
	total int64
	done  int64
	next  time.Time
	open  bool // the total is unknown: only done is printed
	// stride, for a count of lines, is how far done moves between two
	// looks at the clock (one a line was a tenth of reading them).
	stride, looked int64
}

func newProgress(phase string, total int64, unit func(int64) string) *progress {
	return &progress{phase: phase, unit: unit, total: total, next: time.Now().Add(ProgressEvery)}
}

// set records how far the phase is, printing a line when one is due.
func (p *progress) set(done int64) {
	p.done = done
	if Progress == nil || p.total <= 0 && !p.open {
		return
	}
	if p.stride > 0 && done >= p.looked && done-p.looked < p.stride {
		return
	}
	p.looked = done
	if now := time.Now(); now.After(p.next) {
		p.next = now.Add(ProgressEvery)
		if p.open {
			fmt.Fprintf(Progress, "%s: %s %s\n", ProgressName, p.phase, p.unit(p.done))
			return
		}
		fmt.Fprintf(Progress, "%s: %s %d%% (%s of %s)\n", ProgressName, p.phase, 100*min(p.done, p.total)/p.total, p.unit(p.done), p.unit(p.total))
	}
}

func (p *progress) add(n int64) { p.set(p.done + n) }

// newCount reports a phase of unknown length: how much is done.
func newCount(phase string, unit func(int64) string) *progress {
	p := newProgress(phase, 0, unit)
	p.open, p.stride = true, lineStride
	return p
}

// lineStride is the stride of a progress counting lines.
const lineStride = 4096

// linesUnit writes a count of lines.
func linesUnit(n int64) string { return fmt.Sprintf("%.1f M lines", float64(n)/1e6) }

// bytesUnit writes a byte count as MB.
func bytesUnit(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// runTimeUnit writes a time of the run.
func runTimeUnit(t int64) string { return fmt.Sprintf("%.1f s", float64(t)/1e9) }

// waiting prints, every ProgressEvery until stop is called, that phase
// is still under way and for how long: for one long step that cannot
// count its progress (building a large run's mobility and radio models).
// stop returns once nothing more will be printed.
func waiting(phase string) (stop func()) {
	if Progress == nil {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	start, every := time.Now(), ProgressEvery
	go func() {
		defer close(exited)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				fmt.Fprintf(Progress, "%s: %s (%.0fs)\n", ProgressName, phase, now.Sub(start).Seconds())
			}
		}
	}()
	return func() { close(done); <-exited }
}
