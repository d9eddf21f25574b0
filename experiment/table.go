package experiment

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"manetlab/trace/analysis"
)

// WriteTable prints the sweep as an aligned text table: one row per grid
// point, the axis values, runs by final verdict (valid, invalid,
// unsettled, each of the runs), then each
// metric as mean±sd over seeds.
func (r *Result) WriteTable(w io.Writer) {
	_ = r.WriteColumns(w, nil) // every column: no name to refuse
}

// VerdictColumns are the table's columns that count runs by verdict.
var VerdictColumns = []string{"valid", "invalid", "unsettled"}

// CheckColumns refuses a column name that is neither a verdict column
// nor a metric (checked before a sweep runs, so that a typo costs
// nothing). A metric that no run of the sweep has shows "-".
func CheckColumns(columns []string) error {
	for _, c := range columns {
		if !slices.Contains(VerdictColumns, c) && !slices.Contains(MetricNames, c) {
			return fmt.Errorf("--columns %s: no such column; the columns: %s, %s", c, strings.Join(VerdictColumns, ", "), strings.Join(MetricNames, ", "))
		}
	}
	return nil
}

// WriteColumns is WriteTable with only the columns named (verdict
// columns and metrics, in the order given; the axes always come first),
// or every one when columns is empty. A name that is no column is
// refused (CheckColumns).
func (r *Result) WriteColumns(w io.Writer, columns []string) error {
	metrics := r.SortedMetrics()
	all := append(append([]string{}, VerdictColumns...), metrics...)
	if len(columns) == 0 {
		columns = all
	}
	if err := CheckColumns(columns); err != nil {
		return err
	}
	head := []string{}
	for _, a := range r.Axes {
		head = append(head, a.Path)
	}
	head = append(head, columns...)
	rows := [][]string{head}
	for _, p := range r.Points {
		row := append([]string{}, p.Values...)
		counts := map[string]int{"valid": p.Valid, "invalid": p.Invalid, "unsettled": p.Unsettled}
		for _, m := range columns {
			if n, ok := counts[m]; ok {
				row = append(row, fmt.Sprintf("%d/%d", n, p.Runs))
				continue
			}
			mean, ok := p.Mean[m]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, format(m, mean, p.SD[m]))
		}
		rows = append(rows, row)
	}
	width := make([]int, len(head))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = fmt.Sprintf("%-*s", width[i], c)
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(cells, "  "), " "))
	}
	return nil
}

// format shows the headline metrics in their one format
// (analysis.MetricFormats, as trace report prints them: F as 0.0196, not
// 3.3%), message and frame totals whole, complexity counts whole where
// every seed agrees (else with a decimal), times in milliseconds'
// precision and the rest with two decimals.
func format(metric string, mean, sd float64) string {
	if f, ok := analysis.MetricFormats[metric]; ok {
		return fmt.Sprintf(f+"±"+f, mean, sd)
	}
	switch metric {
	case "messages", "frames":
		return fmt.Sprintf("%.0f±%.0f", mean, sd)
	case "complexity.time", "mutex.sync_delay", "mutex.waiting_mean", "mutex.waiting_p95":
		return fmt.Sprintf("%.3f±%.3f", mean, sd)
	case "mutex.overtakes", "mutex.waiting_at_end", "mutex.entries", "mutex.violations":
		return fmt.Sprintf("%.1f±%.1f", mean, sd)
	}
	if strings.HasPrefix(metric, "complexity.") {
		if sd == 0 && mean == math.Trunc(mean) {
			return fmt.Sprintf("%.0f±0", mean)
		}
		return fmt.Sprintf("%.1f±%.1f", mean, sd)
	}
	return fmt.Sprintf("%.2f±%.2f", mean, sd)
}
