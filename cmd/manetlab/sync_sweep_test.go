package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manetlab/experiment"
)

// TestSweepSynchronizersAgainstN runs a reduced version of issue 12's
// sweep (configs/sync-timeslice.yaml, 2 synchronizers × 2 ring sizes):
// the table has the synchronizer columns, every run is valid with
// TimeSlice's exact n messages and 2n rounds, each synchronizer's
// messages are its counting rule's (abd: the start flood, 2E = 2n on a
// ring), and the page charts complexity.sync_messages against
// nodes.count, one series per synchronizer with the counting rule beside.
func TestSweepSynchronizersAgainstN(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "sync.html")
	args := []string{"sweep", "../../configs/sync-timeslice.yaml", "--vary", "protocol.params.synchronizer=simple|abd",
		"--vary", "nodes.count=4|8", "--seeds", "1", "--quiet", "--out", filepath.Join(dir, "runs"), "--html", page}
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	for _, col := range []string{"protocol.params.synchronizer", "nodes.count", "complexity.rounds", "complexity.sync_messages", "complexity.sync_exact", "complexity.m_a"} {
		if !strings.Contains(strings.Join(head, " "), col) {
			t.Errorf("table header %v lacks %s", head, col)
		}
	}
	out, err = runCLI(t, append(args, "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	var res experiment.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Points) != 4 {
		t.Fatalf("JSON %v: %s", err, out)
	}
	sync := map[string]float64{}
	for _, p := range res.Points {
		s, n := p.Values[0], map[string]float64{"4": 4, "8": 8}[p.Values[1]]
		m := p.Mean
		if p.Valid != 1 || m["complexity.messages"] != n || m["complexity.rounds"] != 2*n || m["complexity.sync_messages"] != m["complexity.sync_exact"] {
			t.Errorf("%v: valid %d, %v", p.Values, p.Valid, m)
		}
		if s == "abd" && m["complexity.sync_messages"] != 2*n {
			t.Errorf("%v: abd sent %g sync-start, want 2E = %g", p.Values, m["complexity.sync_messages"], 2*n)
		}
		sync[strings.Join(p.Values, " ")] = m["complexity.sync_messages"]
	}
	// simple sends an envelope per ring edge and direction per round,
	// nulls where TimeSlice sends nothing: far more than abd's.
	if sync["simple 8"] <= sync["simple 4"] || sync["simple 8"] <= sync["abd 8"] {
		t.Errorf("synchronizer messages %v", sync)
	}
	c := pageChart(t, page)
	if c.Metric != "complexity.sync_messages" || c.XLabel != "nodes.count" || !reflect.DeepEqual(c.XNum, []float64{4, 8}) || len(c.Series) != 2 ||
		c.Series[0].Label != "protocol.params.synchronizer=simple" || c.Series[1].Label != "protocol.params.synchronizer=abd" {
		t.Fatalf("chart %+v", c)
	}
	for _, s := range c.Series {
		if len(s.Points) != 2 || len(s.Theory) != 1 || !reflect.DeepEqual(s.Theory[0].Points, s.Points) {
			t.Errorf("series %+v", s)
		}
	}
	if s := c.Series[0].Points; s[0].Mean != sync["simple 4"] || s[1].Mean != sync["simple 8"] {
		t.Errorf("simple's series %+v, table %v", s, sync)
	}
	checkPageInChromium(t, page, 2, 2)
}
