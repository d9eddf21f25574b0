package experiment

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteTable prints the sweep as an aligned text table: one row per grid
// point, the axis values, runs by final verdict (valid, invalid,
// unsettled, each of the runs), then each
// metric as mean±sd over seeds.
func (r *Result) WriteTable(w io.Writer) {
	metrics := r.SortedMetrics()
	head := []string{}
	for _, a := range r.Axes {
		head = append(head, a.Path)
	}
	head = append(head, "valid", "invalid", "unsettled")
	head = append(head, metrics...)
	rows := [][]string{head}
	for _, p := range r.Points {
		row := append([]string{}, p.Values...)
		row = append(row, fmt.Sprintf("%d/%d", p.Valid, p.Runs), fmt.Sprintf("%d/%d", p.Invalid, p.Runs), fmt.Sprintf("%d/%d", p.Unsettled, p.Runs))
		for _, m := range metrics {
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
}

// format shows shares as percentages, message and frame totals whole, complexity
// counts whole where every seed agrees (else with a decimal), the
// election time in milliseconds' precision and the rest with two decimals.
func format(metric string, mean, sd float64) string {
	switch metric {
	case "F", "leader", "wrong_or_unknown":
		return fmt.Sprintf("%.1f%%±%.1f", 100*mean, 100*sd)
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
