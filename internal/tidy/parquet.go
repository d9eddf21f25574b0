// Package tidy writes tables with one row per observation as Parquet
// files (through github.com/parquet-go/parquet-go) that pandas, R,
// DuckDB and Spark read: a sweep's runs (package experiment) and a run's
// events (trace export --format parquet).
package tidy

import (
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// Kind is a column's type.
type Kind int

const (
	String  Kind = iota // UTF-8 text, dictionary-encoded
	Int64               // signed 64-bit integer
	Uint32              // unsigned 32-bit integer (node ids)
	Uint64              // unsigned 64-bit integer (sequence numbers)
	Float64             // IEEE double
)

// Column is a column's name and type; every column may hold nulls.
type Column struct {
	Name string
	Kind Kind
}

func (k Kind) node() parquet.Node {
	switch k {
	case Int64:
		return parquet.Int(64)
	case Uint32:
		return parquet.Uint(32)
	case Uint64:
		return parquet.Uint(64)
	case Float64:
		return parquet.Leaf(parquet.DoubleType)
	}
	return parquet.Encoded(parquet.String(), &parquet.RLEDictionary)
}

// ordered is a group whose columns come in the order given, not
// parquet.Group's alphabetical order.
type ordered struct {
	parquet.Group
	order []string
}

func (g ordered) Fields() []parquet.Field {
	fields := slices.Clone(g.Group.Fields())
	slices.SortStableFunc(fields, func(a, b parquet.Field) int {
		return slices.Index(g.order, a.Name()) - slices.Index(g.order, b.Name())
	})
	return fields
}

// RowGroupRows bounds a row group: the writer holds one in memory (a
// 100,000-node run has tens of millions of events), and readers such as
// DuckDB read row groups in parallel.
const RowGroupRows = 128 << 10 // 131,072 rows

// BatchRows is how many rows are buffered before they are handed to the
// Parquet writer (which cuts row groups at its own default size).
const BatchRows = 16 << 10

// Writer writes rows to a Parquet file: set each column of a row with
// the method of its kind (a column not set is null), then EndRow; Close
// writes the footer.
type Writer struct {
	cols []Column
	pw   *parquet.Writer
	rows []parquet.Row
	cur  parquet.Row
	set  []bool
}

// NewWriter starts a Parquet file of these columns on w (Snappy
// compression, row groups of at most RowGroupRows). Column names must differ.
func NewWriter(w io.Writer, name string, cols []Column) (*Writer, error) {
	g := ordered{Group: parquet.Group{}}
	for _, c := range cols {
		if _, dup := g.Group[c.Name]; dup || c.Name == "" {
			return nil, fmt.Errorf("tidy: column name %q empty or repeated", c.Name)
		}
		g.Group[c.Name] = parquet.Optional(c.Kind.node())
		g.order = append(g.order, c.Name)
	}
	schema := parquet.NewSchema(name, g)
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(RowGroupRows))
	return &Writer{cols: cols, pw: pw, cur: make(parquet.Row, len(cols)), set: make([]bool, len(cols))}, nil
}

func (w *Writer) put(i int, k Kind, v parquet.Value) {
	if w.cols[i].Kind != k {
		panic(fmt.Sprintf("tidy: column %s is not of kind %d", w.cols[i].Name, k))
	}
	w.cur[i] = v.Level(0, 1, i)
	w.set[i] = true
}

// Str sets column i of the current row.
func (w *Writer) Str(i int, v string) { w.put(i, String, parquet.ByteArrayValue([]byte(v))) }

// Int sets column i of the current row.
func (w *Writer) Int(i int, v int64) { w.put(i, Int64, parquet.Int64Value(v)) }

// Uint32 sets column i of the current row.
func (w *Writer) Uint32(i int, v uint32) { w.put(i, Uint32, parquet.Int32Value(int32(v))) }

// Uint64 sets column i of the current row.
func (w *Writer) Uint64(i int, v uint64) { w.put(i, Uint64, parquet.Int64Value(int64(v))) }

// Float sets column i of the current row.
func (w *Writer) Float(i int, v float64) { w.put(i, Float64, parquet.DoubleValue(v)) }

// EndRow ends the current row.
func (w *Writer) EndRow() error {
	for i, ok := range w.set {
		if !ok {
			w.cur[i] = parquet.Value{}.Level(0, 0, i)
		}
		w.set[i] = false
	}
	w.rows = append(w.rows, w.cur)
	w.cur = make(parquet.Row, len(w.cols))
	if len(w.rows) == BatchRows {
		return w.flush()
	}
	return nil
}

func (w *Writer) flush() error {
	_, err := w.pw.WriteRows(w.rows)
	w.rows = w.rows[:0]
	return err
}

// Close writes the rows left and the footer; it does not close the
// underlying writer.
func (w *Writer) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.pw.Close()
}
