// Package tidytest reads Parquet files back with Apache Arrow's Go
// reader, an implementation independent of the parquet-go writer that
// package tidy uses, so that tests check what other tools will read.
// Only tests import it.
package tidytest

import (
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ReadWithArrow reads a Parquet file with Apache Arrow's reader (an
// implementation independent of the writer's): the column names in
// order and every value as a Go value (nil for null: string, int64,
// uint32, uint64 or float64).
func ReadWithArrow(t testing.TB, path string) ([]string, [][]any) {
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
	return names, rows
}
