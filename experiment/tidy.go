package experiment

import (
	"encoding/csv"
	"io"
	"path/filepath"
	"strconv"

	"manetlab/internal/safefs"
	"manetlab/internal/tidy"
)

// Tidy tables: one row per run, the columns id, each axis path, seed,
// verdict, error (failed runs), each metric any run has (MetricNames
// order; empty or null where a run has none), wall_s, cpu_s, version,
// scenario_hash and run_hash. RunsCSV and RunsParquet are their names in
// a sweep's output or results directory.
const (
	RunsCSV     = "runs.csv"
	RunsParquet = "runs.parquet"
)

// tidyColumns lays the table's columns out; an axis whose values are all
// integers (or all numbers) is an integer (double) column in Parquet.
func tidyColumns(p *Plan, recs []*Record) ([]tidy.Column, []string) {
	cols := []tidy.Column{{Name: "id", Kind: tidy.String}}
	for _, a := range p.Axes {
		cols = append(cols, tidy.Column{Name: a.Path, Kind: axisKind(a.Values)})
	}
	cols = append(cols, tidy.Column{Name: "seed", Kind: tidy.Int64}, tidy.Column{Name: "verdict", Kind: tidy.String}, tidy.Column{Name: "error", Kind: tidy.String})
	seen := map[string]bool{}
	for _, r := range recs {
		for k := range r.Metrics {
			seen[k] = true
		}
	}
	var metrics []string
	for _, m := range MetricNames {
		if seen[m] {
			metrics = append(metrics, m)
			cols = append(cols, tidy.Column{Name: m, Kind: tidy.Float64})
		}
	}
	cols = append(cols, tidy.Column{Name: "wall_s", Kind: tidy.Float64}, tidy.Column{Name: "cpu_s", Kind: tidy.Float64},
		tidy.Column{Name: "version", Kind: tidy.String}, tidy.Column{Name: "scenario_hash", Kind: tidy.String}, tidy.Column{Name: "run_hash", Kind: tidy.String})
	return cols, metrics
}

func axisKind(vals []string) tidy.Kind {
	kind := tidy.Int64
	for _, v := range vals {
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			continue
		}
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			kind = tidy.Float64
			continue
		}
		return tidy.String
	}
	return kind
}

// cell is one value of the table: text (CSV, and Parquet's strings and
// parsed numbers) or null.
type cell struct {
	s    string
	null bool
}

// tidyRows gives each record's cells in column order.
func tidyRows(p *Plan, recs []*Record, metrics []string) [][]cell {
	var rows [][]cell
	txt := func(s string) cell { return cell{s: s, null: s == ""} }
	num := func(f float64) cell { return cell{s: strconv.FormatFloat(f, 'g', -1, 64)} }
	for _, r := range recs {
		row := []cell{txt(r.ID)}
		for _, v := range r.Values {
			row = append(row, cell{s: v})
		}
		row = append(row, num(float64(r.Seed)), txt(r.Verdict), txt(r.Error))
		for _, m := range metrics {
			if v, ok := r.Metrics[m]; ok {
				row = append(row, num(v))
			} else {
				row = append(row, cell{null: true})
			}
		}
		cpu := num(r.CPU)
		if r.CPU < 0 {
			cpu = cell{null: true}
		}
		row = append(row, num(r.Wall), cpu, txt(r.Version), txt(r.ScenarioHash), txt(r.RunHash))
		rows = append(rows, row)
	}
	return rows
}

// WriteRunsCSV writes the runs' table as CSV (RFC 4180, a header line;
// an empty field where a value is absent; numbers in Go's shortest
// exact form).
func WriteRunsCSV(w io.Writer, p *Plan, recs []*Record) error {
	cols, metrics := tidyColumns(p, recs)
	cw := csv.NewWriter(w)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.Name
	}
	cw.Write(head)
	for _, row := range tidyRows(p, recs, metrics) {
		rec := make([]string, len(row))
		for i, c := range row {
			rec[i] = c.s
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteRunsParquet writes the runs' table as Parquet with typed columns.
func WriteRunsParquet(w io.Writer, p *Plan, recs []*Record) error {
	cols, metrics := tidyColumns(p, recs)
	pw, err := tidy.NewWriter(w, "run", cols)
	if err != nil {
		return err
	}
	for _, row := range tidyRows(p, recs, metrics) {
		for i, c := range row {
			if c.null {
				continue
			}
			switch cols[i].Kind {
			case tidy.String:
				pw.Str(i, c.s)
			case tidy.Int64:
				n, _ := strconv.ParseInt(c.s, 10, 64)
				pw.Int(i, n)
			case tidy.Float64:
				f, _ := strconv.ParseFloat(c.s, 64)
				pw.Float(i, f)
			}
		}
		if err := pw.EndRow(); err != nil {
			return err
		}
	}
	return pw.Close()
}

// WriteTidy writes RunsCSV and RunsParquet into dir (each atomically)
// and returns their paths.
func WriteTidy(dir string, p *Plan, recs []*Record) ([]string, error) {
	if err := safefs.MkdirAll(dir); err != nil {
		return nil, err
	}
	var out []string
	for _, t := range []struct {
		name  string
		write func(io.Writer, *Plan, []*Record) error
	}{{RunsCSV, WriteRunsCSV}, {RunsParquet, WriteRunsParquet}} {
		path := filepath.Join(dir, t.name)
		if err := safefs.WriteAtomic(path, func(w io.Writer) error { return t.write(w, p, recs) }); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}
