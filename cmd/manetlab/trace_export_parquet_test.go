package main

import (
	"path/filepath"
	"testing"

	"manetlab/internal/tidy/tidytest"
)

func TestTraceExportParquet(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if _, err := runCLI(t, "sim", "../../configs/static-line.yaml", "--out", run, "--quiet"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "events.parquet")
	if _, err := runCLI(t, "trace", "export", "--format", "parquet", run, "-o", out); err != nil {
		t.Fatal(err)
	}
	names, rows := tidytest.ReadWithArrow(t, out)
	if len(rows) < 10 || names[0] != "t" || names[2] != "ev" {
		t.Fatalf("%d rows, columns %v", len(rows), names)
	}
	for i, r := range rows {
		if ev, ok := r[2].(string); !ok || ev == "" {
			t.Fatalf("row %d has no event type: %v", i, r)
		}
	}
}
