package sim

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"manetlab/trace"
	"manetlab/trace/analysis"
)

// runLevels runs y once per trace level and compression, in the
// per-node and the combined layout, and returns the directories by
// "level/compress/layout".
func runLevels(t *testing.T, y string) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for _, level := range []string{"full", "summary"} {
		for _, comp := range []string{"none", "zstd"} {
			for _, layout := range []string{"per-node", "combined"} {
				key := level + "/" + comp + "/" + layout
				dir := filepath.Join(t.TempDir(), "run")
				s := parse(t, y, "trace.level="+level, "trace.compress="+comp, "trace.layout="+layout)
				if _, err := Run(s, Options{Out: dir}); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				dirs[key] = dir
			}
		}
	}
	return dirs
}

// readPlain reads every trace file of dir as trace.Open hands it (by
// name), and says whether any was compressed on disk.
func readPlain(t *testing.T, dir string) (map[string][]byte, bool) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(names) == 0 {
		t.Fatalf("%s: no trace files (%v)", dir, err)
	}
	out := map[string][]byte{}
	zstd := false
	for _, p := range names {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		zstd = zstd || trace.IsZstd(raw)
		f, err := trace.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(p)] = b
	}
	return out, zstd
}

// withoutLeftOut is the lines of a full trace file that the summary
// level keeps: no receive, and only the drops that are a lost message.
func withoutLeftOut(t *testing.T, b []byte) ([]byte, int) {
	var out []byte
	left := 0
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e trace.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if e.Ev == trace.EvRecv || e.Ev == trace.EvDrop && !analysis.LostDrop(&e) {
			left++
			continue
		}
		out = append(out, line...)
	}
	return out, left
}

// checkJSON is the JSON of `trace check`'s report of dir.
func checkJSON(t *testing.T, dir string) string {
	t.Helper()
	rep, err := analysis.Check(dir, analysis.CheckOptions{})
	if err != nil {
		t.Fatalf("check %s: %v", dir, err)
	}
	b, err := json.Marshal(rep.Properties)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTraceLevelsAndCompression: a compressed run's files are zstd on
// disk and read back (trace.Open) as exactly the plain run's bytes; the
// summary level's files are exactly the full ones less the receives and
// the drops no check weighs; and `trace check` judges all four alike,
// in both layouts. A protocol whose check counts its messages against
// a bound keeps every receive at the summary level.
func TestTraceLevelsAndCompression(t *testing.T) {
	const lossy = "duration: 15s\nnodes: {count: 30, placement: grid}\nradio: {range: 150, loss: {p: 0.2}}\nmobility: {area: [600, 500]}\nprotocol: {name: baseline/floodmax}\n"
	dirs := runLevels(t, lossy)
	for _, layout := range []string{"per-node", "combined"} {
		full, fz := readPlain(t, dirs["full/none/"+layout])
		want := checkJSON(t, dirs["full/none/"+layout])
		for _, key := range []string{"full/zstd/", "summary/none/", "summary/zstd/"} {
			dir := dirs[key+layout]
			got, z := readPlain(t, dir)
			if z != (key != "summary/none/") || fz {
				t.Errorf("%s%s: compressed on disk %v", key, layout, z)
			}
			if len(got) != len(full) {
				t.Fatalf("%s%s: %d files, full has %d", key, layout, len(got), len(full))
			}
			left := 0
			for name, b := range full {
				g := got[name]
				if name == trace.RunFileName {
					// Its header holds the scenario, levels and all.
					_, b, _ = bytes.Cut(b, []byte("\n"))
					_, g, _ = bytes.Cut(g, []byte("\n"))
				} else if key != "full/zstd/" {
					var n int
					b, n = withoutLeftOut(t, b)
					left += n
				}
				if !bytes.Equal(g, b) {
					t.Errorf("%s%s: %s differs from the full trace's (%d against %d bytes)", key, layout, name, len(got[name]), len(b))
				}
			}
			if key != "full/zstd/" && left == 0 {
				t.Errorf("%s%s: the full run has no receive to leave out: the test proves nothing", key, layout)
			}
			if c := checkJSON(t, dir); c != want {
				t.Errorf("%s%s: trace check differs:\n%s\nfull:\n%s", key, layout, c, want)
			}
		}
	}

	// Garcia-Molina's check counts its messages against a budget, which
	// reads every receive: the summary level keeps them all.
	const gm = "duration: 10s\nnodes: {count: 6}\nprotocol: {name: invitation/garcia-molina}\n"
	b := map[string]map[string][]byte{}
	for _, level := range []string{"full", "summary"} {
		dir := filepath.Join(t.TempDir(), "run")
		if _, err := Run(parse(t, gm, "trace.level="+level), Options{Out: dir}); err != nil {
			t.Fatal(err)
		}
		b[level], _ = readPlain(t, dir)
	}
	recv := 0
	for name, full := range b["full"] {
		recv += bytes.Count(full, []byte(`"ev":"recv"`))
		if name != trace.RunFileName && !bytes.Equal(b["summary"][name], full) {
			t.Errorf("garcia-molina: the summary level left events out of %s", name)
		}
	}
	if recv == 0 {
		t.Error("garcia-molina: no receive in the full trace: the test proves nothing")
	}
}
