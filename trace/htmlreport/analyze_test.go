package htmlreport

import (
	"encoding/json"
	"path/filepath"
	"testing"

	_ "manetlab/adhoc" // registers the protocols of the configs
	_ "manetlab/firewire"
	_ "manetlab/mutex"
	_ "manetlab/ring"
	_ "manetlab/synchronous"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// TestAnalyzeMatchesComputeMetricsAndCheck (here rather than in package
// analysis, whose tests must not have these protocols registered: their
// settle delays would change the checks' defaults) simulates shipped configs of
// every family (leader election with crashes and mobility, a lossy one,
// mutual exclusion, a round protocol with a tree and depths, a ring) and
// requires Analyze's one read to give, as JSON, exactly the reports of
// ComputeMetrics and Check, each of which reads the run on its own; and
// its visitor to see every event of the node files the checks read.
func TestAnalyzeMatchesComputeMetricsAndCheck(t *testing.T) {
	configs := map[string][]string{
		"quickstart.yaml":            {"duration=20s"},
		"lossy.yaml":                 {"duration=20s"},
		"mutex-ricart-agrawala.yaml": nil,
		"sync-bfs.yaml":              nil,
		"firewire.yaml":              nil,
		"ring-chang-roberts.yaml":    nil,
	}
	for name, sets := range configs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := scenario.Load(filepath.Join("../../configs", name), sets)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "run")
			if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
				t.Fatal(err)
			}
			wantM, err := analysis.ComputeMetrics(dir, analysis.MetricsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wantC, err := analysis.Check(dir, analysis.CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			visited := map[string]int{}
			nodeEvents := 0
			gotM, gotC, err := analysis.Analyze(dir, analysis.AnalyzeOptions{Visit: func(id protocol.NodeID, e *trace.Event) {
				visited[e.Ev]++
				if id != 0 {
					nodeEvents++
					if e.Node != id {
						t.Errorf("visited node %d's event in node %d's file", e.Node, id)
					}
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "metrics", gotM, wantM)
			sameJSON(t, "check", gotC, wantC)
			// Every event of the node files but positions reaches the
			// visitor (neighbour events too: the ground truth of real
			// runs reads them).
			run, err := analysis.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, evs := range run.Nodes {
				for _, e := range evs {
					if e.Ev != trace.EvPosition {
						want++
					}
				}
			}
			if nodeEvents != want || visited[trace.EvSend] == 0 || visited[trace.EvRecv] == 0 {
				t.Errorf("visited %d node events (%v), want %d", nodeEvents, visited, want)
			}
			if visited[trace.EvEnd] == 0 {
				t.Errorf("the run file's end was not visited: %v", visited)
			}
		})
	}
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Errorf("%s differs:\n got %s\nwant %s", what, g, w)
	}
}
