package experiment

import (
	"encoding/json"
	"math"
	"strconv"
)

// Record is one run's result: what a results directory holds per run
// (<id>.json) and what the tidy tables have one row of.
type Record struct {
	ID     string   `json:"id"`
	Point  int      `json:"point"`
	Values []string `json:"values"`
	Seed   int      `json:"seed"`
	// Verdict is the run's final verdict; empty when the run failed.
	Verdict string `json:"verdict,omitempty"`
	// Error says why the run failed (it is run again by the next task).
	Error   string  `json:"error,omitempty"`
	Metrics Metrics `json:"metrics,omitempty"`
	Theory  *Theory `json:"theory,omitempty"`
	// Wall and CPU are the run's seconds: elapsed, and its share of the
	// process's CPU time (all of it with one worker; see cpuMeter).
	Wall float64 `json:"wall_s"`
	CPU  float64 `json:"cpu_s"`
	// Version is `manetlab version`'s line of the binary that ran it.
	Version string `json:"version"`
	// ScenarioHash is the sweep's base scenario hash (the run's id
	// derives from it); RunHash the resolved run's (axes and seed set).
	ScenarioHash string `json:"scenario_hash"`
	RunHash      string `json:"run_hash,omitempty"`
}

// Metrics are a run's metrics by name. JSON keeps every float64 exact
// (shortest round-trip form) and writes infinities as "+Inf"/"-Inf".
type Metrics map[string]float64

func (m Metrics) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if math.IsInf(v, 0) {
			out[k] = strconv.FormatFloat(v, 'g', -1, 64)
		} else {
			out[k] = v
		}
	}
	return json.Marshal(out)
}

func (m *Metrics) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = make(Metrics, len(raw))
	for k, r := range raw {
		var v float64
		if err := json.Unmarshal(r, &v); err != nil {
			var s string
			if json.Unmarshal(r, &s) != nil {
				return err
			}
			if v, err = strconv.ParseFloat(s, 64); err != nil {
				return err
			}
		}
		(*m)[k] = v
	}
	return nil
}

// sample is the record's part that a grid point aggregates (nil for a
// failed run).
func (r *Record) sample() *sample {
	if r == nil || r.Error != "" {
		return nil
	}
	return &sample{metrics: r.Metrics, verdict: r.Verdict, theory: r.Theory}
}

// result aggregates records (indexed like the plan's runs; nil where a
// run is missing) into the sweep's result.
func (p *Plan) result(recs []*Record) *Result {
	res := &Result{Scenario: p.Scenario, Axes: p.Axes, Seeds: p.Seeds}
	samples := make([][]*sample, len(grid(p.Axes)))
	for p := range samples {
		samples[p] = make([]*sample, 0)
	}
	for i, r := range p.Runs {
		samples[r.Point] = append(samples[r.Point], recs[i].sample())
	}
	for pt, vals := range grid(p.Axes) {
		res.Points = append(res.Points, aggregate(vals, samples[pt]))
	}
	return res
}
