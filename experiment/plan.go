package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"manetlab/scenario"
)

// Spec is one run of a sweep: a grid point and a seed, named by an id
// that depends only on the base scenario's hash, the point's path=value
// pairs and the seed, so that the same grid always names its runs alike.
type Spec struct {
	ID     string   `json:"id"`
	Point  int      `json:"point"`  // index into the grid, first axis slowest
	Values []string `json:"values"` // one per axis
	Seed   int      `json:"seed"`
	sets   []string
	s      *scenario.Scenario
}

// Plan is a sweep laid out as independent runs, in grid order (point
// then seed).
type Plan struct {
	Scenario string   `json:"scenario"` // the scenario's name
	File     string   `json:"file"`     // the scenario file as given
	Hash     string   `json:"hash"`     // the base scenario's hash (--set applied, no axis, no seed)
	Sets     []string `json:"sets,omitempty"`
	Axes     []Axis   `json:"axes"`
	Seeds    int      `json:"seeds"`
	Runs     []Spec   `json:"-"`
}

// NewPlan loads the base scenario and lays the runs out with their ids;
// no run's own scenario is read yet (load does, for the runs about to
// run: a slice of a 100,000-run sweep reads only its own).
func NewPlan(opt Options) (*Plan, error) {
	if opt.Seeds <= 0 {
		opt.Seeds = 1
	}
	base, err := scenario.Load(opt.Scenario, opt.Sets)
	if err != nil {
		return nil, err
	}
	hash, err := base.Hash()
	if err != nil {
		return nil, err
	}
	p := &Plan{Scenario: base.Name, File: opt.Scenario, Hash: hash, Sets: opt.Sets, Axes: opt.Axes, Seeds: opt.Seeds}
	p.lay()
	return p, nil
}

// load reads the scenario of each run in idx (the file with the --set
// overrides, the point's values and the seed), so that a bad value is
// named before any of them runs.
func (p *Plan) load(idx []int) error {
	for _, i := range idx {
		r := &p.Runs[i]
		if r.s != nil {
			continue
		}
		r.sets = append([]string{}, p.Sets...)
		for a, v := range r.Values {
			r.sets = append(r.sets, p.Axes[a].Path+"="+v)
		}
		r.sets = append(r.sets, fmt.Sprintf("seed=%d", r.Seed))
		s, err := scenario.Load(p.File, r.sets)
		if err != nil {
			return err
		}
		r.s = s
	}
	return nil
}

// lay fills Runs from Hash, Axes and Seeds (no scenario is read: a
// results directory's plan is laid again from its manifest).
func (p *Plan) lay() {
	p.Runs = nil
	for pt, vals := range grid(p.Axes) {
		for seed := 1; seed <= p.Seeds; seed++ {
			p.Runs = append(p.Runs, Spec{ID: RunID(p.Hash, p.Axes, vals, seed), Point: pt, Values: vals, Seed: seed})
		}
	}
}

// RunID is the first 16 hex digits of the SHA-256 of the base scenario's
// hash, each path=value of the point on its own line, and seed=N.
func RunID(hash string, axes []Axis, vals []string, seed int) string {
	var b strings.Builder
	b.WriteString(hash + "\n")
	for i, v := range vals {
		b.WriteString(axes[i].Path + "=" + v + "\n")
	}
	fmt.Fprintf(&b, "seed=%d\n", seed)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

// Shard lists the indices of the I-th of N slices of the plan's runs
// (0 <= I < N): every N-th run starting at I, so that each slice holds a
// share of every part of the grid (large and small points alike).
func (p *Plan) Shard(i, n int) []int {
	var out []int
	for k := i; k < len(p.Runs); k += n {
		out = append(out, k)
	}
	return out
}

// WritePlan prints the runs as tab-separated lines under a header: id,
// each axis path, seed.
func (p *Plan) WritePlan(w io.Writer) error {
	head := []string{"id"}
	for _, a := range p.Axes {
		head = append(head, a.Path)
	}
	head = append(head, "seed")
	if _, err := fmt.Fprintln(w, strings.Join(head, "\t")); err != nil {
		return err
	}
	for _, r := range p.Runs {
		row := append(append([]string{r.ID}, r.Values...), fmt.Sprint(r.Seed))
		if _, err := fmt.Fprintln(w, strings.Join(row, "\t")); err != nil {
			return err
		}
	}
	return nil
}
