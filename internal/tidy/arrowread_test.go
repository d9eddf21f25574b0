package tidy

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ReadWithArrow reads a Parquet file with Apache Arrow's reader (an
// implementation independent of the writer's): the column names in
// order and every value as a Go value (nil for null: string, int64,
// uint32, uint64 or float64).
func readWithArrow(t testing.TB, path string) ([]string, [][]any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatalf("%s: arrow: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: arrow: %v", path, err)
	}
	defer tbl.Release()
	var names []string
	rows := make([][]any, tbl.NumRows())
	for i := range rows {
		rows[i] = make([]any, tbl.NumCols())
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		col := tbl.Column(c)
		names = append(names, col.Name())
		r := 0
		for _, chunk := range col.Data().Chunks() {
			for k := 0; k < chunk.Len(); k, r = k+1, r+1 {
				if chunk.IsNull(k) {
					continue
				}
				switch a := chunk.(type) {
				case *array.String:
					rows[r][c] = a.Value(k)
				case *array.Int64:
					rows[r][c] = a.Value(k)
				case *array.Uint32:
					rows[r][c] = a.Value(k)
				case *array.Uint64:
					rows[r][c] = a.Value(k)
				case *array.Float64:
					rows[r][c] = a.Value(k)
				case *array.Dictionary:
					rows[r][c] = a.Dictionary().(*array.String).Value(a.GetValueIndex(k))
				default:
					t.Fatalf("%s: column %s: arrow type %s", path, col.Name(), chunk.DataType())
				}
			}
		}
	}
	_ = arrow.PrimitiveTypes
	return names, rows
}

func TestParquetReadBackWithArrow(t *testing.T) {
	path := t.TempDir() + "/t.parquet"
	f, _ := os.Create(path)
	cols := []Column{{"z_id", String}, {"a_n", Int64}, {"node", Uint32}, {"seq", Uint64}, {"x", Float64}}
	w, err := NewWriter(f, "t", cols)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]any
	for i := 0; i < BatchRows+5; i++ { // more than one batch
		row := []any{fmt.Sprintf("r%d", i%7), int64(-i), uint32(4000000000 + i%3), uint64(1<<63 + uint64(i)), float64(i) / 3}
		if i%5 == 0 {
			row[1], row[4] = nil, nil
		}
		if i%11 == 0 {
			row[0] = nil
		}
		for c, v := range row {
			switch v := v.(type) {
			case string:
				w.Str(c, v)
			case int64:
				w.Int(c, v)
			case uint32:
				w.Uint32(c, v)
			case uint64:
				w.Uint64(c, v)
			case float64:
				w.Float(c, v)
			}
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
		want = append(want, row)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	names, rows := readWithArrow(t, path)
	if fmt.Sprint(names) != "[z_id a_n node seq x]" {
		t.Fatalf("columns %v, want the order written", names)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if fmt.Sprintf("%#v", rows[i]) != fmt.Sprintf("%#v", want[i]) {
			t.Fatalf("row %d: arrow read %#v, want %#v", i, rows[i], want[i])
		}
	}
}
