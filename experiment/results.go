package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"manetlab/internal/safefs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
)

// A results directory holds a sweep run anywhere, in slices: ManifestName
// (the plan: scenario, hash, sets, axes, seeds) and one <id>.json Record
// per run, each written to a temporary file and renamed, so that a
// reader sees a whole record or none and two tasks that run the same
// run leave one whole record (the last). Kept traces go to traces/<id>.
const ManifestName = "sweep.json"

// TracesDir is where a results directory keeps traces (--traces).
const TracesDir = "traces"

// Claim makes dir the results directory of p: it writes the manifest, or
// checks that the one there is p's (the same base hash, sets, axes and
// seeds), so that two sweeps never mix their runs.
func (p *Plan) Claim(dir string) error {
	if err := safefs.MkdirAll(dir); err != nil {
		return err
	}
	want, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, ManifestName)
	old, err := ReadPlan(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return safefs.WriteFileAtomic(path, append(want, '\n'))
	}
	if err != nil {
		return err
	}
	if old.Hash != p.Hash || !reflect.DeepEqual(old.Axes, p.Axes) || old.Seeds != p.Seeds || strings.Join(old.Sets, "\n") != strings.Join(p.Sets, "\n") {
		return fmt.Errorf("%s: this results directory holds another sweep (scenario %s hash %s, %d axes, %d seeds); give another directory", path, old.File, old.Hash, len(old.Axes), old.Seeds)
	}
	return nil
}

// ReadPlan reads a results directory's manifest and lays its runs out
// again (the scenario file is not read).
func ReadPlan(dir string) (*Plan, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Hash == "" || p.Seeds < 1 {
		return nil, fmt.Errorf("%s: field hash or seeds missing", path)
	}
	for i, a := range p.Axes {
		if a.Path == "" || len(a.Values) == 0 {
			return nil, fmt.Errorf("%s: axes[%d]: want a path and values", path, i)
		}
	}
	p.lay()
	return &p, nil
}

// RecordPath is where run id's record lives in dir.
func RecordPath(dir, id string) string { return filepath.Join(dir, id+".json") }

// ReadRecord reads a run's record; a record that is not this run's (its
// id differs from its name) is an error naming the file.
func ReadRecord(dir, id string) (*Record, error) {
	path := RecordPath(dir, id)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.ID != id {
		return nil, fmt.Errorf("%s: field id is %q, want %q", path, r.ID, id)
	}
	return &r, nil
}

// WriteRecord writes r atomically into dir.
func WriteRecord(dir string, r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return safefs.WriteFileAtomic(RecordPath(dir, r.ID), append(b, '\n'))
}

// ShardReport says what a slice did.
type ShardReport struct {
	Runs    int // runs in the slice
	Skipped int // already in the directory (a failed run is run again)
	Ran     int
	Failed  int
}

// RunShard runs the I-th of N slices of opt's sweep into the results
// directory dir, skipping the runs whose records are there. keepTraces
// keeps each run's traces in dir/traces/<id> (else they are written to
// a temporary directory and removed). A run that fails is recorded with
// its error and counted; the slice goes on.
func RunShard(opt Options, dir string, i, n int, keepTraces bool) (*ShardReport, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= I < N", i, n)
	}
	p, err := NewPlan(opt)
	if err != nil {
		return nil, err
	}
	if err := p.Claim(dir); err != nil {
		return nil, err
	}
	opt.Out, opt.TracesByID = "", false
	if keepTraces {
		opt.Out, opt.TracesByID = filepath.Join(dir, TracesDir), true
	}
	rep := &ShardReport{}
	var todo []int
	for _, k := range p.Shard(i, n) {
		rep.Runs++
		if r, err := ReadRecord(dir, p.Runs[k].ID); err == nil && r.Error == "" {
			rep.Skipped++
			continue
		}
		todo = append(todo, k)
	}
	if err := p.load(todo); err != nil {
		return nil, err
	}
	err = p.execute(opt, todo, func(k int, r *Record) error {
		rep.Ran++
		if r.Error != "" {
			rep.Failed++
		}
		return WriteRecord(dir, r)
	})
	return rep, err
}
