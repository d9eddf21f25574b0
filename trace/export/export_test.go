package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"

	_ "manetlab/baseline"
)

const moving = `
name: export
seed: 3
duration: 8s
nodes: {count: 8}
radio: {range: 300, hello: {period: 500ms}}
mobility: {model: random-waypoint, area: [600, 600], speed: [5, 15], pause: 0s}
protocol: {name: baseline/floodmax, params: {period: 400ms}}
`

func simRun(t *testing.T) (string, *scenario.Scenario) {
	t.Helper()
	s, err := scenario.Parse([]byte(moving), "test.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir, s
}

// shivizEvent is one parsed ShiViz event.
type shivizEvent struct {
	desc  string
	host  string
	clock map[string]uint64
}

// parseShiViz reads a log back with the regex it declares.
func parseShiViz(t *testing.T, data []byte) []shivizEvent {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 2 || lines[0] != ShiVizRegex || lines[1] != "" {
		t.Fatalf("header lines %q", lines[:min(2, len(lines))])
	}
	// ShiViz's JavaScript (?<name>) groups are Go's (?P<name>).
	re := regexp.MustCompile(strings.ReplaceAll(lines[0], "(?<", "(?P<"))
	body := strings.Join(lines[2:], "\n")
	var out []shivizEvent
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		var c map[string]uint64
		if err := json.Unmarshal([]byte(m[re.SubexpIndex("clock")]), &c); err != nil {
			t.Fatalf("clock %q: %v", m[3], err)
		}
		out = append(out, shivizEvent{m[re.SubexpIndex("event")], m[re.SubexpIndex("host")], c})
	}
	if len(out)*2 != len(lines)-2 {
		t.Fatalf("%d events parsed from %d lines", len(out), len(lines)-2)
	}
	return out
}

var fieldRe = regexp.MustCompile(`\b(from|seq)=(\d+)`)

func fields(desc string) (from, seq string) {
	for _, m := range fieldRe.FindAllStringSubmatch(desc, -1) {
		if m[1] == "from" {
			from = m[2]
		} else {
			seq = m[2]
		}
	}
	return
}

// checkClocks checks what ShiViz demands and what causality implies:
// own entries 1, 2, 3... per host; no entry ahead of what its host has
// written so far; every receive dominates its matched send. With exact,
// also the max rule: a clock is its host's previous clock, merged with
// the send's for a receive, plus one of its own.
func checkClocks(t *testing.T, evs []shivizEvent, exact bool) (pairs int) {
	t.Helper()
	prev := map[string]map[string]uint64{}
	count := map[string]uint64{}
	sends := map[string]map[string]uint64{}
	for i, e := range evs {
		count[e.host]++
		if e.clock[e.host] != count[e.host] {
			t.Fatalf("event %d %q: own entry %d, want %d", i, e.desc, e.clock[e.host], count[e.host])
		}
		for h, v := range e.clock {
			if v > count[h] {
				t.Fatalf("event %d: entry %s=%d ahead of the %d events written", i, h, v, count[h])
			}
			if v < prev[e.host][h] {
				t.Fatalf("event %d: entry %s went back", i, h)
			}
		}
		from, seq := fields(e.desc)
		var send map[string]uint64
		if strings.HasPrefix(e.desc, "recv ") {
			send = sends["node"+from+"/"+seq]
			if send != nil {
				pairs++
				for h, v := range send {
					if e.clock[h] < v {
						t.Fatalf("event %d %q at %s: entry %s=%d below its send's %d", i, e.desc, e.host, h, e.clock[h], v)
					}
				}
			}
		}
		if exact {
			want := map[string]uint64{}
			for h, v := range prev[e.host] {
				want[h] = v
			}
			for h, v := range send {
				want[h] = max(want[h], v)
			}
			want[e.host]++
			if fmt.Sprint(want) != fmt.Sprint(e.clock) {
				t.Fatalf("event %d %q: clock %v, max rule gives %v", i, e.desc, e.clock, want)
			}
		}
		prev[e.host] = e.clock
		if strings.HasPrefix(e.desc, "send ") || strings.HasPrefix(e.desc, "relay ") {
			sends[e.host+"/"+seq] = e.clock
		}
	}
	return pairs
}

func TestShiVizClocks(t *testing.T) {
	dir, _ := simRun(t)
	var out, probs bytes.Buffer
	rep, err := ShiViz([]string{dir}, &out, Options{Problems: &probs})
	if err != nil {
		t.Fatal(err)
	}
	evs := parseShiViz(t, out.Bytes())
	pairs := checkClocks(t, evs, true)
	if rep.Events != len(evs) || rep.Hosts != 8 || pairs == 0 || rep.Edges != pairs {
		t.Errorf("report %+v; parsed %d events, %d pairs", rep, len(evs), pairs)
	}
	if probs.Len() != 0 {
		t.Errorf("problems on a clean run:\n%s", probs.String())
	}
}

func TestShiVizSubset(t *testing.T) {
	dir, _ := simRun(t)
	var out bytes.Buffer
	rep, err := ShiViz([]string{dir}, &out, Options{Nodes: []protocol.NodeID{1, 2, 5}, From: 2 * time.Second, To: 6 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	evs := parseShiViz(t, out.Bytes())
	pairs := checkClocks(t, evs, false)
	for _, e := range evs {
		if e.host != "node1" && e.host != "node2" && e.host != "node5" {
			t.Fatalf("host %s outside the selection", e.host)
		}
		for h := range e.clock {
			if h != "node1" && h != "node2" && h != "node5" {
				t.Fatalf("clock entry %s outside the selection", h)
			}
		}
		ts := regexp.MustCompile(` t=([0-9.]+)s`).FindStringSubmatch(e.desc)
		if sec, _ := strconv.ParseFloat(ts[1], 64); sec < 2 || sec >= 6 {
			t.Fatalf("event at %vs outside the window", sec)
		}
	}
	if len(evs) == 0 || pairs == 0 || rep.Hosts != 3 {
		t.Errorf("%d events, %d pairs, report %+v", len(evs), pairs, rep)
	}
}

// animXML is the part of NetAnim's format the test reads.
type animXML struct {
	XMLName  xml.Name `xml:"anim"`
	Ver      string   `xml:"ver,attr"`
	Topology struct {
		Nodes []struct {
			ID   int     `xml:"id,attr"`
			LocX float64 `xml:"locX,attr"`
			LocY float64 `xml:"locY,attr"`
		} `xml:"node"`
	} `xml:"topology"`
	Updates []struct {
		P     string  `xml:"p,attr"`
		T     float64 `xml:"t,attr"`
		ID    int     `xml:"id,attr"`
		X     float64 `xml:"x,attr"`
		Y     float64 `xml:"y,attr"`
		R     int     `xml:"r,attr"`
		G     int     `xml:"g,attr"`
		B     int     `xml:"b,attr"`
		Descr string  `xml:"descr,attr"`
		W     float64 `xml:"w,attr"`
		H     float64 `xml:"h,attr"`
	} `xml:"nu"`
	// Wired packets: ns-3 writes none for a wireless network.
	Wired []struct{} `xml:"p"`
	// Wireless transmissions and receptions, as ns-3 writes them.
	Tx []struct {
		UID  int     `xml:"uId,attr"`
		From int     `xml:"fId,attr"`
		FbTx float64 `xml:"fbTx,attr"`
		Meta string  `xml:"meta-info,attr"`
	} `xml:"pr"`
	Rx []struct {
		UID  int     `xml:"uId,attr"`
		To   int     `xml:"tId,attr"`
		FbRx float64 `xml:"fbRx,attr"`
		LbRx float64 `xml:"lbRx,attr"`
	} `xml:"wpr"`
}

func TestNetAnim(t *testing.T) {
	dir, s := simRun(t)
	var out, probs bytes.Buffer
	rep, err := NetAnim([]string{dir}, &out, Options{Problems: &probs})
	if err != nil {
		t.Fatal(err)
	}
	var a animXML
	if err := xml.Unmarshal(out.Bytes(), &a); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if a.Ver != NetAnimVersion || len(a.Topology.Nodes) != 8 {
		t.Fatalf("ver %q, %d nodes", a.Ver, len(a.Topology.Nodes))
	}
	model, err := s.MobilityModel()
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, x, y float64, i int, at time.Duration) {
		p := model.Position(i, at)
		if math.Abs(p.X-x) > 1e-6 || math.Abs(p.Y-y) > 1e-6 {
			t.Errorf("%s: node %d at %v: (%v, %v), the model says (%v, %v)", what, i, at, x, y, p.X, p.Y)
		}
	}
	for i, n := range a.Topology.Nodes {
		if n.ID != i {
			t.Fatalf("node ids %+v", a.Topology.Nodes)
		}
		near("topology", n.LocX, n.LocY, i, 0)
	}
	moves, red, descr, sized := 0, 0, 0, 0
	for _, u := range a.Updates {
		switch u.P {
		case "s":
			// The scenario's area is 600 m wide: nodes of 12 m show.
			if u.W == 12 && u.H == 12 && u.T == 0 {
				sized++
			}
		case "p":
			moves++
			near("update", u.X, u.Y, u.ID, time.Duration(math.Round(u.T*1e9)))
		case "c":
			if u.R == 255 && u.G == 0 && u.B == 0 {
				red++
			}
		case "d":
			if u.Descr == fmt.Sprintf("node %d", u.ID+1) {
				descr++
			}
		}
	}
	if moves < 8*7 || red == 0 || descr != 8 || sized != 8 {
		t.Errorf("%d position updates, %d red, %d descriptions, %d nodes sized 12 m", moves, red, descr, sized)
	}
	if len(a.Wired) != 0 || len(a.Tx) == 0 || len(a.Tx) != rep.Packets || len(a.Rx) != rep.Receptions || rep.Receptions != rep.Edges {
		t.Fatalf("%d <p>, %d <pr>, %d <wpr>, report %+v", len(a.Wired), len(a.Tx), len(a.Rx), rep)
	}
	// Every reception follows its transmission (same uId, written
	// before it), at another node; a broadcast has several receptions.
	tx := map[int]int{}
	for _, p := range a.Tx {
		if _, dup := tx[p.UID]; dup || p.From < 0 || p.From >= 8 || p.Meta == "" {
			t.Fatalf("transmission %+v (duplicate uId or no kind)", p)
		}
		tx[p.UID] = p.From
	}
	multi, perTx := false, map[int]int{}
	for _, p := range a.Rx {
		from, ok := tx[p.UID]
		if !ok || !(p.LbRx >= p.FbRx) || p.To == from || p.To < 0 || p.To >= 8 {
			t.Fatalf("reception %+v of a transmission by %d (known: %v)", p, from, ok)
		}
		perTx[p.UID]++
		multi = multi || perTx[p.UID] > 1
	}
	if !multi {
		t.Errorf("no transmission received by two nodes")
	}
	for _, p := range a.Tx {
		if perTx[p.UID] == 0 {
			t.Errorf("transmission %d written with no reception", p.UID)
		}
	}
	// In the file each <wpr> comes after its <pr>.
	text := out.String()
	for _, p := range a.Rx[:min(len(a.Rx), 50)] {
		pr := strings.Index(text, fmt.Sprintf(`<pr uId="%d" `, p.UID))
		wpr := strings.Index(text, fmt.Sprintf(`<wpr uId="%d" `, p.UID))
		if pr < 0 || wpr < pr {
			t.Fatalf("uId %d: <pr> at %d, first <wpr> at %d", p.UID, pr, wpr)
		}
	}
	if probs.Len() != 0 {
		t.Errorf("problems:\n%s", probs.String())
	}
}

// Damaged lines are named on the problem stream and the rest is exported.
func TestBadInput(t *testing.T) {
	dir, _ := simRun(t)
	path := trace.NodeFile(dir, 2)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[4] = "{not json\n"
	os.WriteFile(path, []byte(strings.Join(lines, "")+`{"t":1,"node":2,"ev":"se`), 0o644)
	for name, exp := range map[string]func([]string, *bytes.Buffer, Options) (*Report, error){
		"shiviz":  func(d []string, w *bytes.Buffer, o Options) (*Report, error) { return ShiViz(d, w, o) },
		"netanim": func(d []string, w *bytes.Buffer, o Options) (*Report, error) { return NetAnim(d, w, o) },
	} {
		var out, probs bytes.Buffer
		rep, err := exp([]string{dir}, &out, Options{Problems: &probs})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sc := bufio.NewScanner(&probs)
		var got []string
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		want5, wantLast := path+":5: not a JSON event", fmt.Sprintf("%s:%d: truncated last line", path, len(lines))
		joined := strings.Join(got, "\n")
		if !strings.Contains(joined, want5) || !strings.Contains(joined, wantLast) || rep.Problems != len(got) {
			t.Errorf("%s: problems (%d reported):\n%s\nwant %q and %q", name, rep.Problems, joined, want5, wantLast)
		}
		if out.Len() == 0 {
			t.Errorf("%s: nothing exported", name)
		}
	}
}
