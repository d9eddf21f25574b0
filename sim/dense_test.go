package sim

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// TestFaultDenseRunFile: a scenario of 20,000 faults costs the run file
// about its own size (the header holds it resolved, an entry a line) and
// what sim writes, trace check reads back: 450,000 faults of a 15 MB file
// made a 22.6 MB header that the aggregator refused (over
// scenario.MaxFileBytes), and the YAML library's emitter took 36 KB a
// fault to write it (issue 24, item 6).
func TestFaultDenseRunFile(t *testing.T) {
	const faults = 20000
	var b strings.Builder
	b.WriteString("name: dense\nduration: 20s\nnodes: {count: 6, values: id, placement: grid}\n" +
		"mobility: {model: static, area: [300, 300]}\nprotocol: {name: baseline/floodmax}\nfaults:\n")
	for i := range faults {
		// Nodes 1 to 5 crash and recover for the first 4 s; then the
		// network settles, node 6 leading.
		at := time.Duration(i+1) * 4 * time.Second / (faults + 1)
		kind := "crash"
		if i%2 == 1 {
			kind = "recover"
		}
		fmt.Fprintf(&b, "  - {at: %v, %s: [%d]}\n", at, kind, i/2%5+1)
	}
	src := b.String()
	s, err := scenario.Parse([]byte(src), "dense.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Run(s, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// 24-49 MB measured, the simulation included (and whatever tests
	// running beside it allocate: TotalAlloc is the process's); writing
	// the header with the library's emitter alone took 720 MB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256*uint64(len(src)) {
		t.Errorf("sim allocated %d MB for a %d KB scenario, want at most 256 times its size", alloc>>20, len(src)>>10)
	}

	evs, probs, err := trace.ReadFile(filepath.Join(dir, trace.RunFileName))
	if err != nil || len(probs) > 0 || len(evs) == 0 || evs[0].Ev != trace.EvHeader {
		t.Fatalf("run file: %v, %v", err, probs)
	}
	if got := len(evs[0].Scenario); got > len(src)+4096 {
		t.Errorf("the run header's scenario takes %d bytes for a %d-byte file, want at most 4 KB more (the defaults)", got, len(src))
	}
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Errorf("trace check found problems: %v", rep.Problems)
	}
	for _, p := range rep.Properties {
		if p.Name == analysis.PropStableLeader && (p.Verdict != analysis.Valid || p.Checked == 0) {
			t.Errorf("stable-leader %s over %d instants (%s), want valid: the ground truth read from the run header", p.Verdict, p.Checked, p.Reason)
		}
	}
}
