package experiment

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Chart is the data of a sweep's line chart: one metric (mean, ±sd)
// against the values of one axis (Result.XAxis: the first, or the first
// numeric one when the first is not), one series per combination of the
// values of the other axes.
type Chart struct {
	Metric string   `json:"metric"`
	XLabel string   `json:"x_label"` // the x axis's path
	X      []string `json:"x"`       // its values, in the order given
	// XNum holds the values as numbers when every one parses as a number
	// (the x-axis is then proportional); nil: categorical, in X's order.
	XNum   []float64 `json:"x_num,omitempty"`
	Series []Series  `json:"series"`
	// Missing labels the series with no value of the metric at all,
	// which the chart leaves out.
	Missing []string `json:"missing,omitempty"`
}

// Series is one combination of the other axes' values.
type Series struct {
	// Label is "path=value" for each other axis, joined by ", "; empty
	// when there is only one axis.
	Label string `json:"label"`
	// Points are the measured values in ascending x; a grid point
	// without the metric has none.
	Points []ChartPoint `json:"points"`
	// Theory is drawn beside the series when the metric is
	// complexity.messages, complexity.sync_messages (the counting rule) or
	// mutex.messages_per_entry.
	Theory []TheoryLine `json:"theory,omitempty"`
}

// ChartPoint is a value at X (an index into Chart.X): the mean and
// standard deviation over seeds, and the runs behind it.
type ChartPoint struct {
	X    int     `json:"x"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	Runs int     `json:"runs"`
}

// TheoryLine is a theoretical message count against x.
type TheoryLine struct {
	// Kind is "exact" (the count for each run's arrangement), "bound"
	// (the formula for each n), "best" or "worst" (over all
	// arrangements).
	Kind string `json:"kind"`
	// Label is what the legend shows: the bound's formula for "bound",
	// the kind otherwise; Title its longer name.
	Label  string       `json:"label"`
	Title  string       `json:"title,omitempty"`
	Points []ChartPoint `json:"points"`
}

// theoryKinds are the theory lines drawn for complexity.messages, in
// legend order, and the metric each comes from.
var theoryKinds = []struct{ kind, metric string }{
	{"exact", "complexity.exact"}, {"bound", "complexity.bound"},
	{"best", "complexity.best"}, {"worst", "complexity.worst"},
}

// mutexTheoryKinds are the theory lines drawn for
// mutex.messages_per_entry: the least and the most messages per entry
// theory gives for n.
var mutexTheoryKinds = []struct{ kind, metric, label string }{
	{"best", "mutex.theory_lo", "theory: least"}, {"worst", "mutex.theory_hi", "theory: most"},
}

// CheckMetric reports an error naming every known metric when name is
// not one of MetricNames.
func CheckMetric(name string) error {
	if slices.Contains(MetricNames, name) {
		return nil
	}
	return fmt.Errorf("unknown metric %q; known: %s", name, strings.Join(MetricNames, ", "))
}

// ChooseMetric returns name when some point has it (an error listing the
// metrics present when none has), or, for an empty name, the default:
// complexity.sync_messages when present (round protocols: the
// synchronizer's overhead; the algorithm's messages are the same over
// every synchronizer), else complexity.messages, else
// mutex.messages_per_entry, else F, else the first metric present.
func (r *Result) ChooseMetric(name string) (string, error) {
	present := r.SortedMetrics()
	if name != "" {
		if err := CheckMetric(name); err != nil {
			return "", err
		}
		if !slices.Contains(present, name) {
			return "", fmt.Errorf("metric %q: no run of this sweep has it; present: %s", name, strings.Join(present, ", "))
		}
		return name, nil
	}
	for _, m := range []string{"complexity.sync_messages", "complexity.messages", "mutex.messages_per_entry", "F"} {
		if slices.Contains(present, m) {
			return m, nil
		}
	}
	if len(present) == 0 {
		return "", fmt.Errorf("the sweep measured nothing")
	}
	return present[0], nil
}

// XAxis is the index of the axis a chart draws along x: the first axis,
// unless its values are not all numbers and another axis's are (a sweep
// --vary protocol.params.synchronizer=... --vary nodes.count=... charts
// against n, one line per synchronizer); then the first such axis.
func (r *Result) XAxis() int {
	if len(r.Axes) == 0 || numbers(r.Axes[0].Values) != nil {
		return 0
	}
	for i, a := range r.Axes {
		if numbers(a.Values) != nil {
			return i
		}
	}
	return 0
}

// Chart gathers the chart of metric against the x axis (XAxis).
func (r *Result) Chart(metric string) (*Chart, error) {
	if len(r.Axes) == 0 {
		return nil, fmt.Errorf("a chart needs at least one --vary")
	}
	if err := CheckMetric(metric); err != nil {
		return nil, err
	}
	xa := r.XAxis()
	xAxis := r.Axes[xa]
	c := &Chart{Metric: metric, XLabel: xAxis.Path, X: xAxis.Values, XNum: numbers(xAxis.Values)}
	rest := slices.Concat(r.Axes[:xa], r.Axes[xa+1:])
	others := grid(rest)
	if len(r.Points) != len(xAxis.Values)*len(others) {
		return nil, fmt.Errorf("chart: %d points for a grid of %d", len(r.Points), len(xAxis.Values)*len(others))
	}
	// Grid order: the first axis slowest. stride[a] is how far apart two
	// points are whose values differ by one on axis a only.
	stride := make([]int, len(r.Axes))
	for a, k := len(r.Axes)-1, 1; a >= 0; a-- {
		stride[a] = k
		k *= len(r.Axes[a].Values)
	}
	order := make([]int, len(xAxis.Values))
	for i := range order {
		order[i] = i
	}
	if c.XNum != nil {
		slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(c.XNum[a], c.XNum[b]) })
	}
	for _, vals := range others {
		ser := Series{Label: seriesLabel(rest, vals)}
		base := 0
		for i, v := range vals {
			a := i
			if i >= xa {
				a++
			}
			base += slices.Index(r.Axes[a].Values, v) * stride[a]
		}
		at := func(x int) *Point { return &r.Points[base+x*stride[xa]] }
		ser.Points = line(order, at, metric)
		if metric == "complexity.messages" {
			for _, k := range theoryKinds {
				pts := line(order, at, k.metric)
				if len(pts) == 0 {
					continue
				}
				tl := TheoryLine{Kind: k.kind, Label: k.kind, Points: pts}
				if k.kind == "bound" {
					tl.Label, tl.Title = boundText(order, at)
				}
				ser.Theory = append(ser.Theory, tl)
			}
		}
		if metric == "complexity.sync_messages" {
			if pts := line(order, at, "complexity.sync_exact"); len(pts) > 0 {
				ser.Theory = append(ser.Theory, TheoryLine{Kind: "exact", Label: "counting rule",
					Title: "the synchronizer's messages by its counting rule (docs/protocols/synchronizers.md)", Points: pts})
			}
		}
		if metric == "mutex.messages_per_entry" {
			for _, k := range mutexTheoryKinds {
				if pts := line(order, at, k.metric); len(pts) > 0 {
					tl := TheoryLine{Kind: k.kind, Label: k.label, Points: pts}
					tl.Title, _ = boundText(order, at)
					ser.Theory = append(ser.Theory, tl)
				}
			}
		}
		if len(ser.Points) == 0 {
			c.Missing = append(c.Missing, ser.Label)
			continue
		}
		c.Series = append(c.Series, ser)
	}
	if len(c.Series) == 0 {
		return nil, fmt.Errorf("no point of the sweep has %s", metric)
	}
	return c, nil
}

// line is metric at each x in order, where present.
func line(order []int, at func(x int) *Point, metric string) []ChartPoint {
	var out []ChartPoint
	for _, x := range order {
		p := at(x)
		if mean, ok := p.Mean[metric]; ok {
			out = append(out, ChartPoint{X: x, Mean: mean, SD: p.SD[metric], Runs: p.Runs})
		}
	}
	return out
}

// boundText is the distinct formulas and names of a series' bounds.
func boundText(order []int, at func(x int) *Point) (formula, name string) {
	var fs, ns []string
	for _, x := range order {
		if t := at(x).Theory; t != nil {
			if !slices.Contains(fs, t.Formula) {
				fs = append(fs, t.Formula)
			}
			if !slices.Contains(ns, t.Name) && t.Name != "" {
				ns = append(ns, t.Name)
			}
		}
	}
	if len(fs) == 0 {
		return "bound", ""
	}
	return strings.Join(fs, " / "), strings.Join(ns, " / ")
}

func seriesLabel(axes []Axis, vals []string) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = axes[i].Path + "=" + v
	}
	return strings.Join(parts, ", ")
}

// numbers parses every value as a number, or returns nil.
func numbers(vals []string) []float64 {
	out := make([]float64, len(vals))
	for i, v := range vals {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		out[i] = f
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

//go:embed chart.html
var chartTemplate string

var chartPage = template.Must(template.New("chart").Funcs(template.FuncMap{
	// wbr lets a long metric name wrap after its dots in a table header.
	"wbr": func(s string) template.HTML {
		return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(s), ".", ".<wbr>"))
	},
}).Parse(chartTemplate))

// ChartDataID is the id of the <script type="application/json"> element
// that holds a sweep page's Chart.
const ChartDataID = "sweep-data"

// HTMLOptions describe a sweep's page.
type HTMLOptions struct {
	Metric  string // the metric charted ("" for ChooseMetric's default)
	Command string // the command line that produced the sweep
}

// WriteHTML writes a self-contained page: the chart of the metric, a
// table of every point's metrics and the command line.
func (r *Result) WriteHTML(w io.Writer, opt HTMLOptions) error {
	metric, err := r.ChooseMetric(opt.Metric)
	if err != nil {
		return err
	}
	c, err := r.Chart(metric)
	if err != nil {
		return err
	}
	// encoding/json escapes <, > and &, so the data cannot end its
	// script element.
	js, err := json.Marshal(c)
	if err != nil {
		return err
	}
	metrics := r.SortedMetrics()
	theory := false
	for _, p := range r.Points {
		theory = theory || p.Theory != nil
	}
	type row struct {
		Values []string
		Valid  string
		Cells  []string
		Theory *Theory
	}
	var rows []row
	for _, p := range r.Points {
		rw := row{Values: p.Values, Valid: fmt.Sprintf("%d/%d/%d of %d", p.Valid, p.Invalid, p.Unsettled, p.Runs), Theory: p.Theory}
		for _, m := range metrics {
			cell := "—"
			if mean, ok := p.Mean[m]; ok {
				cell = format(m, mean, p.SD[m])
			}
			rw.Cells = append(rw.Cells, cell)
		}
		rows = append(rows, rw)
	}
	runs, valid, invalid, unsettled := 0, 0, 0, 0
	for _, p := range r.Points {
		runs += p.Runs
		valid += p.Valid
		invalid += p.Invalid
		unsettled += p.Unsettled
	}
	seeds := fmt.Sprintf("seeds 1..%d", r.Seeds)
	if r.Seeds == 1 {
		seeds = "seed 1"
	}
	var buf bytes.Buffer
	err = chartPage.Execute(&buf, map[string]any{
		"Scenario": r.Scenario, "Seeds": seeds, "Metric": metric, "XLabel": c.XLabel,
		"Points": len(r.Points), "Runs": runs, "Valid": valid, "Invalid": invalid, "Unsettled": unsettled, "Axes": r.Axes, "Metrics": metrics, "Rows": rows, "Theory": theory,
		"Command": opt.Command, "DataID": ChartDataID, "Data": template.JS(js),
	})
	if err != nil {
		return fmt.Errorf("sweep page: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}
