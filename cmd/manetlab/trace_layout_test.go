package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"manetlab/trace/tracetest"
)

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
			tracetest.Combine(t, per, comb)
			outputs := func(dir string) map[string]string {
				out := map[string]string{}
				run := func(name string, args ...string) {
					app := newApp()
					var stdout, stderr bytes.Buffer
					app.Writer, app.ErrWriter = &stdout, &stderr
					err := app.Run(reorderArgs(app, append([]string{"manetlab"}, args...)))
					if err != nil && !verdictOnly(err) {
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
