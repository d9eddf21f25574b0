package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/mutex/mutextest"
	_ "manetlab/mutex/mutextest"
)

// TestSweepMeasuresMutualExclusion sweeps the test coordinator protocol
// over two request schedules: node 2 alone (two entries, 3 messages each)
// and nodes 2 and 3 competing (a handover of two messages). The mutex
// metrics are tabulated and charted with theory beside them.
func TestSweepMeasuresMutualExclusion(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "mx.yaml")
	os.WriteFile(sc, []byte(mutextest.Scenario(`  - {at: 1s, node: 2, command: request}
  - {at: 1.5s, node: 2, command: release}
  - {at: 2s, node: 2, command: request}
  - {at: 2.5s, node: 2, command: release}
`)), 0o644)
	competing := "[{at: 1s, node: 2, command: request}, {at: 1.1s, node: 3, command: request}, {at: 2s, node: 2, command: release}, {at: 3s, node: 3, command: release}]"
	res, err := Run(Options{Scenario: sc, Seeds: 1, Out: filepath.Join(dir, "out"),
		Axes: []Axis{{"workload", []string{"[{at: 1s, node: 2, command: request}, {at: 1.5s, node: 2, command: release}, {at: 2s, node: 2, command: request}, {at: 2.5s, node: 2, command: release}]", competing}}}})
	if err != nil {
		t.Fatal(err)
	}
	alone, comp := res.Points[0], res.Points[1]
	for _, p := range []Point{alone, comp} {
		if p.Valid != 1 || p.Mean["mutex.messages_per_entry"] != 3 || p.Mean["mutex.theory_lo"] != 3 || p.Mean["mutex.entries"] != 2 || p.Mean["mutex.violations"] != 0 {
			t.Errorf("point %v: valid %d, %v", p.Values, p.Valid, p.Mean)
		}
		if _, ok := p.Mean["leader"]; ok {
			t.Errorf("point %v: a leader share for a protocol without leaders", p.Values)
		}
	}
	if _, ok := alone.Mean["mutex.sync_delay"]; ok {
		t.Errorf("node 2 alone has no handover, but a sync delay: %v", alone.Mean)
	}
	if comp.Mean["mutex.sync_messages"] != 2 || comp.Mean["mutex.waiting_at_end"] != 0 {
		t.Errorf("competing: %v", comp.Mean)
	}
	var out bytes.Buffer
	res.WriteTable(&out)
	if !strings.Contains(out.String(), "mutex.messages_per_entry") || !strings.Contains(out.String(), "3.00±0.00") {
		t.Errorf("table:\n%s", out.String())
	}
	c, err := res.Chart("mutex.messages_per_entry")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 1 || len(c.Series[0].Theory) != 2 || c.Series[0].Theory[0].Label != "theory: least" || c.Series[0].Theory[0].Title != "3" {
		t.Errorf("chart %+v", c)
	}
	if m, err := res.ChooseMetric(""); err != nil || m != "mutex.messages_per_entry" {
		t.Errorf("default metric %q %v", m, err)
	}
}
