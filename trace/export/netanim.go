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
//
// The events come one at a time from the merge. NetAnim reads updates in
// time order, which the causal order need not be, so what is held until
// the end is one compact update per colour change, transmission and
// reception written (and per node its run file's position events).
func NetAnim(dirs []string, w io.Writer, opt Options) (*Report, error) {
	rep := &Report{}
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

	// One pass over the merged events: the nodes, the end, the position
	// events, and the colour and packet updates by manetlab ID.
	var (
		header    trace.Event
		end       int64
		seen      = map[protocol.NodeID]bool{}
		posEvents = map[protocol.NodeID][]posEvent{}
		state     = map[protocol.NodeID][3]uint8{} // the colours at the window's start
		evUps     []update
		kinds     = map[string]string{}
		written   []bool // by uId: the transmission is written
	)
	type sendInfo struct {
		t     int64
		node  protocol.NodeID
		bytes int
		kind  string
		uid   int // the packet's uId, one per transmission
	}
	m := newMatcher[sendInfo]()
	sends := 0
	sel := func(id protocol.NodeID) bool { return id != protocol.None && f.node(id) }
	err := each(dirs, opt, rep, func(h *trace.Event) { header = *h }, func(e *trace.Event, runFile bool) {
		end = max(end, e.T)
		if e.Node != protocol.None {
			seen[e.Node] = true
		}
		if runFile {
			if e.Ev == trace.EvPosition && e.Pos != nil {
				posEvents[e.Node] = append(posEvents[e.Node], posEvent{e.T, *e.Pos})
			}
			return // crash and recover are in the node files too
		}
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
		if changed && sel(e.Node) {
			if e.T < f.from {
				state[e.Node] = c
			} else if f.time(e.T) {
				evUps = append(evUps, update{t: e.T, what: upColour, node: e.Node, rgb: c})
			}
		}
		if isSend(e) {
			sends++
			k, ok := kinds[e.Kind]
			if !ok {
				k = strings.Clone(e.Kind)
				kinds[k] = k
			}
			m.send(e, sendInfo{e.T, e.Node, e.Bytes, k, sends})
			return
		}
		if e.Ev != trace.EvRecv {
			return
		}
		s, ok := m.recv(e)
		if !ok || !sel(s.node) || !sel(e.Node) || !f.time(s.t) || !f.time(e.T) {
			return
		}
		rep.Edges++
		air := int64(max(s.bytes, 1)) * int64(Airtime)
		rx := e.T
		if rx <= s.t {
			rep.ClockRepaired++
			rx = s.t + 1000
		}
		if len(written) <= s.uid {
			written = append(written, make([]bool, s.uid+1-len(written))...)
		}
		if !written[s.uid] {
			// The transmission, once, before its first reception.
			written[s.uid] = true
			evUps = append(evUps, update{t: s.t, what: upTx, uid: s.uid, node: s.node, kind: s.kind})
			rep.Packets++
		}
		evUps = append(evUps, update{t: rx, what: upRx, uid: s.uid, node: e.Node, t2: rx + air})
		rep.Receptions++
	})
	if err != nil {
		return nil, err
	}

	// The nodes: the scenario's members, else the nodes in the traces.
	var (
		model mobility.Model
		area  [2]float64                  // the scenario's mobility.area, when known
		index = map[protocol.NodeID]int{} // member ID -> mobility index
		ids   []protocol.NodeID
	)
	if header.Scenario != "" {
		sc, err := scenario.Parse([]byte(header.Scenario), "run header", nil)
		if err == nil {
			area = sc.Mobility.Area
			model, err = sc.MobilityModel()
		}
		if err != nil {
			problem("%s: the scenario in the header: %v (positions only from position events)", header.Src, err)
		} else {
			for _, m := range sc.Members() {
				index[m.ID] = m.Index
				ids = append(ids, m.ID)
				delete(seen, m.ID)
			}
		}
	}
	ids = append(ids, sortedIDs(seen)...)
	slices.Sort(ids)
	ids = slices.DeleteFunc(ids, func(id protocol.NodeID) bool { return !f.node(id) })
	anim := map[protocol.NodeID]int{}
	for i, id := range ids {
		anim[id] = i
	}
	rep.Hosts = len(ids)

	from := f.from
	to := end
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
	position := func(id protocol.NodeID, t int64) (geo.Vec, bool) {
		if i, ok := index[id]; ok && model != nil {
			return model.Position(i, time.Duration(t)), true
		}
		pe := posEvents[id]
		k, _ := slices.BinarySearchFunc(pe, t+1, func(e posEvent, t int64) int { return cmp.Compare(e.t, t) })
		if k == 0 && len(pe) > 0 {
			k = 1 // before the first position event: that one
		}
		if k > 0 {
			return pe[k-1].vec(), true
		}
		return geo.Vec{}, false
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "<anim ver=%q filetype=\"animation\" >\n", NetAnimVersion)
	fmt.Fprintf(bw, "<info info=%s />\n", attr("manetlab run "+header.Run+" ("+header.Protocol+")"))
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

	// Updates in time order: positions sampled every Step (before the
	// events' updates of the same time), colours at role changes,
	// packets at their transmission.
	var ups []update
	last := slices.Clone(start)
	moveTo := func(t int64, i int, p geo.Vec) {
		if p.Sub(last[i]).Len() < 1e-3 {
			return
		}
		last[i] = p
		ups = append(ups, update{t: t, what: upPos, node: ids[i], x: p.X, y: p.Y})
	}
	// Position events where they were recorded, and samples every Step
	// (from the model, else the latest position event), in time order.
	next := make([]int, len(ids))
	for i, id := range ids {
		next[i], _ = slices.BinarySearchFunc(posEvents[id], from+1, func(e posEvent, t int64) int { return cmp.Compare(e.t, t) })
	}
	for t := from + int64(opt.Step); ; t += int64(opt.Step) {
		t = min(t, to)
		for i, id := range ids {
			for pe := posEvents[id]; next[i] < len(pe) && pe[next[i]].t < t; next[i]++ {
				moveTo(pe[next[i]].t, i, pe[next[i]].vec())
			}
			if p, ok := position(id, t); ok {
				moveTo(t, i, p)
			}
		}
		if t >= to {
			break
		}
	}
	for i, id := range ids {
		c, ok := state[id]
		if !ok {
			c = colourNone
		}
		bw.WriteString(colour(from, i, c))
		bw.WriteByte('\n')
	}
	ups = append(ups, evUps...)
	evUps = nil
	slices.SortStableFunc(ups, func(a, b update) int { return cmp.Compare(a.t, b.t) })
	for _, u := range ups {
		bw.WriteString(u.line(anim[u.node]))
		bw.WriteByte('\n')
	}
	fmt.Fprintf(bw, "</anim>\n")
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("writing the NetAnim XML: %w", err)
	}
	return rep, nil
}

// posEvent is a position event of the run file.
type posEvent struct {
	t   int64
	pos [3]float64
}

func (p posEvent) vec() geo.Vec { return geo.Vec{X: p.pos[0], Y: p.pos[1], Z: p.pos[2]} }

// update is one NetAnim element after the topology, held until all are
// known and sorted by time.
type update struct {
	t, t2 int64 // t2: a reception's last bit
	x, y  float64
	kind  string // a transmission's message kind
	uid   int
	node  protocol.NodeID // the node it is about (the sender of a transmission)
	what  uint8
	rgb   [3]uint8
}

// The kinds of update.
const (
	upPos = iota
	upColour
	upTx
	upRx
)

// line writes u for the node of NetAnim id a.
func (u *update) line(a int) string {
	switch u.what {
	case upPos:
		return fmt.Sprintf("<nu p=\"p\" t=\"%s\" id=\"%d\" x=\"%s\" y=\"%s\" />", secs(u.t), a, num(u.x), num(u.y))
	case upColour:
		return colour(u.t, a, u.rgb)
	case upTx:
		meta := ""
		if u.kind != "" {
			meta = " meta-info=" + attr(u.kind)
		}
		return fmt.Sprintf("<pr uId=\"%d\" fId=\"%d\" fbTx=\"%s\"%s />", u.uid, a, secs(u.t), meta)
	}
	return fmt.Sprintf("<wpr uId=\"%d\" tId=\"%d\" fbRx=\"%s\" lbRx=\"%s\" />", u.uid, a, secs(u.t), secs(u.t2))
}

// colour is a node's colour update.
func colour(t int64, i int, c [3]uint8) string {
	return fmt.Sprintf("<nu p=\"c\" t=\"%s\" id=\"%d\" r=\"%d\" g=\"%d\" b=\"%d\" />", secs(t), i, c[0], c[1], c[2])
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
