package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"manetlab/experiment"
	_ "manetlab/ring" // registers ring/chang-roberts
	"manetlab/trace/htmlreport/chromiumtest"
)

// pageChart reads the chart embedded in a sweep page.
func pageChart(t *testing.T, path string) *experiment.Chart {
	t.Helper()
	html, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="` + experiment.ChartDataID + `">(.*?)</script>`).FindSubmatch(html)
	var c experiment.Chart
	if m == nil {
		t.Fatalf("%s: no chart data", path)
	}
	if err := json.Unmarshal(m[1], &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// checkPageInChromium loads a sweep page in headless Chromium and checks
// that its script drew the series, the dashed theory lines and a legend
// entry for each, and set data-ready.
func checkPageInChromium(t *testing.T, path string, series, theory int) {
	t.Helper()
	dom := chromiumtest.ReadyDOM(t, path)
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(dom, -1)) }
	if n := count(`<path class="series"`); n != series {
		t.Errorf("%d series paths, want %d", n, series)
	}
	if n := count(`<path class="theory theory-\w+"[^>]*stroke-dasharray="[0-9 ]+"`); n != theory {
		t.Errorf("%d dashed theory paths, want %d", n, theory)
	}
	if n := count(`<g class="legend-entry`); n != series+theory {
		t.Errorf("%d legend entries, want %d", n, series+theory)
	}
}

func TestSweepHTMLWithTheWirelessElections(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "sweep.html")
	out, err := runCLI(t, "sweep", "../../configs/static-line.yaml", "--set", "nodes.list=[]", "--vary", "nodes.count=4|8",
		"--vary", "protocol.name=adhoc/vasudevan|baseline/floodmax", "--seeds", "1", "--quiet", "--out", filepath.Join(dir, "runs"),
		"--html", page, "--metric", "leader")
	if err != nil {
		t.Fatal(err)
	}
	// The table is today's: no complexity columns.
	if head := strings.Fields(strings.SplitN(out, "\n", 2)[0]); !reflect.DeepEqual(head, []string{"nodes.count", "protocol.name", "valid", "invalid", "unsettled",
		"F", "leader", "R", "T", "M_bcast", "M_ucast", "wrong_or_unknown", "messages", "frames", "frames_per_election"}) {
		t.Errorf("table header %v", head)
	}
	c := pageChart(t, page)
	if c.Metric != "leader" || c.XLabel != "nodes.count" || !reflect.DeepEqual(c.XNum, []float64{4, 8}) || len(c.Series) != 2 ||
		c.Series[0].Label != "protocol.name=adhoc/vasudevan" || c.Series[1].Label != "protocol.name=baseline/floodmax" ||
		len(c.Series[0].Points) != 2 || c.Series[0].Theory != nil {
		t.Fatalf("chart %+v", c)
	}
	html, _ := os.ReadFile(page)
	if !strings.Contains(string(html), "manetlab sweep ../../configs/static-line.yaml --set &#39;nodes.list=[]&#39; --vary &#39;nodes.count=4|8&#39;") {
		t.Error("the page does not show the command line")
	}
	checkPageInChromium(t, page, 2, 0)

	// The default metric is F; floodmax has none, so its series is left out.
	out, err = runCLI(t, "sweep", "../../configs/static-line.yaml", "--set", "nodes.list=[]", "--vary", "nodes.count=4|8",
		"--vary", "protocol.name=adhoc/vasudevan|baseline/floodmax", "--seeds", "1", "--quiet", "--out", filepath.Join(dir, "runs"),
		"--html", page, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res experiment.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Scenario != "static-line" || len(res.Points) != 4 {
		t.Fatalf("JSON %v: %s", err, out)
	}
	if c := pageChart(t, page); c.Metric != "F" || len(c.Series) != 1 || !reflect.DeepEqual(c.Missing, []string{"protocol.name=baseline/floodmax"}) {
		t.Fatalf("chart %+v", c)
	}
}

func TestSweepRejectsBadMetric(t *testing.T) {
	dir := t.TempDir()
	_, err := runCLI(t, "sweep", "../../configs/static-line.yaml", "--vary", "radio.range=200|300", "--metric", "bogus",
		"--out", filepath.Join(dir, "runs"), "--html", filepath.Join(dir, "x.html"))
	if err == nil || !strings.Contains(err.Error(), `unknown metric "bogus"`) || !strings.Contains(err.Error(), "complexity.messages") {
		t.Fatalf("--metric bogus: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
		t.Error("the sweep ran before the metric was checked")
	}
	// Known but not measured by these protocols.
	_, err = runCLI(t, "sweep", "../../configs/static-line.yaml", "--vary", "radio.range=200|300", "--metric", "complexity.messages",
		"--seeds", "1", "--quiet", "--out", filepath.Join(dir, "runs"), "--html", filepath.Join(dir, "x.html"))
	if err == nil || !strings.Contains(err.Error(), "no run of this sweep has it") {
		t.Fatalf("--metric complexity.messages on floodmax: %v", err)
	}
	if _, err := runCLI(t, "sweep", "../../configs/static-line.yaml", "--html", filepath.Join(dir, "x.html")); err == nil {
		t.Error("--html without --vary")
	}
}

// TestSweepChartOfChangRoberts sweeps Chang-Roberts over rings of 4, 8
// and 16 nodes whose IDs ascend or descend along the ring: the count is
// exactly 2n-1 (ascending) or n(n+1)/2 (descending), and the chart draws
// the exact count, the bound n(n+1)/2 and the best and worst beside each.
func TestSweepChartOfChangRoberts(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "cr.yaml")
	os.WriteFile(sc, []byte("name: cr\nduration: 20s\nnodes: {count: 8, values: id, placement: ring}\nradio: {propagation: unit-disk, range: 250}\n"+
		"protocol: {name: ring/chang-roberts, params: {initiators: all}}\n"), 0o644)
	page := filepath.Join(dir, "cr.html")
	out, err := runCLI(t, "sweep", sc, "--vary", "nodes.count=4|8|16", "--vary", "protocol.params.ring=ascending|descending",
		"--seeds", "2", "--quiet", "--out", filepath.Join(dir, "runs"), "--html", page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.SplitN(out, "\n", 2)[0], "complexity.messages") {
		t.Errorf("no complexity columns:\n%s", out)
	}
	c := pageChart(t, page)
	if c.Metric != "complexity.messages" || len(c.Series) != 2 {
		t.Fatalf("chart %+v", c)
	}
	line := func(pts []experiment.ChartPoint) []float64 {
		var out []float64
		for _, p := range pts {
			out = append(out, p.Mean)
		}
		return out
	}
	best, worst := []float64{7, 15, 31}, []float64{10, 36, 136}
	for i, s := range c.Series {
		exact := [][]float64{best, worst}[i]
		if s.Label != "protocol.params.ring="+[]string{"ascending", "descending"}[i] || !reflect.DeepEqual(line(s.Points), exact) {
			t.Errorf("series %q: %v, want %v", s.Label, line(s.Points), exact)
		}
		var kinds []string
		for _, th := range s.Theory {
			kinds = append(kinds, th.Kind)
			want := map[string][]float64{"exact": exact, "bound": worst, "best": best, "worst": worst}[th.Kind]
			if !reflect.DeepEqual(line(th.Points), want) {
				t.Errorf("series %q theory %s: %v, want %v", s.Label, th.Kind, line(th.Points), want)
			}
			if th.Kind == "bound" && (th.Label != "n(n+1)/2" || !strings.Contains(th.Title, "Chang-Roberts")) {
				t.Errorf("bound labelled %q (%q)", th.Label, th.Title)
			}
		}
		if !reflect.DeepEqual(kinds, []string{"exact", "bound", "best", "worst"}) {
			t.Errorf("series %q theory %v", s.Label, kinds)
		}
	}
	checkPageInChromium(t, page, 2, 8)
}
