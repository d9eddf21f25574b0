package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of TestTraceGolden (testdata/golden)")

// goldenCases are small runs whose every output TestTraceGolden holds:
// the per-node and the combined layout, an election with a crash and a
// recovery, mutual exclusion, and a ring.
var goldenCases = []struct{ name, config string }{
	{"quickstart", "../../configs/quickstart.yaml --set duration=25s"},
	{"mutex-lamport-combined", "../../configs/mutex-lamport.yaml --set trace.layout=combined"},
	{"ring-chang-roberts", "../../configs/ring-chang-roberts.yaml"},
}

// TestTraceGolden runs each golden case through sim, and the traces
// through trace check, report (text, JSON and HTML), merge and export,
// and compares every output with testdata/golden: the reading, merging
// and judging of a run are the same as when the files were written
// (go test ./cmd/manetlab -run TestTraceGolden -update rewrites them,
// for a change that means to change them; scripts/tracediff.sh compares
// two builds on every shipped config). The texts are held whole; the
// merged trace, the exports and the page's data by line count and
// SHA-256. Paths are written as RUN, the wall time as WALL.
func TestTraceGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "run")
			out := func(args ...string) string {
				t.Helper()
				app := newApp()
				var buf bytes.Buffer
				app.Writer, app.ErrWriter = &buf, &buf
				if err := app.Run(reorderArgs(app, append([]string{"manetlab"}, args...))); err != nil {
					fmt.Fprintf(&buf, "error: %v\n", err)
				}
				return buf.String()
			}
			file := func(p string) string {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			texts := map[string]string{}
			texts["sim.txt"] = out(append(append([]string{"sim"}, strings.Fields(c.config)...), "--out", dir, "--quiet")...)
			texts["check.txt"] = out("trace", "check", dir)
			texts["check.json"] = out("trace", "check", dir, "--json")
			texts["report.txt"] = out("trace", "report", dir)
			texts["report.json"] = out("trace", "report", dir, "--json")
			texts["html.txt"] = out("trace", "report", dir, "--html", filepath.Join(tmp, "page.html"))
			texts["merge.txt"] = out("trace", "merge", dir, "-o", filepath.Join(tmp, "merged.jsonl"))
			texts["export.txt"] = out("trace", "export", "--format", "shiviz", dir, "-o", filepath.Join(tmp, "x.shiviz")) +
				out("trace", "export", "--format", "netanim", dir, "-o", filepath.Join(tmp, "x.xml"))
			digests := ""
			for _, f := range []string{"merged.jsonl", "x.shiviz", "x.xml"} {
				digests += digest(f, mask(file(filepath.Join(tmp, f)), dir))
			}
			digests += digest("page data", mask(pageData(t, file(filepath.Join(tmp, "page.html"))), dir))
			texts["digests.txt"] = digests
			for name, got := range texts {
				got = mask(got, dir)
				path := filepath.Join("testdata", "golden", c.name, name)
				if *updateGolden {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test -run TestTraceGolden -update writes it)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from %s:\n%s", name, path, firstDiff(string(want), got))
				}
			}
		})
	}
}

// wallTime is the wall-clock part of sim's last line.
var wallTime = regexp.MustCompile(` in [^:]*: ([0-9]+) events \([0-9]+/s\)`)

// mask writes the run directory as RUN and sim's wall time as WALL.
func mask(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "RUN")
	return wallTime.ReplaceAllString(s, " in WALL: $1 events")
}

// digest is a line naming an output by its line count and SHA-256.
func digest(name, s string) string {
	return fmt.Sprintf("%s: %d lines, sha256 %x\n", name, strings.Count(s, "\n"), sha256.Sum256([]byte(s)))
}

// pageData is the JSON the HTML page embeds.
func pageData(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, `id="manetlab-data">`)
	data, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("the page holds no data element")
	}
	return data
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("want %d lines, got %d", len(w), len(g))
}
