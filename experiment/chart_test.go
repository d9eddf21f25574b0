package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"manetlab/trace/htmlreport/chromiumtest"
)

// ringPoint is a Chang-Roberts-like point over n nodes: an ascending ring
// costs the worst case n(n+1)/2, a descending one the best 2n-1.
func ringPoint(n int, ring string, exact bool) Point {
	worst, best := float64(n*(n+1)/2), float64(2*n-1)
	msgs := best
	if ring == "ascending" {
		msgs = worst
	}
	p := Point{Values: []string{itoa(n), ring}, Runs: 2, Valid: 2,
		Mean: map[string]float64{"complexity.messages": msgs, "complexity.announce": float64(n), "complexity.bound": worst,
			"complexity.best": best, "complexity.worst": worst, "leader": 1, "messages": msgs + float64(n)},
		SD:     map[string]float64{"complexity.messages": 0.5, "complexity.announce": 0, "complexity.bound": 0, "complexity.best": 0, "complexity.worst": 0, "leader": 0, "messages": 0.5},
		Theory: &Theory{Name: "n(n+1)/2 worst case", Formula: "n(n+1)/2"}}
	if exact {
		p.Mean["complexity.exact"], p.SD["complexity.exact"] = msgs, 0
	}
	return p
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// ringResult is a grid of nodes.count 4|16|8 (out of order, to check the
// x-axis sorts numbers) by ring ascending|descending; the descending
// ring of 8 has no exact count.
func ringResult() *Result {
	r := &Result{Scenario: "ring-test", Seeds: 2, Axes: []Axis{
		{"nodes.count", []string{"4", "16", "8"}}, {"protocol.params.ring", []string{"ascending", "descending"}}}}
	for _, n := range []int{4, 16, 8} {
		r.Points = append(r.Points, ringPoint(n, "ascending", true), ringPoint(n, "descending", n != 8))
	}
	return r
}

func TestChartOfMessagesWithTheory(t *testing.T) {
	c, err := ringResult().Chart("complexity.messages")
	if err != nil {
		t.Fatal(err)
	}
	pts := func(v ...float64) []ChartPoint { // x, mean, sd triples in x order
		var out []ChartPoint
		for k := 0; k < len(v); k += 3 {
			out = append(out, ChartPoint{X: int(v[k]), Mean: v[k+1], SD: v[k+2], Runs: 2})
		}
		return out
	}
	want := &Chart{Metric: "complexity.messages", XLabel: "nodes.count", X: []string{"4", "16", "8"}, XNum: []float64{4, 16, 8},
		Series: []Series{
			{Label: "protocol.params.ring=ascending", Points: pts(0, 10, 0.5, 2, 36, 0.5, 1, 136, 0.5), Theory: []TheoryLine{
				{Kind: "exact", Label: "exact", Points: pts(0, 10, 0, 2, 36, 0, 1, 136, 0)},
				{Kind: "bound", Label: "n(n+1)/2", Title: "n(n+1)/2 worst case", Points: pts(0, 10, 0, 2, 36, 0, 1, 136, 0)},
				{Kind: "best", Label: "best", Points: pts(0, 7, 0, 2, 15, 0, 1, 31, 0)},
				{Kind: "worst", Label: "worst", Points: pts(0, 10, 0, 2, 36, 0, 1, 136, 0)},
			}},
			{Label: "protocol.params.ring=descending", Points: pts(0, 7, 0.5, 2, 15, 0.5, 1, 31, 0.5), Theory: []TheoryLine{
				{Kind: "exact", Label: "exact", Points: pts(0, 7, 0, 1, 31, 0)},
				{Kind: "bound", Label: "n(n+1)/2", Title: "n(n+1)/2 worst case", Points: pts(0, 10, 0, 2, 36, 0, 1, 136, 0)},
				{Kind: "best", Label: "best", Points: pts(0, 7, 0, 2, 15, 0, 1, 31, 0)},
				{Kind: "worst", Label: "worst", Points: pts(0, 10, 0, 2, 36, 0, 1, 136, 0)},
			}},
		}}
	if !reflect.DeepEqual(c, want) {
		got, _ := json.MarshalIndent(c, "", " ")
		t.Fatalf("chart:\n%s", got)
	}
	// Other metrics get no theory.
	c, err = ringResult().Chart("complexity.announce")
	if err != nil || len(c.Series) != 2 || c.Series[0].Theory != nil {
		t.Fatalf("announce chart %+v, %v", c, err)
	}
}

func TestChartCategoricalAndMissing(t *testing.T) {
	pt := func(v []string, m map[string]float64) Point {
		return Point{Values: v, Runs: 1, Valid: 1, Mean: m, SD: map[string]float64{"F": 0.01, "leader": 0}}
	}
	// A first axis of YAML lists is categorical, in the given order.
	r := &Result{Seeds: 1, Axes: []Axis{{"mobility.speed", []string{"[1,19]", "[1,3]"}}}, Points: []Point{
		pt([]string{"[1,19]"}, map[string]float64{"F": 0.2}), pt([]string{"[1,3]"}, map[string]float64{"F": 0.1})}}
	c, err := r.Chart("F")
	if err != nil {
		t.Fatal(err)
	}
	want := &Chart{Metric: "F", XLabel: "mobility.speed", X: []string{"[1,19]", "[1,3]"}, Series: []Series{
		{Label: "", Points: []ChartPoint{{X: 0, Mean: 0.2, SD: 0.01, Runs: 1}, {X: 1, Mean: 0.1, SD: 0.01, Runs: 1}}}}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("chart %+v", c)
	}
	// A series with no value of the metric is left out and named.
	r = &Result{Seeds: 1, Axes: []Axis{{"nodes.count", []string{"4", "8"}}, {"protocol.name", []string{"adhoc/vasudevan", "baseline/floodmax"}}}, Points: []Point{
		pt([]string{"4", "adhoc/vasudevan"}, map[string]float64{"F": 0.03, "leader": 0.9}), pt([]string{"4", "baseline/floodmax"}, map[string]float64{"leader": 1}),
		pt([]string{"8", "adhoc/vasudevan"}, map[string]float64{"leader": 0.9}), pt([]string{"8", "baseline/floodmax"}, map[string]float64{"leader": 1})}}
	c, err = r.Chart("F")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 1 || c.Series[0].Label != "protocol.name=adhoc/vasudevan" || len(c.Series[0].Points) != 1 ||
		!reflect.DeepEqual(c.Missing, []string{"protocol.name=baseline/floodmax"}) || !reflect.DeepEqual(c.XNum, []float64{4, 8}) {
		t.Fatalf("chart %+v", c)
	}
	if _, err := r.Chart("R"); err == nil {
		t.Error("a chart of a metric no point has")
	}
	if _, err := (&Result{Points: []Point{{}}}).Chart("F"); err == nil {
		t.Error("a chart without axes")
	}
}

func TestChooseMetric(t *testing.T) {
	flood := &Result{Points: []Point{{Mean: map[string]float64{"leader": 1, "messages": 9}}}}
	adhoc := &Result{Points: []Point{{Mean: map[string]float64{"leader": 1, "F": 0.1}}}}
	for _, c := range []struct {
		r          *Result
		name, want string
	}{{ringResult(), "", "complexity.messages"}, {adhoc, "", "F"}, {flood, "", "leader"}, {flood, "messages", "messages"}} {
		if got, err := c.r.ChooseMetric(c.name); err != nil || got != c.want {
			t.Errorf("ChooseMetric(%q) = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	_, err := flood.ChooseMetric("bogus")
	if err == nil || !strings.Contains(err.Error(), "complexity.worst") || !strings.Contains(err.Error(), "M_bcast") {
		t.Errorf("unknown metric: %v (want every known name)", err)
	}
	if _, err := flood.ChooseMetric("F"); err == nil || !strings.Contains(err.Error(), "present: leader, messages") {
		t.Errorf("absent metric: %v", err)
	}
}

// writePage writes r's page and returns its path.
func writePage(t *testing.T, r *Result, opt HTMLOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf, opt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sweep.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestChartPageIsSelfContained(t *testing.T) {
	r := ringResult()
	html, _ := os.ReadFile(writePage(t, r, HTMLOptions{Command: "manetlab sweep x.yaml --vary 'a=<b>'"}))
	s := string(html)
	for _, bad := range []string{"http://", "https://", " src=", "<link", "@import", "url("} {
		if strings.Contains(strings.ReplaceAll(s, `"http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page contains %q: it must load nothing", bad)
		}
	}
	if !strings.Contains(s, "default-src 'none'") || !strings.Contains(s, "a=&lt;b&gt;") {
		t.Error("no Content-Security-Policy, or the command is not escaped")
	}
	// The embedded data is the chart.
	m := regexp.MustCompile(`(?s)<script type="application/json" id="` + ChartDataID + `">(.*?)</script>`).FindStringSubmatch(s)
	var got Chart
	if m == nil || json.Unmarshal([]byte(m[1]), &got) != nil {
		t.Fatal("no chart data in the page")
	}
	want, _ := r.Chart("complexity.messages")
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("embedded chart %+v", got)
	}
	// The table has a row per point and a column per metric.
	if n := strings.Count(s, "<tr>"); n != 1+len(r.Points) {
		t.Errorf("%d table rows, want %d", n, 1+len(r.Points))
	}
}

// TestChartPageRendersInChromium loads the page in headless Chromium:
// a path per series, a dashed path per theory line, a legend entry for
// each, and data-ready="1" once the script has drawn them.
func TestChartPageRendersInChromium(t *testing.T) {
	checkChartDOM(t, chromiumtest.ReadyDOM(t, writePage(t, ringResult(), HTMLOptions{})), 2, 8)
}

// checkChartDOM checks a sweep page's DOM after its script ran: series
// lines, dashed theory lines, one legend entry for each.
func checkChartDOM(t *testing.T, dom string, series, theory int) {
	t.Helper()
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
	if n := count(`<svg[^>]*id="chart-svg"`); n != 1 {
		t.Errorf("%d chart SVGs", n)
	}
}

// TestChartAgainstTheNumericAxis: with a categorical first axis
// (synchronizers) and a numeric second (n), the chart runs along n, one
// series per synchronizer, each point the one with both values, beside
// the counting rule; sync_messages is the default metric.
func TestChartAgainstTheNumericAxis(t *testing.T) {
	r := &Result{Seeds: 1, Axes: []Axis{{"protocol.params.synchronizer", []string{"simple", "abd"}}, {"nodes.count", []string{"16", "8"}}}}
	cost := map[string]float64{"simple": 1, "abd": 100}
	for _, s := range r.Axes[0].Values {
		for _, n := range r.Axes[1].Values {
			v := cost[s] * 2 * 8 // distinct per point
			if n == "16" {
				v = cost[s] * 2 * 16
			}
			r.Points = append(r.Points, Point{Values: []string{s, n}, Runs: 1, Valid: 1,
				Mean: map[string]float64{"complexity.sync_messages": v, "complexity.sync_exact": v, "complexity.messages": 8}, SD: map[string]float64{}})
		}
	}
	if m, err := r.ChooseMetric(""); err != nil || m != "complexity.sync_messages" {
		t.Fatalf("default metric %q, %v", m, err)
	}
	if r.XAxis() != 1 {
		t.Fatalf("x axis %d", r.XAxis())
	}
	c, err := r.Chart("complexity.sync_messages")
	if err != nil {
		t.Fatal(err)
	}
	if c.XLabel != "nodes.count" || !reflect.DeepEqual(c.XNum, []float64{16, 8}) || len(c.Series) != 2 {
		t.Fatalf("chart %+v", c)
	}
	for i, s := range []string{"simple", "abd"} {
		ser := c.Series[i]
		// x in ascending n: index 1 (8) first, then 0 (16)
		want := []ChartPoint{{X: 1, Mean: cost[s] * 2 * 8, Runs: 1}, {X: 0, Mean: cost[s] * 2 * 16, Runs: 1}}
		if ser.Label != "protocol.params.synchronizer="+s || !reflect.DeepEqual(ser.Points, want) ||
			len(ser.Theory) != 1 || ser.Theory[0].Label != "counting rule" || !reflect.DeepEqual(ser.Theory[0].Points, want) {
			t.Fatalf("series %d: %+v, want points %+v", i, ser, want)
		}
	}
	// a numeric first axis stays the x axis
	if ringResult().XAxis() != 0 {
		t.Error("numeric first axis not x")
	}
}
