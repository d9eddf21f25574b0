package htmlreport

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"manetlab/internal/geo"
	_ "manetlab/mutex" // registers mutex/ricart-agrawala
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/htmlreport/chromiumtest"
)

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPageFiguresAreTheAnalysis requires the metrics and the verdicts of
// the page, which Build takes from its one read of the run, to be those
// of analysis.ComputeMetrics and analysis.Check, which read the run on
// their own; and Report's full metrics report to be ComputeMetrics'.
func TestPageFiguresAreTheAnalysis(t *testing.T) {
	mutexDir := filepath.Join(t.TempDir(), "mutex")
	s, err := scenario.Load("../../configs/mutex-ricart-agrawala.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(s, sim.Options{Out: mutexDir}); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{runDir(t), mutexDir} {
		d, full, err := Report(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := analysis.ComputeMetrics(dir, analysis.MetricsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := jsonOf(t, full), jsonOf(t, m); got != want {
			t.Errorf("%s: Report's metrics\n%s\nComputeMetrics\n%s", dir, got, want)
		}
		m.PerNode, m.Problems = nil, nil
		if got, want := jsonOf(t, d.Metrics), jsonOf(t, m); got != want {
			t.Errorf("%s: page metrics\n%s\nComputeMetrics\n%s", dir, got, want)
		}
		c, err := analysis.Check(dir, analysis.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c.Problems = nil
		if got, want := jsonOf(t, d.Check), jsonOf(t, c); got != want {
			t.Errorf("%s: page verdicts\n%s\nCheck\n%s", dir, got, want)
		}
		if d.Sections == nil && dir == mutexDir {
			t.Error("the mutual exclusion run has no section lanes")
		}
	}
}

// TestSampledPage bounds what the page keeps far below what the run
// holds: per-node detail is then that of the nodes whose ID is a multiple
// of Data.Sample, exactly as the full page has it, the page says so, and
// Chromium draws it (a timeline row per sampled node, a circle per node).
func TestSampledPage(t *testing.T) {
	dir := runDir(t)
	_, full := buildPage(t, dir, Options{})
	if full.Sample != 0 {
		t.Fatalf("an 8-node run sampled: %d", full.Sample)
	}
	path, d := buildPage(t, dir, Options{MaxChanges: 20, MaxHeld: 100})
	if d.Sample < 2 || d.Sample&(d.Sample-1) != 0 {
		t.Fatalf("sample %d, want a power of 2 above 1", d.Sample)
	}
	if !slices.ContainsFunc(d.Notes, func(s string) bool { return strings.Contains(s, "multiple of") }) {
		t.Errorf("no note on the sample: %q", d.Notes)
	}
	detailed := 0
	for i, id := range d.Nodes {
		if id%d.Sample != 0 {
			if d.Leaders[i] != nil || d.Parents[i] != nil {
				t.Errorf("node %d outside the sample has leaders %v, parents %v", id, d.Leaders[i], d.Parents[i])
			}
			continue
		}
		detailed++
		if jsonOf(t, d.Leaders[i]) != jsonOf(t, full.Leaders[i]) || jsonOf(t, d.Parents[i]) != jsonOf(t, full.Parents[i]) {
			t.Errorf("node %d: sampled page's leaders or parents differ from the full page's", id)
		}
	}
	// The sequence diagram's events were held for the lowest IDs only.
	upTo := uint32(0)
	for _, note := range d.Notes {
		fmt.Sscanf(note, "the sequence diagram's lifelines are chosen among the nodes of ID at most %d", &upTo)
	}
	if upTo == 0 || upTo >= 8 || len(d.Seq.Nodes) == 0 {
		t.Errorf("lifelines %v, held up to node %d (notes %q)", d.Seq.Nodes, upTo, d.Notes)
	}
	for _, id := range d.Seq.Nodes {
		if id > upTo {
			t.Errorf("lifeline %d beyond node %d", id, upTo)
		}
	}
	if jsonOf(t, d.Crashes) != jsonOf(t, full.Crashes) || jsonOf(t, d.Dead) != jsonOf(t, full.Dead) || jsonOf(t, d.Frames) != jsonOf(t, full.Frames) {
		t.Error("crashes, dead spans or map frames differ from the full page's")
	}
	dom := chromiumtest.ReadyDOM(t, path)
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(dom, -1)) }
	if n := count(`<g class="tl-row" data-node="\d+"`); n != detailed {
		t.Errorf("%d timeline rows, want %d", n, detailed)
	}
	if n := count(`<circle class="node[ "][^>]*data-node="\d+"`); n != len(d.Nodes) {
		t.Errorf("%d node circles, want %d", n, len(d.Nodes))
	}
	if n := count(`<circle class="node unsampled`); n != len(d.Nodes)-detailed {
		t.Errorf("%d hollow circles, want %d", n, len(d.Nodes)-detailed)
	}
}

// TestFrameLinksMatchScan compares the grid's links with a scan of every
// pair, for a deterministic and a log-distance radio, nodes at unknown
// positions, and counts that stop the search.
func TestFrameLinksMatchScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 600
	pos := make([]geo.Vec, n)
	known := make([]bool, n)
	for i := range pos {
		pos[i] = geo.Vec{X: rng.Float64() * 3000, Y: rng.Float64() * 3000}
		known[i] = rng.IntN(10) > 0
	}
	// Pairs exactly at the range.
	pos[1], pos[2] = geo.Vec{X: 100, Y: 100}, geo.Vec{X: 250, Y: 100}
	known[1], known[2] = true, true
	for _, c := range []radio.Config{{Propagation: radio.UnitDisk, Range: 150}, {Propagation: radio.LogDistance, Range: 200}} {
		c.Defaults()
		prop, err := radio.NewPropagation(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{1 << 30, 50, 0} {
			want, wn := scanLinks(nil, pos, known, prop, 7, max)
			got, gn := frameLinks(nil, pos, known, prop, 7, max)
			if !slices.Equal(got, want) || gn != wn {
				t.Errorf("%s, max %d: grid %d links (count %d), scan %d (count %d)", c.Propagation, max, len(got)/2, gn, len(want)/2, wn)
			}
			if max > n && len(want) < 2*n {
				t.Errorf("%s: only %d links among %d nodes: the test proves little", c.Propagation, len(want)/2, n)
			}
		}
	}
}

// TestHeldEventsPrunedByTime feeds the collector a run whose first
// election-start comes in the last node's trace: the events held before
// it are pruned to those that may fall in the window once it is seen,
// and the sequence diagram is the same as with nothing pruned.
func TestHeldEventsPrunedByTime(t *testing.T) {
	var held int
	feed := func(maxHeld int) (*Data, *collector) {
		opt := Options{MaxHeld: maxHeld}
		opt.defaults()
		c := newCollector(opt)
		for id := protocol.NodeID(1); id <= 4; id++ {
			c.visit(id, &trace.Event{T: 0, Node: id, Ev: trace.EvStart})
			for k := range 300 {
				at := int64(k) * int64(100*time.Millisecond)
				if id == 4 && k == 50 {
					c.visit(id, &trace.Event{T: at, Node: id, Ev: string(protocol.NoteElectionStart), Epoch: "4.1"})
				}
				c.visit(id, &trace.Event{T: at, Node: id, Ev: trace.EvSend, Kind: "x", Seq: uint64(k + 1)})
				c.visit(id, &trace.Event{T: at + int64(time.Millisecond), Node: id, Ev: trace.EvRecv, Kind: "x", From: id%4 + 1, Seq: uint64(k + 1)})
			}
		}
		held = len(c.held)
		d := &Data{}
		d.buildSequence(opt, c)
		return d, c
	}
	want, _ := feed(0)
	got, c := feed(1950) // held when node 4 notes its election-start: 1904, 1966 at the end
	if c.sample != 1 || held >= 1000 {
		t.Fatalf("sampled (%d), %d held: the held events were not pruned by time", c.sample, held)
	}
	if want.Seq.Why != "the 2 s from the first election-start" || want.Seq.From != 5 || len(want.Seq.Msgs) == 0 {
		t.Fatalf("window %v-%v (%s), %d frames", want.Seq.From, want.Seq.To, want.Seq.Why, len(want.Seq.Msgs))
	}
	if jsonOf(t, got.Seq) != jsonOf(t, want.Seq) {
		t.Errorf("pruned:\n%s\nin full:\n%s", jsonOf(t, got.Seq), jsonOf(t, want.Seq))
	}
}

// TestPageWithoutLifelines draws a page whose window has no frame: the
// sequence diagram says so and the script finishes.
func TestPageWithoutLifelines(t *testing.T) {
	w, err := ParseWindow("500s:501s")
	if err != nil {
		t.Fatal(err)
	}
	path, d := buildPage(t, runDir(t), Options{Window: w, WindowSet: true})
	if len(d.Seq.Nodes) != 0 {
		t.Fatalf("lifelines %v in a window after the run", d.Seq.Nodes)
	}
	if dom := chromiumtest.ReadyDOM(t, path); !strings.Contains(dom, `id="seq-empty"`) {
		t.Error("the empty sequence diagram does not say so")
	}
}
