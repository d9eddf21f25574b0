package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace/report"
)

// TestOnePassMatchesReadBack runs every scenario in configs/ once and
// summarises it both ways: from the run's in-memory recording, as `sim`
// does, and by reading the traces back, as `trace report` does. The
// summaries and the full metrics reports must be the same JSON, byte for
// byte.
func TestOnePassMatchesReadBack(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("configs: %v, %d files", err, len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		if skipScale(name) {
			continue
		}
		// Each config in the layout it chooses, and the small ones in the
		// combined layout too (the large ones choose it).
		layouts := []string{""}
		if name != "static-10k" {
			layouts = append(layouts, scenario.LayoutCombined)
		}
		for _, layout := range layouts {
			sub, sets := name, []string(nil)
			if layout != "" {
				sub, sets = name+"/"+layout, []string{"trace.layout=" + layout}
			}
			t.Run(sub, func(t *testing.T) { onePass(t, f, sets) })
		}
	}
}

// onePass runs the scenario in f (with sets) and compares its summary from
// memory with the one read back.
func onePass(t *testing.T, f string, sets []string) {
	s, err := scenario.Load(f, sets)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := sim.Run(s, sim.Options{Out: dir, Record: report.Keep})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := report.SummarizeFrom(res.Recording, dir)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "summary", mem, disk)
	sameJSON(t, "metrics report", mem.Measurements(), disk.Measurements())
}

// skipScale says whether the whole-config tests leave out the scale
// config name: static-1m always (minutes and 15 GiB: scripts/bench.sh
// --1m measures it), static-100k (a minute and a gigabyte or more: it is
// measured by scripts/bench.sh, docs/performance.md) unless
// MANETLAB_SCALE_TESTS=1, static-10k in -short runs.
func skipScale(name string) bool {
	switch name {
	case "static-1m":
		return true
	case "static-100k":
		return os.Getenv("MANETLAB_SCALE_TESTS") != "1"
	case "static-10k":
		return testing.Short()
	}
	return false
}

// sameJSON fails the test when a and b do not encode to the same JSON.
func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ja, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ja, jb) {
		i := 0
		for i < len(ja) && i < len(jb) && ja[i] == jb[i] {
			i++
		}
		lo := max(0, i-200)
		t.Errorf("%s from memory differs from the traces read back at byte %d:\nmemory: ...%s\ndisk:   ...%s",
			what, i, ja[lo:min(len(ja), i+200)], jb[lo:min(len(jb), i+200)])
	}
	if len(ja) < 100 {
		t.Errorf("%s: suspiciously short JSON: %s", what, ja)
	}
}
