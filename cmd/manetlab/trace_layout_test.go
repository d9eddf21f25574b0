package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"manetlab/protocol"
	"manetlab/trace"
)

// combineRun copies the run directory src into dst in the combined
// layout: every node's header in node order, then every node's events by
// time, each node's in its order (a stable sort of the node files taken
// in node order), as the simulator writes nodes.jsonl.
func combineRun(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var ids []protocol.NodeID
	for _, de := range entries {
		num, ok := strings.CutPrefix(de.Name(), "node-")
		if num, ok2 := strings.CutSuffix(num, ".jsonl"); ok && ok2 {
			id, err := strconv.ParseUint(num, 10, 32)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, protocol.NodeID(id))
			continue
		}
		if de.Name() == trace.RunFileName {
			data, err := os.ReadFile(filepath.Join(src, de.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, de.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(ids)
	type line struct {
		t    int64
		text string
	}
	var heads []string
	var evs []line
	for _, id := range ids {
		data, err := os.ReadFile(trace.NodeFile(src, id))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		heads = append(heads, lines[0])
		for _, l := range lines[1:] {
			var e trace.Event
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatal(err)
			}
			evs = append(evs, line{e.T, l})
		}
	}
	slices.SortStableFunc(evs, func(a, b line) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	var b strings.Builder
	for _, h := range heads {
		b.WriteString(h + "\n")
	}
	for _, e := range evs {
		b.WriteString(e.text + "\n")
	}
	if err := os.WriteFile(trace.NodesFile(dst), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fileRef is a trace file name with its line, in any layout.
var fileRef = regexp.MustCompile(`[^\s"\[]*(node-\d+|nodes)\.jsonl(:\d+)?`)

// Every trace command gives the same results on a run in the per-node
// layout and on the same run in the combined layout, but for the file
// names problems and "src" give.
func TestTraceLayoutsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates four runs")
	}
	for _, c := range []struct {
		config string
		set    []string
	}{
		{"quickstart.yaml", []string{"--set", "protocol.name=baseline/floodmax", "--set", "duration=30s"}},
		{"mutex-ricart-agrawala.yaml", nil},
		{"sync-bfs.yaml", nil},
		{"lossy.yaml", []string{"--set", "duration=30s"}},
	} {
		t.Run(c.config, func(t *testing.T) {
			per := filepath.Join(t.TempDir(), "per-node")
			args := append([]string{"sim", "../../configs/" + c.config, "--out", per, "--quiet"}, c.set...)
			if _, err := runCLI(t, args...); err != nil {
				t.Fatal(err)
			}
			comb := filepath.Join(t.TempDir(), "combined")
			combineRun(t, per, comb)
			outputs := func(dir string) map[string]string {
				out := map[string]string{}
				run := func(name string, args ...string) {
					app := newApp()
					var stdout, stderr bytes.Buffer
					app.Writer, app.ErrWriter = &stdout, &stderr
					err := app.Run(reorderArgs(app, append([]string{"manetlab"}, args...)))
					if err != nil && err != errInvalid {
						t.Fatalf("%s: %v", name, err)
					}
					out[name] = stdout.String() + stderr.String()
				}
				run("report", "trace", "report", dir, "--json")
				run("check", "trace", "check", dir, "--json")
				merged := filepath.Join(t.TempDir(), "merged.jsonl")
				run("merge", "trace", "merge", dir, "-o", merged, "--json")
				data, err := os.ReadFile(merged)
				if err != nil {
					t.Fatal(err)
				}
				out["merged"] = string(data)
				for _, f := range []string{"shiviz", "netanim"} {
					run(f, "trace", "export", "--format", f, dir)
				}
				page := filepath.Join(t.TempDir(), "report.html")
				run("html", "trace", "report", dir, "--html", page)
				html, err := os.ReadFile(page)
				if err != nil {
					t.Fatal(err)
				}
				out["html"] = string(html)
				for k, v := range out {
					out[k] = fileRef.ReplaceAllString(strings.ReplaceAll(v, dir, "DIR"), "FILE")
				}
				return out
			}
			a, b := outputs(per), outputs(comb)
			// The combined layout has one node file.
			files := regexp.MustCompile(`"files": \d+`)
			a["merge"], b["merge"] = files.ReplaceAllString(a["merge"], ""), files.ReplaceAllString(b["merge"], "")
			for _, k := range []string{"report", "check", "merge", "merged", "shiviz", "netanim", "html"} {
				if a[k] != b[k] {
					la, lb := strings.Split(a[k], "\n"), strings.Split(b[k], "\n")
					for i := range min(len(la), len(lb)) {
						if la[i] != lb[i] {
							t.Errorf("%s differs between the layouts, line %d:\nper-node %.300s\ncombined %.300s", k, i+1, la[i], lb[i])
							break
						}
					}
					if len(la) != len(lb) {
						t.Errorf("%s: %d lines per-node, %d combined", k, len(la), len(lb))
					}
				}
			}
			if strings.Count(a["merged"], "\n") < 100 || !strings.Contains(a["check"], `"verdict"`) {
				t.Errorf("little to compare: %d merged lines", strings.Count(a["merged"], "\n"))
			}
		})
	}
}
