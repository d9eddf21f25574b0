package analysis

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/tracetest"
)

// updateMerge rewrites the golden files of the merge tests.
var updateMerge = flag.Bool("update", false, "rewrite the golden files of the merge tests (testdata/merge)")

// mergeOutput is what the merge writes and reports on dirs, the
// directories' paths replaced by DIR1, DIR2...
func mergeOutput(t *testing.T, dirs ...string) (string, *MergeReport) {
	t.Helper()
	var out bytes.Buffer
	rep, err := Merge(dirs, &out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != strings.Count(out.String(), "\n")-1 {
		t.Errorf("reported %d events, merged %d lines", rep.Events, strings.Count(out.String(), "\n"))
	}
	j, _ := json.MarshalIndent(rep, "", " ")
	text := string(j) + "\n" + out.String()
	for i, d := range dirs {
		text = strings.ReplaceAll(text, d, "DIR"+strconv.Itoa(i+1))
	}
	return text, rep
}

// goldenMerge asserts that the merge writes and reports on dirs what
// testdata/merge/NAME.txt holds: what the merge holding every event in
// memory wrote and reported, which the streaming merge replaced.
func goldenMerge(t *testing.T, name string, dirs ...string) *MergeReport {
	t.Helper()
	got, rep := mergeOutput(t, dirs...)
	path := filepath.Join("testdata", "merge", name+".txt")
	if *updateMerge {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := string(mustRead(t, path))
	if got != want {
		a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("%s: line %d differs:\nwant %s\ngot  %s", path, i+1, a[i], b[i])
			}
		}
		t.Fatalf("%s: %d lines, got %d", path, len(a), len(b))
	}
	return rep
}

func TestMergeGolden(t *testing.T) {
	for _, skew := range []time.Duration{5 * time.Second, -5 * time.Second} {
		for _, withHLC := range []bool{true, false} {
			t.Run(fmt.Sprintf("skew%v/hlc=%v", skew, withHLC), func(t *testing.T) {
				dir := t.TempDir()
				skewedRun(t, dir, map[protocol.NodeID]time.Duration{2: skew}, withHLC)
				rep := goldenMerge(t, fmt.Sprintf("skew%v-hlc%v", skew, withHLC), dir)
				if !withHLC && rep.Repaired == 0 {
					t.Error("no repair: the test does not test the topological pass")
				}
			})
		}
	}
	t.Run("duplicates across directories", func(t *testing.T) {
		a, b := t.TempDir(), t.TempDir()
		skewedRun(t, a, map[protocol.NodeID]time.Duration{3: -5 * time.Second}, true)
		data, _ := os.ReadFile(trace.NodeFile(a, 2))
		os.WriteFile(trace.NodeFile(b, 2), data, 0o644)
		appendRaw(t, trace.NodeFile(a, 1), `{"t":999,"node":1,"ev":"se`)
		if rep := goldenMerge(t, "duplicates", a, b); rep.Duplicates != 24 {
			t.Errorf("%d duplicates, want 24", rep.Duplicates)
		}
	})
	t.Run("damage", func(t *testing.T) {
		dir := t.TempDir()
		damagedRun(t, dir)
		rep := goldenMerge(t, "damage", dir)
		if rep.CyclesBroken == 0 || rep.Unmatched <= maxProblems || rep.Duplicates == 0 || len(rep.Problems) < 30 {
			t.Errorf("the damage is not all there: %+v", rep)
		}
		comb := t.TempDir()
		tracetest.Combine(t, dir, comb)
		goldenMerge(t, "damage-combined", comb)
	})
	t.Run("combined", func(t *testing.T) {
		dir := t.TempDir()
		skewedRun(t, dir, nil, false)
		comb := t.TempDir()
		tracetest.Combine(t, dir, comb)
		goldenMerge(t, "combined", comb)
		// Damage: a line of no node, a node's second header, an event of
		// a node without a header, garbage, a duplicate.
		data, _ := os.ReadFile(trace.NodesFile(comb))
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		lines = slices.Insert(lines, 10, `{"t":5,"node":0,"ev":"start"}`, lines[1], `{"t":5,"node":9,"ev":"start"}`, `not json`, lines[12])
		os.WriteFile(trace.NodesFile(comb), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		rep := goldenMerge(t, "combined-damaged", comb)
		if rep.Duplicates != 1 || len(rep.Problems) < 4 {
			t.Errorf("%d duplicates, problems %q", rep.Duplicates, rep.Problems)
		}
	})
}

// damagedRun writes a run with every kind of damage the merge repairs or
// reports: a causal cycle, receives without a send (more than are
// listed), a sequence number used again (more than are listed), a
// second header, another node's event, a duplicate after time went back,
// a file of another run, a file without a header.
func damagedRun(t *testing.T, dir string) {
	t.Helper()
	writeTrace(t, trace.RunFile(dir), "r1", 0, "", trace.Event{T: 1, Node: 2, Ev: trace.EvCrash}, trace.Event{T: 2, Node: 2, Ev: trace.EvRecover})
	var n1, n2, n3 []trace.Event
	// A cycle: each receives the other's frame before sending its own.
	n1 = append(n1, trace.Event{T: 10, Node: 1, Ev: trace.EvRecv, From: 2, Seq: 1}, trace.Event{T: 11, Node: 1, Ev: trace.EvSend, Seq: 1})
	n2 = append(n2, trace.Event{T: 10, Node: 2, Ev: trace.EvRecv, From: 1, Seq: 1}, trace.Event{T: 11, Node: 2, Ev: trace.EvSend, Seq: 1})
	for i := range 30 {
		n3 = append(n3, trace.Event{T: int64(20 + i), Node: 3, Ev: trace.EvRecv, From: 7, Seq: uint64(i)})
		n1 = append(n1, trace.Event{T: int64(20 + i), Node: 1, Ev: trace.EvSend, Seq: 5})
	}
	// Receives whose clock is before their send.
	n3 = append(n3, trace.Event{T: 60, Node: 3, Ev: trace.EvRecv, From: 1, Seq: 5}, trace.Event{T: 61, Node: 3, Ev: trace.EvDrop, From: 2, Seq: 9})
	n2 = append(n2, trace.Event{T: 70, Node: 2, Ev: trace.EvSend, Seq: 9}, trace.Event{T: 71, Node: 2, Ev: trace.EvHeader, Run: "r1", Schema: 1},
		trace.Event{T: 72, Node: 5, Ev: trace.EvStart}, trace.Event{T: 40, Node: 2, Ev: "leader", Leader: 2},
		trace.Event{T: 40, Node: 2, Ev: "leader", Leader: 2}, trace.Event{T: 11, Node: 2, Ev: trace.EvSend, Seq: 1})
	writeTrace(t, trace.NodeFile(dir, 1), "r1", 1, "", n1...)
	writeTrace(t, trace.NodeFile(dir, 2), "r1", 2, "", n2...)
	writeTrace(t, trace.NodeFile(dir, 3), "r1", 3, "", n3...)
	appendRaw(t, trace.NodeFile(dir, 3), "garbage\n{\"t\":3}\n")
	writeTrace(t, trace.NodeFile(dir, 4), "r0", 4, "", trace.Event{T: 1, Node: 4, Ev: trace.EvStart})
	os.WriteFile(trace.NodeFile(dir, 6), []byte(`{"t":1,"node":6,"ev":"start"}`+"\n"), 0o644)
}

// Hostile combined files never panic, and merge as the streaming merge
// merged them when the merge holding every event in memory was removed
// (digests in testdata/merge/hostile.txt). That merge put 7 of these 40
// in another order: lines swapped out of time order, which the combined
// file is read along (docs/analysis.md, "Merge").
func TestStreamMergeHostileCombined(t *testing.T) {
	src := t.TempDir()
	skewedRun(t, src, nil, false)
	base := t.TempDir()
	tracetest.Combine(t, src, base)
	var digests []string
	for k, dir := range hostileCombined(t, base, 40) {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			out, _ := mergeOutput(t, dir)
			digests = append(digests, digest(k, out))
			// The other readers of the combined file.
			if _, err := Check(dir, CheckOptions{}); err != nil {
				t.Error(err)
			}
			if _, err := ComputeMetrics(dir, MetricsOptions{}); err != nil {
				t.Error(err)
			}
			if _, err := ReadDir(dir); err != nil {
				t.Error(err)
			}
		})
	}
	goldenText(t, "hostile", strings.Join(digests, ""))
}

// hostileCombined writes n damaged copies of the combined run in base:
// lines inserted from a list of hostile ones, deleted and swapped.
func hostileCombined(t *testing.T, base string, n int) []string {
	data := mustRead(t, trace.NodesFile(base))
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	junk := []string{`{"t":-5,"node":2,"ev":"recv","from":3,"seq":1}`, `{"t":1e99,"node":1,"ev":"send"}`, `{"t":9,"node":4294967295,"ev":"send","seq":1}`,
		`{"t":9,"node":1,"ev":"header","run":"r1","schema":1}`, `{"t":9,"node":3,"node":1,"ev":"recv","from":2,"seq":3}`, `{`, ``, `{"t":3,"node":2}`,
		`{"t":100000000000,"node":3,"ev":"recv","from":1,"seq":2}`, `{"t":1,"node":1,"ev":"send","seq":1,"bytes":-4}`}
	rng := rand.New(rand.NewSource(1))
	var dirs []string
	for range n {
		out := slices.Clone(lines)
		for range 1 + rng.Intn(6) {
			i := rng.Intn(len(out))
			switch rng.Intn(3) {
			case 0:
				out = slices.Insert(out, i, junk[rng.Intn(len(junk))])
			case 1:
				out = slices.Delete(out, i, i+1)
			default:
				j := rng.Intn(len(out))
				out[i], out[j] = out[j], out[i]
			}
		}
		dir := t.TempDir()
		os.WriteFile(trace.RunFile(dir), mustRead(t, trace.RunFile(base)), 0o644)
		os.WriteFile(trace.NodesFile(dir), []byte(strings.Join(out, "\n")+"\n"), 0o644)
		dirs = append(dirs, dir)
	}
	return dirs
}

// digest is a line naming case k and the SHA-256 of its output.
func digest(k int, out string) string {
	return fmt.Sprintf("%d %x\n", k, sha256.Sum256([]byte(out)))
}

// goldenText asserts that testdata/merge/NAME.txt holds got.
func goldenText(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "merge", name+".txt")
	if *updateMerge {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := string(mustRead(t, path)); got != want {
		t.Errorf("%s differs:\nwant %s\ngot  %s", path, want, got)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recordDir records the files of dir as their writer would (a
// trace.Recording keeping keep), from the lines on disk.
func recordDir(t *testing.T, dir string, keep func(string) bool) *trace.Recording {
	t.Helper()
	rec := trace.NewRecording(dir, keep)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range entries {
		path := filepath.Join(dir, de.Name())
		f := rec.File(path)
		for _, l := range strings.Split(strings.TrimSuffix(string(mustRead(t, path)), "\n"), "\n") {
			var e trace.Event
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatal(err)
			}
			f.Add(&e, []byte(l))
		}
	}
	return rec
}

// The simulator's recording of a combined run goes through the same
// demultiplexer as the disk: the metrics are the same.
func TestRecordingCombined(t *testing.T) {
	src := t.TempDir()
	skewedRun(t, src, nil, false)
	dir := t.TempDir()
	tracetest.Combine(t, src, dir)
	rec := recordDir(t, dir, MetricEvents)
	want, err := ComputeMetricsFrom(trace.Disk, dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ComputeMetricsFrom(rec, dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	perNode, err := ComputeMetricsFrom(trace.Disk, src, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	pj, _ := json.Marshal(perNode)
	if !bytes.Equal(wj, gj) {
		t.Errorf("recording %s\ndisk      %s", gj, wj)
	}
	if !bytes.Equal(bytes.ReplaceAll(pj, []byte(src), []byte(dir)), wj) || want.Messages["election"].Broadcast != 18 {
		t.Errorf("per-node layout %s\ncombined %s", pj, wj)
	}
}

// A combined directory merged with others: its lines come between the
// node's lines in the directories before and after it.
func TestMergeCombinedWithOthers(t *testing.T) {
	src := t.TempDir()
	skewedRun(t, src, map[protocol.NodeID]time.Duration{2: -5 * time.Second}, true)
	comb := t.TempDir()
	tracetest.Combine(t, src, comb)
	other := t.TempDir() // node 2's file again (duplicates), and node 4's
	os.WriteFile(trace.NodeFile(other, 2), mustRead(t, trace.NodeFile(src, 2)), 0o644)
	writeTrace(t, trace.NodeFile(other, 4), "r1", 4, "", trace.Event{T: 1, Node: 4, Ev: trace.EvStart})
	withRun := t.TempDir() // a run file and node 1's
	os.WriteFile(trace.RunFile(withRun), mustRead(t, trace.RunFile(src)), 0o644)
	os.WriteFile(trace.NodeFile(withRun, 1), mustRead(t, trace.NodeFile(src, 1)), 0o644)
	dam := t.TempDir()
	damagedRun(t, dam)
	damComb := t.TempDir()
	tracetest.Combine(t, dam, damComb)
	rep := goldenMerge(t, "combined-other", comb, other)
	if rep.Duplicates != 24 || rep.Events != 73 {
		t.Errorf("merged %d events, %d duplicates", rep.Events, rep.Duplicates)
	}
	goldenMerge(t, "other-combined", other, comb)
	goldenMerge(t, "run-combined", withRun, comb)
	goldenMerge(t, "combined-twice", comb, comb)
	goldenMerge(t, "pernode-combined", src, comb)
	goldenMerge(t, "combined-damaged-damaged", damComb, dam)
	var digests []string
	for k, dir := range hostileCombined(t, comb, 30) {
		var out string
		switch k % 3 {
		case 0:
			out, _ = mergeOutput(t, dir, other)
		case 1:
			out, _ = mergeOutput(t, withRun, dir)
		default:
			out, _ = mergeOutput(t, dir, src, comb)
		}
		digests = append(digests, digest(k, out))
	}
	goldenText(t, "hostile-with-others", strings.Join(digests, ""))
}
