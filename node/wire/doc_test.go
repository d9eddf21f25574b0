package wire

import (
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

var updateDoc = flag.Bool("update-doc", false, "rewrite the generated example in docs/wire.md")

const (
	docPath  = "../../docs/wire.md"
	docBegin = "<!-- BEGIN GENERATED EXAMPLE: go test ./node/wire -run TestDocExample -update-doc -->\n"
	docEnd   = "<!-- END GENERATED EXAMPLE -->\n"
)

// docElection is the message of the documented example.
type docElection struct {
	Candidate protocol.NodeID
	Value     float64
}

func (docElection) Kind() string { return "election" }

// annotator writes an annotated hex dump: offset, bytes, field.
type annotator struct {
	b   []byte
	off int
	sb  strings.Builder
}

func (a *annotator) field(n int, format string, args ...any) {
	for first := true; first || n > 0; first = false {
		k := min(n, 8)
		label := ""
		if first {
			label = fmt.Sprintf(format, args...)
		}
		line := fmt.Sprintf("%04x  %-24s  %s", a.off, spaced(a.b[a.off:a.off+k]), label)
		a.sb.WriteString(strings.TrimRight(line, " ") + "\n")
		a.off += k
		n -= k
	}
}

func spaced(b []byte) string {
	h := hex.EncodeToString(b)
	var parts []string
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, " ")
}

func (a *annotator) header(f *Frame, signed bool) {
	a.field(4, "magic %q", Magic)
	a.field(1, "version %d", Version)
	var fl []string
	if signed {
		fl = append(fl, "HMAC")
	}
	if f.Air.Airtime != 0 {
		fl = append(fl, "air")
	}
	flags := "none"
	if len(fl) > 0 {
		flags = strings.Join(fl, ", ")
	}
	a.field(1, "flags: %s", flags)
	a.field(1, "type %d (%s)", f.Type, f.Type)
	a.field(1, "reserved, 0")
	a.field(8, "run id %#016x = RunID(%q)", f.Run, "demo")
	a.field(4, "from node %d", f.From)
	a.field(4, "to node %d%s", f.To, map[bool]string{true: " (broadcast)"}[f.To == 0])
	a.field(8, "sequence %d", f.Seq)
	a.field(8, "HLC wall %d ns", f.Clock.Wall)
	a.field(4, "HLC logical %d", f.Clock.Logical)
}

func (a *annotator) body(f *Frame) {
	a.field(2, "message code %d", f.Code)
	a.field(2, "body length %d", len(f.Body))
	// The body of docElection, field by field, as msgpack writes it.
	a.field(1, "  msgpack fixmap, 2 entries")
	a.field(10, "  fixstr %q", "Candidate")
	a.field(5, "  uint32 %d", binary.BigEndian.Uint32(a.b[a.off+1:]))
	a.field(6, "  fixstr %q", "Value")
	a.field(9, "  float64 %v", docMsg.Value)
}

var docMsg = docElection{Candidate: 7, Value: 0.75}

// docExample builds the documented frames and their annotated dumps.
func docExample(t *testing.T) string {
	c, err := NewCodec(protocol.Spec{Name: "doc/example", Messages: []protocol.Message{docElection{}}})
	if err != nil {
		t.Fatal(err)
	}
	code, body, err := c.Encode(docMsg)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("demo key")
	base := Frame{Run: RunID("demo"), From: 3, Seq: 42, Clock: HLC{Wall: 1_750_000_000_000_000_000, Logical: 1}}

	var out strings.Builder
	uc := base
	uc.Type, uc.To, uc.Code, uc.Body = TypeUnicast, 7, code, body
	b, err := uc.AppendTo(nil, key)
	if err != nil {
		t.Fatal(err)
	}
	var back Frame
	if err := Decode(b, key, &back); err != nil {
		t.Fatal(err)
	}
	a := &annotator{b: b}
	a.header(&uc, true)
	a.body(&uc)
	a.field(HMACSize, "HMAC-SHA256(key %q, bytes 0000-%04x)", key, len(b)-HMACSize-1)
	fmt.Fprintf(&out, "A unicast frame from node 3 to node 7 carrying the message `election{Candidate: %d, Value: %v}` (code %d), signed with the key %q; %d bytes:\n\n```\n%s```\n\n",
		docMsg.Candidate, docMsg.Value, code, key, len(b), a.sb.String())

	fl := base
	fl.Type, fl.From, fl.Seq, fl.Origin, fl.OriginSeq, fl.Hops, fl.HopLimit, fl.Final, fl.Code, fl.Body = TypeFlood, 5, 9, 3, 12, 1, 8, 0, code, body
	b, err = fl.AppendTo(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a = &annotator{b: b}
	a.header(&fl, false)
	a.field(4, "origin node %d", fl.Origin)
	a.field(8, "origin sequence %d", fl.OriginSeq)
	a.field(1, "hops so far %d", fl.Hops)
	a.field(1, "hop limit %d", fl.HopLimit)
	a.field(4, "final destination %d (every node)", fl.Final)
	a.body(&fl)
	fmt.Fprintf(&out, "The same message flooded: node 5 relays, one hop from the origin 3, the flood's 12th message; unsigned, %d bytes:\n\n```\n%s```\n\n", len(b), a.sb.String())

	loc := base
	loc.Type, loc.From, loc.To, loc.Loc = TypeLocation, 0, 0, Location{Node: 4, X: 120.5, Y: -30.25, Z: 1.5, Time: 1_750_000_000_500_000_000}
	b, err = loc.AppendTo(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a = &annotator{b: b}
	a.header(&loc, false)
	a.field(4, "node %d", loc.Loc.Node)
	a.field(8, "x %v m", loc.Loc.X)
	a.field(8, "y %v m", loc.Loc.Y)
	a.field(8, "z %v m", loc.Loc.Z)
	a.field(8, "time %d ns", loc.Loc.Time)
	fmt.Fprintf(&out, "A location frame from the mobility player (sender 0): node 4 is at (120.5, -30.25, 1.5); %d bytes:\n\n```\n%s```\n\n", len(b), a.sb.String())

	// AODV: node 3 looks for a route to node 7, node 5 relays the request,
	// node 7 replies through 5, and node 5 later loses the route.
	rq := base
	rq.Type, rq.From, rq.Seq, rq.Origin, rq.OriginSeq, rq.OrigSeq, rq.Final, rq.DestSeq, rq.Hops, rq.TTL = TypeRREQ, 5, 10, 3, 2, 6, 7, 0, 1, 2
	b = encodeDoc(t, &rq)
	a = &annotator{b: b}
	a.header(&rq, false)
	a.field(4, "origin node %d", rq.Origin)
	a.field(8, "RREQ ID %d", rq.OriginSeq)
	a.field(4, "origin sequence number %d", rq.OrigSeq)
	a.field(4, "destination node %d", rq.Final)
	a.field(4, "destination sequence number %d (unknown)", rq.DestSeq)
	a.field(1, "hop count %d", rq.Hops)
	a.field(1, "TTL %d", rq.TTL)
	fmt.Fprintf(&out, "A route request (AODV): node 5 relays node 3's second request for a route to node 7, one hop from 3, with a TTL of 2 left; %d bytes:\n\n```\n%s```\n\n", len(b), a.sb.String())

	rp := base
	rp.Type, rp.From, rp.To, rp.Seq, rp.Origin, rp.Final, rp.DestSeq, rp.LifetimeMS, rp.Hops = TypeRREP, 7, 5, 20, 3, 7, 1, LifetimeMillis(6*time.Second), 0
	b = encodeDoc(t, &rp)
	a = &annotator{b: b}
	a.header(&rp, false)
	a.field(4, "origin node %d (the requester)", rp.Origin)
	a.field(4, "destination node %d", rp.Final)
	a.field(4, "destination sequence number %d", rp.DestSeq)
	a.field(4, "lifetime %d ms", rp.LifetimeMS)
	a.field(1, "hop count %d", rp.Hops)
	fmt.Fprintf(&out, "Node 7's route reply, to node 5 on the way back to node 3; %d bytes:\n\n```\n%s```\n\n", len(b), a.sb.String())

	da := base
	da.Type, da.From, da.To, da.Seq, da.Origin, da.OriginSeq, da.Hops, da.HopLimit, da.Final, da.Code, da.Body = TypeData, 5, 7, 11, 3, 12, 1, 32, 7, code, body
	b = encodeDoc(t, &da)
	a = &annotator{b: b}
	a.header(&da, false)
	a.field(4, "origin node %d", da.Origin)
	a.field(8, "origin sequence %d", da.OriginSeq)
	a.field(1, "hops so far %d", da.Hops)
	a.field(1, "hop limit %d", da.HopLimit)
	a.field(4, "final destination %d", da.Final)
	a.body(&da)
	fmt.Fprintf(&out, "The election message on the route found: node 5 forwards node 3's 12th message to node 7, its next hop and destination; %d bytes:\n\n```\n%s```\n\n", len(b), a.sb.String())

	re := base
	re.Type, re.From, re.Seq, re.Unreachable = TypeRERR, 5, 30, []Unreachable{{Dest: 7, Seq: 2}, {Dest: 9, Seq: 4}}
	b = encodeDoc(t, &re)
	a = &annotator{b: b}
	a.header(&re, false)
	a.field(1, "count %d", len(re.Unreachable))
	for _, u := range re.Unreachable {
		a.field(4, "unreachable node %d", u.Dest)
		a.field(4, "  its destination sequence number %d", u.Seq)
	}
	fmt.Fprintf(&out, "Node 5 lost its link to node 7: a route error for the destinations it reached through 7; %d bytes:\n\n```\n%s```\n\n", len(b), a.sb.String())

	bc := base
	bc.Type, bc.From, bc.Seq, bc.Code, bc.Body = TypeBroadcast, 4, 3, code, body
	bc.Air = Air{Start: 1_000_123_456, Airtime: 1_112_000}
	b = encodeDoc(t, &bc)
	a = &annotator{b: b}
	a.header(&bc, false)
	a.body(&bc)
	a.field(8, "air start %d ns since the run's start (%v)", bc.Air.Start.Nanoseconds(), bc.Air.Start)
	a.field(4, "airtime %d ns (%v)", bc.Air.Airtime.Nanoseconds(), bc.Air.Airtime)
	fmt.Fprintf(&out, "The election message broadcast by node 4 on the DCF medium (`radio.mac: dcf`): the air section says it went on the air %v after the run's start, for %v (802.11b at 1 Mbps: 192 µs of preamble, then the frame's 79 bytes and the 36 that 802.11 adds); unsigned, %d bytes:\n\n```\n%s```\n", bc.Air.Start, bc.Air.Airtime, len(b), a.sb.String())
	return out.String()
}

// encodeDoc encodes f unsigned and checks that it decodes back.
func encodeDoc(t *testing.T, f *Frame) []byte {
	t.Helper()
	b, err := f.AppendTo(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var back Frame
	if err := Decode(b, nil, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, f) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", back, *f)
	}
	return b
}

func TestDocExample(t *testing.T) {
	want := docExample(t)
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, docBegin), strings.Index(doc, docEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated-example markers", docPath)
	}
	got := doc[i+len(docBegin) : j]
	if got == want {
		return
	}
	if *updateDoc {
		doc = doc[:i+len(docBegin)] + want + doc[j:]
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the example is not what the encoder writes; run go test ./node/wire -run TestDocExample -update-doc\ngot:\n%s\nwant:\n%s", docPath, got, want)
}

// TestDocSections checks the fixed-size section tables of docs/wire.md
// against the encoder: each starts after the header, its rows are
// contiguous, and the bytes they add up to are the section's size.
func TestDocSections(t *testing.T) {
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]Frame{
		"Ack":      {Type: TypeAck},
		"Flood":    {Type: TypeFlood},
		"Data":     {Type: TypeData},
		"Rreq":     {Type: TypeRREQ},
		"Rrep":     {Type: TypeRREP},
		"Location": {Type: TypeLocation},
	}
	seen := map[string]bool{}
	var name string
	var declared, next int
	end := func() {
		if name == "" {
			return
		}
		f := sections[name]
		want := f.Size(false) - HeaderSize
		if f.Type.HasBody() {
			want -= dataSize
		}
		if declared != want || next != HeaderSize+want {
			t.Errorf("%s section: the doc says %d bytes, its rows end at %d; the encoder writes %d", name, declared, next, want)
		}
		seen[name] = true
		name = ""
	}
	for _, line := range strings.Split(string(raw), "\n") {
		var n int
		var title string
		if strings.HasPrefix(line, "#") {
			end()
			if _, err := fmt.Sscanf(line, "### %s section (%d bytes)", &title, &n); err == nil {
				if _, ok := sections[title]; ok {
					name, declared, next = title, n, HeaderSize
				}
			}
			continue
		}
		if name == "" {
			continue
		}
		var off, size int
		if _, err := fmt.Sscanf(line, "| %d | %d |", &off, &size); err != nil {
			continue
		}
		if off != next {
			t.Errorf("%s section: a row at offset %d, the previous one ends at %d", name, off, next)
		}
		next = off + size
	}
	end()
	checkAirTable(t, string(raw))
	for s := range sections {
		if !seen[s] {
			t.Errorf("docs/wire.md has no %q section table", s)
		}
	}
}

// checkAirTable checks the air section's table, whose offsets count from
// the section's start: contiguous rows adding up to AirSize.
func checkAirTable(t *testing.T, doc string) {
	t.Helper()
	in, seen, next := false, false, 0
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "#") {
			var n int
			in = false
			if _, err := fmt.Sscanf(line, "### Air section (%d bytes", &n); err == nil {
				if n != AirSize {
					t.Errorf("air section: the doc says %d bytes, the encoder writes %d", n, AirSize)
				}
				in, seen = true, true
			}
			continue
		}
		var off, size int
		if !in {
			continue
		}
		if _, err := fmt.Sscanf(line, "| +%d | %d |", &off, &size); err != nil {
			continue
		}
		if off != next {
			t.Errorf("air section: a row at +%d, the previous one ends at +%d", off, next)
		}
		next = off + size
	}
	if !seen || next != AirSize {
		t.Errorf("docs/wire.md: air section table seen %v, its rows end at +%d, want +%d", seen, next, AirSize)
	}
}
