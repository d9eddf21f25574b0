package experiment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Gathered is a results directory read back.
type Gathered struct {
	Plan    *Plan
	Records []*Record // in plan order; nil where a run is missing or failed
	// Rows are the records there are, failed ones included, in plan
	// order: the tidy tables' rows.
	Rows    []*Record
	Missing []Spec    // runs with no record
	Failed  []*Record // runs whose record holds an error
	// First and Last are the earliest and latest record's modification
	// times (zero without records).
	First, Last time.Time
}

// Gather reads dir's manifest and every run's record.
func Gather(dir string) (*Gathered, error) {
	p, err := ReadPlan(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s: not a sweep's results directory (sweep --shard or --results writes it)", dir, ManifestName)
		}
		return nil, err
	}
	g := &Gathered{Plan: p, Records: make([]*Record, len(p.Runs))}
	for i, s := range p.Runs {
		r, err := ReadRecord(dir, s.ID)
		if errors.Is(err, fs.ErrNotExist) {
			g.Missing = append(g.Missing, s)
			continue
		}
		if err != nil {
			return nil, err
		}
		if fi, err := os.Stat(RecordPath(dir, s.ID)); err == nil {
			if t := fi.ModTime(); g.First.IsZero() || t.Before(g.First) {
				g.First = t
			}
			if t := fi.ModTime(); t.After(g.Last) {
				g.Last = t
			}
		}
		g.Rows = append(g.Rows, r)
		if r.Error != "" {
			g.Failed = append(g.Failed, r)
			continue
		}
		g.Records[i] = r
	}
	return g, nil
}

// Result aggregates the records there are, exactly as the one-machine
// sweep does (a point's missing runs are left out of its counts).
func (g *Gathered) Result() *Result { return g.Plan.result(g.Records) }

// Done counts the runs with a whole record.
func (g *Gathered) Done() int { return len(g.Plan.Runs) - len(g.Missing) - len(g.Failed) }

// WriteMissing lists the runs that are missing or failed, one a line:
// id, point values, seed, and the error of a failed one.
func (g *Gathered) WriteMissing(w io.Writer) {
	for _, s := range g.Missing {
		fmt.Fprintf(w, "missing %s %v seed %d\n", s.ID, s.Values, s.Seed)
	}
	for _, r := range g.Failed {
		fmt.Fprintf(w, "failed %s %v seed %d: %s\n", r.ID, r.Values, r.Seed, r.Error)
	}
}

// Progress is one line: runs done, failed and remaining, and when the
// rest should be done at the rate records have appeared so far.
func (g *Gathered) Progress(now time.Time) string {
	done, total := g.Done(), len(g.Plan.Runs)
	line := fmt.Sprintf("%d/%d runs done, %d failed, %d remaining", done, total, len(g.Failed), len(g.Missing))
	if len(g.Missing) == 0 {
		return line
	}
	if n := done + len(g.Failed); n >= 2 && g.Last.After(g.First) {
		rate := float64(n-1) / g.Last.Sub(g.First).Seconds()
		eta := time.Duration(float64(len(g.Missing)) / rate * float64(time.Second))
		line += fmt.Sprintf(", about %s left at %.2f runs/s", eta.Round(time.Second), rate)
	}
	return line
}
