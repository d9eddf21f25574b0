package experiment

import (
	"path/filepath"
	"testing"

	_ "manetlab/mutex"
	"manetlab/trace/analysis"
)

// TestSweepMutexCompareLightLoad runs the light-load cells of seed 002's
// table (configs/mutex-compare.yaml: 6 static nodes in range, lossless,
// nodes 1-5 asking at 0.05 requests per second) for the five algorithms
// over two seeds, and reads every run's counts back: each entry costs
// exactly the seed's formula. Centralized: 3 (request, grant, release;
// node 6, the coordinator, asks for nothing), a handover of 2 messages.
// Ricart-Agrawala 2(n-1) = 10, Lamport 3(n-1) = 15, a handover of 1.
// Suzuki-Kasami: n = 6 (5 requests and the token) for each entry the
// token has to travel to, 0 for the others. Token ring: at least 1 (the
// idle token circulates between requests: unbounded). With the generator
// saturating every node (node 6 too: a node that never wants the section
// costs a pass per round, n/(n-1) = 1.2 per entry in the sweep), the token
// ring costs 1 message per entry.
func TestSweepMutexCompareLightLoad(t *testing.T) {
	out := t.TempDir()
	algs := []string{"mutex/centralized", "mutex/ricart-agrawala", "mutex/token-ring", "mutex/lamport", "mutex/suzuki-kasami"}
	res, err := Run(Options{Scenario: "../configs/mutex-compare.yaml", Seeds: 2, Out: out,
		Axes: []Axis{{"protocol.name", algs}, {"workload.rate", []string{"0.05"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != len(algs) {
		t.Fatalf("%d points, want %d", len(res.Points), len(algs))
	}
	const n = 6
	for _, p := range res.Points {
		if p.Valid != 2 || p.Mean["mutex.violations"] != 0 || p.Mean["mutex.entries"] < 5 {
			t.Errorf("%v: valid %d/2, %v", p.Values, p.Valid, p.Mean)
		}
	}
	dirs, err := filepath.Glob(filepath.Join(out, "*", "seed*"))
	if err != nil || len(dirs) != 2*len(algs) {
		t.Fatalf("run directories %v (%v), want %d", dirs, err, 2*len(algs))
	}
	seen := map[string]int{}
	for _, dir := range dirs {
		m, err := analysis.ComputeMetrics(dir, analysis.MetricsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mx := m.Mutex
		if mx == nil || mx.Entries == 0 || mx.WaitingAtEnd > 1 {
			t.Fatalf("%s: mutex metrics %+v", dir, mx)
		}
		e := uint64(mx.Entries)
		// A section still open at the end has not sent its release.
		open := mx.Requests - mx.Entries
		k := mx.ByKind
		seen[m.Protocol]++
		switch m.Protocol {
		case "mutex/centralized":
			if k["request"] != e || k["grant"] != e || (k["release"] != e && k["release"]+1 != e) || len(k) != 3 {
				t.Errorf("centralized %s: %d entries, by kind %v; want a request, a grant and a release each", dir, e, k)
			}
			if mx.Sync.MaxMessages != nil && *mx.Sync.MaxMessages != 2 {
				t.Errorf("centralized %s: handover of %d messages, want 2 (release, grant)", dir, *mx.Sync.MaxMessages)
			}
		case "mutex/ricart-agrawala":
			if k["request"] != (n-1)*e || k["reply"] != (n-1)*e || len(k) != 2 {
				t.Errorf("Ricart-Agrawala %s: %d entries, by kind %v; want 2(n-1) = 10 each", dir, e, k)
			}
		case "mutex/lamport":
			if k["request"] != (n-1)*e || k["reply"] != (n-1)*e || (k["release"] != (n-1)*e && k["release"]+n-1 != (n-1)*e) || len(k) != 3 {
				t.Errorf("Lamport %s: %d entries, by kind %v; want 3(n-1) = 15 each", dir, e, k)
			}
		case "mutex/suzuki-kasami":
			if k["request"] != (n-1)*k["token"] || k["token"] > e || k["token"] == 0 || len(k) != 2 {
				t.Errorf("Suzuki-Kasami %s: %d entries, by kind %v; want n = 6 per entry the token travels to, 0 for the others", dir, e, k)
			}
		case "mutex/token-ring":
			if k["token"] < e || len(k) != 1 {
				t.Errorf("token ring %s: %d entries, by kind %v; want at least one token pass each", dir, e, k)
			}
		default:
			t.Errorf("%s: protocol %q", dir, m.Protocol)
		}
		if open > 1 {
			t.Errorf("%s: %d requests not entered", dir, open)
		}
		if mx.Sync.MaxMessages != nil && m.Protocol != "mutex/centralized" && m.Protocol != "mutex/token-ring" && *mx.Sync.MaxMessages != 1 {
			t.Errorf("%s %s: handover of %d messages, want 1", m.Protocol, dir, *mx.Sync.MaxMessages)
		}
	}
	for _, a := range algs {
		if seen[a] != 2 {
			t.Errorf("%s: %d runs read, want 2", a, seen[a])
		}
	}

	sat, err := Run(Options{Scenario: "../configs/mutex-compare.yaml", Seeds: 1, Out: t.TempDir(),
		Sets: []string{"protocol.name=mutex/token-ring", "workload.rate=saturate", "workload.nodes=[]", "duration=20s"}})
	if err != nil {
		t.Fatal(err)
	}
	p := sat.Points[0]
	// Every pass but the token's creation hands it to a node that wants
	// the section: entries and passes differ by at most one.
	if d := p.Mean["mutex.messages_per_entry"]*p.Mean["mutex.entries"] - p.Mean["mutex.entries"]; p.Valid != 1 || d < -1 || d > 1 {
		t.Errorf("token ring saturated: %v; want 1 message per entry", p.Mean)
	}
}
