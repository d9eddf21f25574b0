package tidy_test

import (
	"fmt"
	"os"
	"testing"

	"manetlab/internal/tidy"
	"manetlab/internal/tidy/tidytest"
)

func TestParquetReadBackWithArrow(t *testing.T) {
	path := t.TempDir() + "/t.parquet"
	f, _ := os.Create(path)
	cols := []tidy.Column{{Name: "z_id", Kind: tidy.String}, {Name: "a_n", Kind: tidy.Int64}, {Name: "node", Kind: tidy.Uint32}, {Name: "seq", Kind: tidy.Uint64}, {Name: "x", Kind: tidy.Float64}}
	w, err := tidy.NewWriter(f, "t", cols)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]any
	for i := 0; i < tidy.BatchRows+5; i++ { // more than one batch
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
	names, rows := tidytest.ReadWithArrow(t, path)
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
