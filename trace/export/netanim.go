package export

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"manetlab/internal/geo"
	"manetlab/mobility"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// NetAnimVersion is the anim element's ver attribute: the version of the
// format ns-3's AnimationInterface writes with wireless packets as
// <pr uId fId fbTx> and <wpr uId tId fbRx lbRx>.
const NetAnimVersion = "netanim-3.108"

// Airtime is the nominal transmission time per byte drawn for a packet
// (11 Mbit/s), so that NetAnim shows a first and a last bit.
const Airtime = 8 * time.Second / 11_000_000

// Colours of NetAnim nodes by role.
var (
	colourLeader  = [3]uint8{255, 0, 0}
	colourNone    = [3]uint8{160, 160, 160}
	colourCrashed = [3]uint8{0, 0, 0}
)

// followerColour is the colour of the nodes following leader l: one of a
// palette without red, the same for every follower of l.
func followerColour(l protocol.NodeID) [3]uint8 {
	palette := [][3]uint8{{31, 119, 180}, {44, 160, 44}, {148, 103, 189}, {255, 127, 14},
		{23, 190, 207}, {140, 86, 75}, {227, 119, 194}, {188, 189, 34}, {0, 0, 128}, {0, 128, 128}}
	return palette[int(l)%len(palette)]
}

// MaxFrames bounds how many times NetAnim positions are sampled: a
// longer export is sampled more coarsely than Options.Step.
const MaxFrames = 100_000

// NetAnim writes the run in dirs as ns-3 NetAnim XML: the nodes (NetAnim
// id i is the i-th selected node in ascending manetlab ID, described as
// "node N"), their positions every Step, their colours by role after
// every leader note, crash and start, and the packets as ns-3 writes
// wireless ones: a <pr> per transmission (uId, sender, first bit, the
// message kind as meta-info) followed by a <wpr> per reception inside the
// selection (uId, receiver, first and last bit).
func NetAnim(dirs []string, w io.Writer, opt Options) (*Report, error) {
	rep := &Report{}
	l, err := load(dirs, opt, rep)
	if err != nil {
		return nil, err
	}
	if opt.Step <= 0 {
		opt.Step = time.Second
	}
	f := newFilter(opt)
	problem := func(format string, args ...any) {
		rep.Problems++
		if opt.Problems != nil {
			fmt.Fprintf(opt.Problems, format+"\n", args...)
		}
	}

	// The nodes: the scenario's members, else the nodes in the traces.
	var (
		model mobility.Model
		area  [2]float64                  // the scenario's mobility.area, when known
		index = map[protocol.NodeID]int{} // member ID -> mobility index
		ids   []protocol.NodeID
	)
	if l.header.Scenario != "" {
		sc, err := scenario.Parse([]byte(l.header.Scenario), "run header", nil)
		if err == nil {
			area = sc.Mobility.Area
			model, err = sc.MobilityModel()
		}
		if err != nil {
			problem("%s: the scenario in the header: %v (positions only from position events)", l.header.Src, err)
		} else {
			for _, m := range sc.Members() {
				index[m.ID] = m.Index
				ids = append(ids, m.ID)
			}
		}
	}
	seen := map[protocol.NodeID]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	for i := range l.evs {
		if id := l.evs[i].Node; id != protocol.None && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = slices.DeleteFunc(ids, func(id protocol.NodeID) bool { return !f.node(id) })
	anim := map[protocol.NodeID]int{}
	for i, id := range ids {
		anim[id] = i
	}
	rep.Hosts = len(ids)

	from := int64(opt.From)
	to := l.end
	if opt.To > 0 {
		to = min(to, int64(opt.To))
	}
	to = max(to, from)
	// However long the traces say the run was, at most MaxFrames samples.
	if frames := (to - from) / int64(opt.Step); frames > MaxFrames {
		coarse := time.Duration((to-from)/MaxFrames+1).Round(time.Millisecond) + time.Millisecond
		problem("the export spans %v: positions sampled every %v instead of %v (at most %d samples)", time.Duration(to-from), coarse, opt.Step, MaxFrames)
		opt.Step = coarse
	}

	// Positions: the latest position event at or before t, else the model.
	posEvents := map[protocol.NodeID][]ev{}
	for _, e := range l.evs {
		if e.runFile && e.Ev == trace.EvPosition && e.Pos != nil {
			posEvents[e.Node] = append(posEvents[e.Node], e)
		}
	}
	position := func(id protocol.NodeID, t int64) (geo.Vec, bool) {
		if i, ok := index[id]; ok && model != nil {
			return model.Position(i, time.Duration(t)), true
		}
		pe := posEvents[id]
		k, _ := slices.BinarySearchFunc(pe, t+1, func(e ev, t int64) int { return cmp.Compare(e.T, t) })
		if k == 0 && len(pe) > 0 {
			k = 1 // before the first position event: that one
		}
		if k > 0 {
			p := pe[k-1].Pos
			return geo.Vec{X: p[0], Y: p[1], Z: p[2]}, true
		}
		return geo.Vec{}, false
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "<anim ver=%q filetype=\"animation\" >\n", NetAnimVersion)
	fmt.Fprintf(bw, "<info info=%s />\n", attr("manetlab run "+l.header.Run+" ("+l.header.Protocol+")"))
	start := make([]geo.Vec, len(ids))
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, id := range ids {
		p, ok := position(id, from)
		if !ok {
			problem("node %d: no position (no position event, not in the scenario); placed at 0,0", id)
		}
		start[i] = p
		minX, minY, maxX, maxY = math.Min(minX, p.X), math.Min(minY, p.Y), math.Max(maxX, p.X), math.Max(maxY, p.Y)
	}
	if len(ids) == 0 {
		minX, minY, maxX, maxY = 0, 0, 0, 0
	}
	fmt.Fprintf(bw, "<topology minX=\"%s\" minY=\"%s\" maxX=\"%s\" maxY=\"%s\">\n", num(minX), num(minY), num(maxX), num(maxY))
	for i := range ids {
		fmt.Fprintf(bw, "<node id=\"%d\" sysId=\"0\" locX=\"%s\" locY=\"%s\" />\n", i, num(start[i].X), num(start[i].Y))
	}
	fmt.Fprintf(bw, "</topology>\n")
	size := nodeSize(area, minX, minY, maxX, maxY)
	for i, id := range ids {
		fmt.Fprintf(bw, "<nu p=\"d\" t=\"%s\" id=\"%d\" descr=%s />\n", secs(from), i, attr("node "+strconv.FormatUint(uint64(id), 10)))
		fmt.Fprintf(bw, "<nu p=\"s\" t=\"%s\" id=\"%d\" w=\"%s\" h=\"%s\" />\n", secs(from), i, num(size), num(size))
	}

	// Updates in time order: positions sampled every Step, colours at
	// role changes, packets at their transmission.
	type update struct {
		t    int64
		line string
	}
	var ups []update
	last := slices.Clone(start)
	moveTo := func(t int64, i int, p geo.Vec) {
		if p.Sub(last[i]).Len() < 1e-3 {
			return
		}
		last[i] = p
		ups = append(ups, update{t, fmt.Sprintf("<nu p=\"p\" t=\"%s\" id=\"%d\" x=\"%s\" y=\"%s\" />", secs(t), i, num(p.X), num(p.Y))})
	}
	// Position events where they were recorded, and samples every Step
	// (from the model, else the latest position event), in time order.
	next := make([]int, len(ids))
	for i, id := range ids {
		next[i], _ = slices.BinarySearchFunc(posEvents[id], from+1, func(e ev, t int64) int { return cmp.Compare(e.T, t) })
	}
	for t := from + int64(opt.Step); ; t += int64(opt.Step) {
		t = min(t, to)
		for i, id := range ids {
			for pe := posEvents[id]; next[i] < len(pe) && pe[next[i]].T < t; next[i]++ {
				p := pe[next[i]].Pos
				moveTo(pe[next[i]].T, i, geo.Vec{X: p[0], Y: p[1], Z: p[2]})
			}
			if p, ok := position(id, t); ok {
				moveTo(t, i, p)
			}
		}
		if t >= to {
			break
		}
	}
	colour := func(t int64, i int, c [3]uint8) string {
		return fmt.Sprintf("<nu p=\"c\" t=\"%s\" id=\"%d\" r=\"%d\" g=\"%d\" b=\"%d\" />", secs(t), i, c[0], c[1], c[2])
	}
	state := map[protocol.NodeID][3]uint8{}
	for _, id := range ids {
		state[id] = colourNone
	}
	type sendInfo struct {
		t     int64
		node  protocol.NodeID
		bytes int
		kind  string
		uid   int // the packet's uId, one per transmission
	}
	m := newMatcher[sendInfo]()
	sends, written := 0, map[int]bool{}
	for i := range l.evs {
		e := &l.evs[i].Event
		if l.evs[i].runFile {
			continue // crash and recover are in the node files too
		}
		a, sel := anim[e.Node]
		var c [3]uint8
		changed := true
		switch {
		case e.Ev == string(protocol.NoteLeader) && e.Leader == e.Node:
			c = colourLeader
		case e.Ev == string(protocol.NoteLeader) && e.Leader != protocol.None:
			c = followerColour(e.Leader)
		case e.Ev == string(protocol.NoteLeader) || e.Ev == trace.EvStart || e.Ev == trace.EvRecover:
			c = colourNone
		case e.Ev == trace.EvCrash:
			c = colourCrashed
		default:
			changed = false
		}
		if changed && sel {
			if e.T < from {
				state[e.Node] = c // the colour at the window's start
			} else if f.time(e.T) {
				ups = append(ups, update{e.T, colour(e.T, a, c)})
			}
		}
		if isSend(e) {
			sends++
			m.send(e, sendInfo{e.T, e.Node, e.Bytes, e.Kind, sends})
			continue
		}
		if e.Ev != trace.EvRecv {
			continue
		}
		s, ok := m.recv(e)
		ta, okA := anim[s.node]
		if !ok || !okA || !sel || !f.time(s.t) || !f.time(e.T) {
			continue
		}
		rep.Edges++
		air := int64(max(s.bytes, 1)) * int64(Airtime)
		rx := e.T
		if rx <= s.t {
			rep.ClockRepaired++
			rx = s.t + 1000
		}
		if !written[s.uid] {
			// The transmission, once, before its first reception.
			written[s.uid] = true
			meta := ""
			if s.kind != "" {
				meta = " meta-info=" + attr(s.kind)
			}
			ups = append(ups, update{s.t, fmt.Sprintf("<pr uId=\"%d\" fId=\"%d\" fbTx=\"%s\"%s />", s.uid, ta, secs(s.t), meta)})
			rep.Packets++
		}
		ups = append(ups, update{rx, fmt.Sprintf("<wpr uId=\"%d\" tId=\"%d\" fbRx=\"%s\" lbRx=\"%s\" />", s.uid, a, secs(rx), secs(rx+air))})
		rep.Receptions++
	}
	for i, id := range ids {
		fmt.Fprintln(bw, colour(from, i, state[id]))
	}
	slices.SortStableFunc(ups, func(a, b update) int { return cmp.Compare(a.t, b.t) })
	for _, u := range ups {
		bw.WriteString(u.line)
		bw.WriteByte('\n')
	}
	fmt.Fprintf(bw, "</anim>\n")
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("writing the NetAnim XML: %w", err)
	}
	return rep, nil
}

// nodeSize is the width and height of a node in NetAnim, in metres: a
// fiftieth of the area (the scenario's, else the nodes' extent), at least
// 1 m, so that nodes show without resizing them in NetAnim.
func nodeSize(area [2]float64, minX, minY, maxX, maxY float64) float64 {
	extent := max(area[0], area[1])
	if extent <= 0 || math.IsNaN(extent) || math.IsInf(extent, 0) {
		extent = max(maxX-minX, maxY-minY)
	}
	if extent <= 0 || math.IsNaN(extent) || math.IsInf(extent, 0) {
		return 1
	}
	return max(1, math.Round(extent/50))
}

// secs formats driver nanoseconds as seconds with nanosecond precision.
func secs(t int64) string { return strconv.FormatFloat(float64(t)/1e9, 'f', 9, 64) }

// num formats a coordinate.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// attr quotes and escapes an XML attribute value.
func attr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	xml.EscapeText(&b, []byte(s))
	b.WriteByte('"')
	return b.String()
}
