package htmlreport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	_ "manetlab/adhoc" // registers adhoc/vasudevan
	"manetlab/protocol"
	"manetlab/protocol/logicalring"
	_ "manetlab/ring" // registers ring/chang-roberts
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/htmlreport/chromiumtest"
)

// simRun simulates the quickstart scenario shortened to 8 nodes and 20 s
// with the tree election, node 3 crashing at 8 s and recovering at 14 s,
// once per test binary.
var simRun = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "htmlreport-test-")
	if err != nil {
		return "", err
	}
	s, err := scenario.Load("../../configs/quickstart.yaml", []string{
		"protocol.name=adhoc/vasudevan", "nodes.count=8", "duration=20s",
		"mobility.area=[500,500]", "faults=[{at: 8s, crash: [3]}, {at: 14s, recover: [3]}]",
	})
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "run")
	if _, err := sim.Run(s, sim.Options{Out: out}); err != nil {
		return "", err
	}
	return out, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := simRun(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

func runDir(t *testing.T) string {
	t.Helper()
	dir, err := simRun()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// buildPage writes the page for dir and reads its embedded data back.
func buildPage(t *testing.T, dir string, opt Options) (string, *Data) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteFile(dir, path, opt); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Extract(html)
	if err != nil {
		t.Fatal(err)
	}
	return path, d
}

func TestPageIsSelfContained(t *testing.T) {
	path, _ := buildPage(t, runDir(t), Options{})
	html, _ := os.ReadFile(path)
	s := string(html)
	for _, bad := range []string{"http://", "https://", "//cdn", " src=", "<link", "@import", "url(http"} {
		// The SVG namespace is an identifier, never fetched.
		if strings.Contains(strings.ReplaceAll(s, `"http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page contains %q: it must load nothing", bad)
		}
	}
	if !strings.Contains(s, "Content-Security-Policy") || !strings.Contains(s, "default-src 'none'") {
		t.Error("page lacks its Content-Security-Policy")
	}
	if len(html) > 1<<20 {
		t.Errorf("page of an 8-node, 20 s run is %d bytes", len(html))
	}
}

func TestEmbeddedData(t *testing.T) {
	dir := runDir(t)
	_, d := buildPage(t, dir, Options{})
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Run != run.Header.Run || d.Protocol != "adhoc/vasudevan" || len(d.Nodes) != 8 || d.End != 20 {
		t.Fatalf("run %q protocol %q nodes %v end %v", d.Run, d.Protocol, d.Nodes, d.End)
	}

	// Positions: 2 frames per second, 0 s to 20 s; every node placed; at
	// the run file's position events (0 s and 20 s) exactly theirs.
	if len(d.Frames) != 41 || d.Frames[0].T != 0 || d.Frames[40].T != 20 {
		t.Fatalf("%d frames, from %v to %v s", len(d.Frames), d.Frames[0].T, d.Frames[len(d.Frames)-1].T)
	}
	for _, f := range d.Frames {
		if len(f.XY) != 16 || f.XY[0] == nil || f.XY[15] == nil {
			t.Fatalf("frame at %v s: %d coordinates", f.T, len(f.XY))
		}
	}
	positions := 0
	for _, e := range run.RunEvents {
		if e.Ev != trace.EvPosition {
			continue
		}
		k := map[int64]int{0: 0, 20e9: 40}[e.T]
		i := int(e.Node) - 1
		f := d.Frames[k]
		if math.Abs(*f.XY[2*i]-e.Pos[0]) > 0.051 || math.Abs(*f.XY[2*i+1]-e.Pos[1]) > 0.051 {
			t.Errorf("node %d at %v s: page (%v, %v), position event %v", e.Node, f.T, *f.XY[2*i], *f.XY[2*i+1], e.Pos)
		}
		positions++
	}
	if positions != 16 {
		t.Errorf("%d position events in the run file, want 16", positions)
	}

	// Radio links: exactly the pairs within the 250 m range.
	for _, f := range d.Frames {
		linked := map[[2]int]bool{}
		for k := 0; k < len(f.Links); k += 2 {
			linked[[2]int{int(f.Links[k]), int(f.Links[k+1])}] = true
		}
		for i := range 8 {
			for j := i + 1; j < 8; j++ {
				dist := math.Hypot(*f.XY[2*i]-*f.XY[2*j], *f.XY[2*i+1]-*f.XY[2*j+1])
				if math.Abs(dist-250) > 0.2 && linked[[2]int{i, j}] != (dist < 250) {
					t.Errorf("at %v s nodes %d, %d are %.1f m apart; linked %v", f.T, i+1, j+1, dist, linked[[2]int{i, j}])
				}
			}
		}
	}

	// Timeline: the segments replay the leader notes (start and crash
	// reset to none), nothing else.
	for i, id := range d.Nodes {
		var want [][3]float64
		cur, since := protocol.None, int64(0)
		change := func(l protocol.NodeID, at int64) {
			if l == cur {
				return
			}
			if cur != protocol.None && at > since {
				want = append(want, [3]float64{secs(since), secs(at), float64(cur)})
			}
			cur, since = l, at
		}
		notes := 0
		for _, e := range run.Nodes[protocol.NodeID(id)] {
			switch e.Ev {
			case trace.EvStart, trace.EvCrash:
				change(protocol.None, e.T)
			case string(protocol.NoteLeader):
				change(e.Leader, e.T)
				notes++
			}
		}
		change(protocol.None, 20e9)
		if notes == 0 {
			t.Errorf("node %d has no leader notes; the test run is too quiet", id)
		}
		if len(d.Leaders[i]) != len(want) {
			t.Errorf("node %d: %d segments %v, want %d %v", id, len(d.Leaders[i]), d.Leaders[i], len(want), want)
			continue
		}
		for k := range want {
			if d.Leaders[i][k] != want[k] {
				t.Errorf("node %d segment %d: %v, want %v", id, k, d.Leaders[i][k], want[k])
			}
		}
	}
	if len(d.Dead[2]) != 1 || d.Dead[2][0] != [2]float64{8, 14} || len(d.Crashes[2]) != 1 || d.Crashes[2][0] != 8 {
		t.Errorf("node 3: dead %v crashes %v, want [[8 14]] and [8]", d.Dead[2], d.Crashes[2])
	}
	for i := range d.Nodes {
		if i != 2 && (len(d.Dead[i]) > 0 || len(d.Crashes[i]) > 0) {
			t.Errorf("node %d: dead %v crashes %v", d.Nodes[i], d.Dead[i], d.Crashes[i])
		}
	}
	// Tree edges name other nodes, never the node itself.
	edges := 0
	for i, ps := range d.Parents {
		for _, p := range ps {
			if p[1] == float64(d.Nodes[i]) {
				t.Errorf("node %d: tree edge to itself at %v s", d.Nodes[i], p[0])
			}
			if p[1] != 0 {
				edges++
			}
		}
	}
	if edges == 0 {
		t.Error("no tree edges at all")
	}

	// Sequence: the 2 s from the first election-start; every receipt is a
	// real recv or drop of that (from, seq) at that node.
	first := math.Inf(1)
	for _, evs := range run.Nodes {
		for _, e := range evs {
			if e.Ev == string(protocol.NoteElectionStart) {
				first = math.Min(first, secs(e.T))
			}
		}
	}
	if d.Seq.From != first || d.Seq.To != first+2 {
		t.Errorf("window %v-%v s, want the 2 s from %v s", d.Seq.From, d.Seq.To, first)
	}
	type rkey struct {
		node, from uint32
		seq        uint64
		t          float64
	}
	recvs := map[rkey]bool{}
	for id, evs := range run.Nodes {
		for _, e := range evs {
			if e.Ev == trace.EvRecv || e.Ev == trace.EvDrop {
				recvs[rkey{uint32(id), uint32(e.From), e.Seq, secs(e.T)}] = true
			}
		}
	}
	arrows := 0
	for _, m := range d.Seq.Msgs {
		if m.T < d.Seq.From || m.T > d.Seq.To {
			t.Errorf("message at %v s outside the window", m.T)
		}
		for _, r := range m.Recvs {
			if !recvs[rkey{r.Node, m.From, m.Seq, r.T}] {
				t.Errorf("receipt %+v of %s #%d from %d matches no receive", r, m.Kind, m.Seq, m.From)
			}
			arrows++
		}
	}
	if arrows == 0 || len(d.Seq.Nodes) == 0 {
		t.Errorf("sequence: %d lifelines, %d arrows", len(d.Seq.Nodes), arrows)
	}

	if d.Metrics == nil || d.Metrics.F == nil || d.Check == nil || len(d.Check.Properties) != 3 {
		t.Errorf("metrics %+v, check %+v", d.Metrics, d.Check)
	}
}

func TestWindowAndCaps(t *testing.T) {
	dir := runDir(t)
	w, err := ParseWindow("10s:12.5s")
	if err != nil {
		t.Fatal(err)
	}
	_, d := buildPage(t, dir, Options{Window: w, WindowSet: true, MaxPositions: 80, MaxLinks: 5, MaxLifelines: 3, MaxMessages: 4})
	if d.Seq.From != 10 || d.Seq.To != 12.5 || d.Seq.Why != "as asked" {
		t.Errorf("window %v-%v (%s)", d.Seq.From, d.Seq.To, d.Seq.Why)
	}
	if len(d.Seq.Nodes) > 3 || len(d.Seq.Msgs) > 4 || d.Seq.Truncated == "" {
		t.Errorf("caps: %d lifelines, %d messages, truncated %q", len(d.Seq.Nodes), len(d.Seq.Msgs), d.Seq.Truncated)
	}
	if len(d.Frames) != 10 || d.Frames[9].T != 20 {
		t.Errorf("MaxPositions 80 with 8 nodes: %d frames, the last at %v s", len(d.Frames), d.Frames[len(d.Frames)-1].T)
	}
	for _, f := range d.Frames {
		if len(f.Links) > 0 {
			t.Fatal("links kept beyond MaxLinks")
		}
	}
	if d.LinksNote == "" {
		t.Error("no note on the links left out")
	}
}

func TestParseWindow(t *testing.T) {
	good := map[string][2]time.Duration{
		"10s:12s":    {10 * time.Second, 12 * time.Second},
		"1.5:2500ms": {1500 * time.Millisecond, 2500 * time.Millisecond},
		"0:1m":       {0, time.Minute},
	}
	for s, want := range good {
		if got, err := ParseWindow(s); err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "10s", "12s:10s", "5s:5s", "a:b", "-1s:2s", "NaN:3"} {
		if _, err := ParseWindow(s); err == nil {
			t.Errorf("ParseWindow(%q) accepted", s)
		}
	}
}

// TestPageRendersInChromium loads the page in headless Chromium and
// checks the DOM the script builds at load: one map circle per node, one
// timeline row per node, sequence arrows, and data-ready="1" on the body,
// which the script sets only when every part was drawn without error.
func TestPageRendersInChromium(t *testing.T) {
	path, d := buildPage(t, runDir(t), Options{})
	dom := chromiumtest.ReadyDOM(t, path)
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(dom, -1)) }
	if n := count(`<svg[^>]*id="map-svg"`); n != 1 {
		t.Errorf("%d map SVGs", n)
	}
	if n := count(`<circle class="node[ "][^>]*data-node="\d+"`); n != len(d.Nodes) {
		t.Errorf("%d node circles on the map, want %d", n, len(d.Nodes))
	}
	if n := count(`<g class="tl-row" data-node="\d+"`); n != len(d.Nodes) {
		t.Errorf("%d timeline rows, want %d", n, len(d.Nodes))
	}
	if n := count(`<rect class="seg"`); n == 0 {
		t.Error("no leader segments in the timeline")
	}
	if n := count(`<line class="lifeline" data-node="\d+"`); n != len(d.Seq.Nodes) {
		t.Errorf("%d lifelines, want %d", n, len(d.Seq.Nodes))
	}
	arrows := 0
	for _, m := range d.Seq.Msgs {
		arrows += len(m.Recvs)
	}
	if n := count(`<line class="arrow( drop)?"`); n != arrows || n == 0 {
		t.Errorf("%d sequence arrows, want %d (> 0)", n, arrows)
	}
	if n := count(`<table class="figs" id="(metrics|verdict)-table"`); n != 2 {
		t.Errorf("%d of the metrics and verdict tables", n)
	}
	// The timeline's legend has a swatch per leader followed, and the
	// notes at one node and instant share one label.
	leaders := map[float64]bool{}
	for _, segs := range d.Leaders {
		for _, s := range segs {
			leaders[s[2]] = true
		}
	}
	if n := count(`<span class="tl-legend-item tl-leader">`); n != min(len(leaders), 40) || n == 0 {
		t.Errorf("%d leaders in the timeline's legend, want %d", n, len(leaders))
	}
	if n := count(`<span class="tl-legend-item">`); n != 4 {
		t.Errorf("%d other legend items, want 4 (crashed, crash, window, no leader)", n)
	}
	instants := map[string]bool{}
	for _, m := range d.Seq.Marks {
		instants[fmt.Sprint(m.Node, "@", m.T)] = true
	}
	if n := count(`<text class="mark-text"`); n != len(instants) {
		t.Errorf("%d note labels in the sequence, want one per node and instant: %d", n, len(instants))
	}
}

// TestSequenceRelaysCanBeHidden: on a run whose messages are flooded
// (every hop after the first a relay), the sequence diagram draws an
// arrow per receive of every frame, and with #relays=0 (the checkbox
// unticked) only those of the frames that are not relays.
func TestSequenceRelaysCanBeHidden(t *testing.T) {
	s, err := scenario.Load("../../configs/ring-chang-roberts.yaml", []string{
		"nodes.placement=grid", "nodes.count=9", "radio.range=150", "mobility.area=[300,300]", "duration=5s", "routing.protocol=flood"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	path, d := buildPage(t, dir, Options{})
	all, direct := 0, 0
	for _, m := range d.Seq.Msgs {
		all += len(m.Recvs)
		if !m.Relay {
			direct += len(m.Recvs)
		}
	}
	if direct == 0 || direct == all {
		t.Fatalf("%d arrows, %d of frames that are not relays: the run does not test the checkbox", all, direct)
	}
	arrows := func(dom string) int {
		return len(regexp.MustCompile(`<line class="arrow( drop)?"`).FindAllString(dom, -1))
	}
	if n := arrows(chromiumtest.ReadyDOM(t, path)); n != all {
		t.Errorf("relays shown: %d arrows, want %d", n, all)
	}
	dom := chromiumtest.ReadyDOM(t, path+"#relays=0")
	if n := arrows(dom); n != direct {
		t.Errorf("relays hidden: %d arrows, want %d", n, direct)
	}
	if !strings.Contains(dom, "relays are hidden") {
		t.Error("the explanation does not say that relays are hidden")
	}
}

// TestComplexityFirst: for an algorithm with a theory the page leads with
// its messages beside the theory, and the sequence diagram's labels are
// never cut (issue 22).
func TestComplexityFirst(t *testing.T) {
	// 16 nodes: columns too narrow for the longer labels at their least
	// width.
	s, err := scenario.Load("../../configs/ring-chang-roberts.yaml", []string{"duration=5s", "nodes.count=16"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	path, d := buildPage(t, dir, Options{})
	// Every node has its lifeline, in ring order (issue 35).
	ring, err := logicalring.Resolve(s.Protocol.Params["ring"], s.MemberIDs(), s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Seq.Ring || fmt.Sprint(d.Seq.Nodes) != fmt.Sprint(ring) {
		t.Fatalf("lifelines %v (ring order: %v), want the ring %v", d.Seq.Nodes, d.Seq.Ring, ring)
	}
	dom := chromiumtest.ReadyDOM(t, path)
	if n := len(regexp.MustCompile(`<line class="lifeline" data-node="\d+"`).FindAllString(dom, -1)); n != 16 {
		t.Fatalf("%d lifelines drawn, want 16", n)
	}
	c, m := strings.Index(dom, `id="complexity"`), strings.Index(dom, `id="metrics-table"`)
	count := regexp.MustCompile(`<b>(\d+) election messages</b>`).FindStringSubmatch(dom)
	if c < 0 || m < c || count == nil || !strings.Contains(dom, "exactly "+count[1]+" for this arrangement (matches)") {
		t.Fatalf("no complexity block before the metrics:\n%.3000s", dom[max(c, 0):])
	}
	// The sequence diagram's labels are whole: "transport-ack #3 →7".
	seq := dom[strings.Index(dom, `id="seq-svg"`):]
	seq = seq[:strings.Index(seq, "</svg>")]
	if strings.Contains(seq, "…") || !strings.Contains(seq, ">transport-ack #") {
		t.Fatal("the sequence diagram cuts its labels")
	}
}

// TestMutexPageHasNoLeaderColumns: a mutual exclusion run's page shows
// its figures without the election's F, R, T and M, and no leader
// timeline when nothing elects (issue 22).
func TestMutexPageHasNoLeaderColumns(t *testing.T) {
	s, err := scenario.Load("../../configs/mutex-ricart-agrawala.yaml", []string{"duration=8s"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	path, _ := buildPage(t, dir, Options{})
	dom := chromiumtest.ReadyDOM(t, path)
	if strings.Contains(dom, `id="metrics-table"`) || !strings.Contains(dom, `id="mutex-table"`) || !regexp.MustCompile(`<section id="timeline-section"[^>]*hidden`).MatchString(dom) {
		t.Fatal("the mutex page shows leader columns or a leader timeline, or no mutex figures")
	}
}

// TestElectionsNamedAndFiltered: elections are named by initiator and
// start, not by their epoch's opaque ID (issue 35); the sequence diagram filters by node and by election (issue 22).
func TestElectionsNamedAndFiltered(t *testing.T) {
	s, err := scenario.Load("../../configs/ring-chang-roberts.yaml", []string{"duration=5s"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	path, d := buildPage(t, dir, Options{})
	// Every node starts election 1 at 1 s: the lowest ID names it.
	if len(d.Elections) != 1 || d.Elections[0].Initiator != 1 || d.Elections[0].Start != 1 || d.Elections[0].End == nil {
		t.Fatalf("elections %+v", d.Elections)
	}
	arrows := func(dom string) int {
		return len(regexp.MustCompile(`<line class="arrow( drop)?"`).FindAllString(dom, -1))
	}
	// Every token says whose it is (protocol.MessageDescriber), in the
	// data and on the arrows: node 8's token as it passes every node.
	from8 := map[uint32]bool{}
	for _, m := range d.Seq.Msgs {
		if m.Kind == "token" && m.Says == "" {
			t.Fatalf("a token says nothing: %+v", m)
		}
		if strings.HasPrefix(m.Says, "token from 8,") {
			from8[m.From] = true
		}
	}
	if len(from8) != 8 {
		t.Fatalf("node 8's token sent by %v, want every node", from8)
	}
	all := chromiumtest.ReadyDOM(t, path)
	if !strings.Contains(all, "election by node 1 at 1.000 s (over at") || !strings.Contains(all, `data-election="0"`) {
		t.Fatal("the page does not name election 1 or colour its arrows")
	}
	if !regexp.MustCompile(`<text class="kind"[^>]*>token from 8, election 1 →\d`).MatchString(all) {
		t.Fatal("the sequence diagram does not label node 8's token as 8's")
	}
	one := chromiumtest.ReadyDOM(t, path+"#node=3")
	if n, m := arrows(one), arrows(all); n == 0 || n >= m || !strings.Contains(one, "only node 3's sends and receives") {
		t.Fatalf("node 3's filter: %d arrows of %d", n, m)
	}
	if el := chromiumtest.ReadyDOM(t, path+"#election=0"); !strings.Contains(el, "only election by node 1") || arrows(el) == 0 {
		t.Fatal("the election filter does not show election 1")
	}
}
