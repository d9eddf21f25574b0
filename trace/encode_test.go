package trace

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"manetlab/protocol"
)

// pieces are the string fragments random strings are built from: every
// class of byte the escaper treats differently.
var pieces = []string{
	"a", "leader", " ", "\"", "\\", "/", "<", ">", "&", "\b", "\f", "\n", "\r", "\t",
	"\x00", "\x01", "\x1f", "\x7f", "é", "日本", "😀", "\u2028", "\u2029", "\ufffd",
	"\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "'", "}", "{\"ev\":1}",
}

func randString(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return ""
	}
	var b strings.Builder
	for n := r.IntN(8); n >= 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randFloat draws finite floats of every magnitude, including the
// boundaries where encoding/json switches to exponent notation.
func randFloat(r *rand.Rand) float64 {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789e13,
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-9, 100, 12.5}
	switch r.IntN(4) {
	case 0:
		return special[r.IntN(len(special))]
	case 1:
		return (r.Float64() - 0.5) * 2000
	}
	for {
		f := math.Float64frombits(r.Uint64())
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}

func randInt(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return int64(r.Uint64())
	}
	return r.Int64N(1000) - 100
}

func randID(r *rand.Rand) protocol.NodeID {
	if r.IntN(2) == 0 {
		return 0
	}
	return protocol.NodeID(r.Uint32())
}

func randEvent(r *rand.Rand) *Event {
	e := &Event{
		T: randInt(r), Wall: randInt(r), Node: randID(r), Ev: randString(r),
		Kind: randString(r), From: randID(r), To: randID(r), Seq: uint64(randInt(r)),
		Origin: randID(r), OSeq: uint64(randInt(r)), Hops: int(randInt(r)), Bytes: int(randInt(r)),
		Reason: randString(r), Leader: randID(r), Epoch: randString(r), Peer: randID(r),
		Text: randString(r), Schema: int(randInt(r)), Run: randString(r), Driver: randString(r),
		Protocol: randString(r), Scenario: randString(r), Seed: uint64(randInt(r)),
		Host: randString(r), ScenarioHash: randString(r), Src: randString(r),
	}
	if r.IntN(2) == 0 {
		e.HLC = &HLC{Wall: randInt(r), Logical: r.Uint32() >> r.IntN(32)}
	}
	if r.IntN(2) == 0 {
		v := randFloat(r)
		e.Value = &v
	}
	if r.IntN(2) == 0 {
		e.Pos = &[3]float64{randFloat(r), randFloat(r), randFloat(r)}
	}
	return e
}

// validStrings reports whether every string of e is valid UTF-8: only
// then does a decoded event equal the original (invalid bytes become
// U+FFFD, as with json.Marshal).
func validStrings(e *Event) bool {
	for _, s := range []string{e.Ev, e.Kind, e.Reason, e.Epoch, e.Text, e.Run, e.Driver, e.Protocol, e.Scenario, e.Host, e.ScenarioHash, e.Src} {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func checkSame(t *testing.T, e *Event) {
	t.Helper()
	want, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("json.Marshal(%+v): %v", e, err)
	}
	got := AppendJSON(nil, e)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON differs from json.Marshal for %#v\n got: %s\nwant: %s", e, got, want)
	}
	var back Event
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("decoding %s: %v", got, err)
	}
	if validStrings(e) && !reflect.DeepEqual(&back, e) {
		t.Fatalf("round trip changed the event\n got: %#v\nwant: %#v", &back, e)
	}
}

func TestAppendJSONMatchesMarshalRandom(t *testing.T) {
	const seed = 20240611
	r := rand.New(rand.NewPCG(seed, 1))
	valid := 0
	for i := 0; i < 10000; i++ {
		e := randEvent(r)
		if validStrings(e) {
			valid++
		}
		checkSame(t, e)
	}
	// The round-trip half of the check is only meaningful if many events
	// had valid strings.
	if valid < 100 {
		t.Fatalf("only %d events with valid UTF-8 (seed %d): generator too skewed", valid, seed)
	}
}

func TestAppendJSONEdgeCases(t *testing.T) {
	zero, negZero, tiny, huge := 0.0, math.Copysign(0, -1), 1e-7, 1e21
	all := ""
	for b := 0; b < 256; b++ {
		all += string([]byte{byte(b)})
	}
	cases := []*Event{
		{},
		{Ev: EvHeader, Schema: Schema, Run: "r1", Driver: "sim", Protocol: "floodmax", Scenario: "name: q\nnodes:\n  count: 3\n", Seed: 7},
		{T: math.MaxInt64, Wall: math.MinInt64, Node: math.MaxUint32, Ev: EvSend, Seq: math.MaxUint64, OSeq: math.MaxUint64, Seed: math.MaxUint64},
		{T: -1, Hops: -5, Bytes: math.MinInt64, Schema: -1},
		{HLC: &HLC{}, Value: &zero, Pos: &[3]float64{}},
		{Value: &negZero, Pos: &[3]float64{tiny, huge, -tiny}},
		{Text: all},
		{Text: "\u2028\u2029 <script>&amp;</script> \"quoted\" back\\slash"},
		{Text: "\xed\xa0\x80\xed\xb0\x80 surrogates, \xf4\x90\x80\x80 beyond U+10FFFF, \xc0\xaf overlong"},
		{Text: "truncated \xe6\x97"},
		{Epoch: "\x00\x7f", Reason: "range", Kind: "ack"},
	}
	for _, e := range cases {
		checkSame(t, e)
	}
}

// TestAppendJSONNonFinite checks the one documented difference: NaN and
// infinities, which json.Marshal refuses, become null and still decode.
func TestAppendJSONNonFinite(t *testing.T) {
	nan := math.NaN()
	e := &Event{Ev: EvPosition, Value: &nan, Pos: &[3]float64{math.Inf(1), 2, math.Inf(-1)}}
	if _, err := json.Marshal(e); err == nil {
		t.Fatal("json.Marshal accepted NaN; the documented difference is stale")
	}
	got := AppendJSON(nil, e)
	var back Event
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("decoding %s: %v", got, err)
	}
	if back.Value != nil || back.Pos == nil || *back.Pos != [3]float64{0, 2, 0} {
		t.Fatalf("decoded %s as value %v pos %v", got, back.Value, back.Pos)
	}
}

func TestAppendJSONAppends(t *testing.T) {
	prefix := []byte("keep:")
	e := &Event{T: 5, Node: 2, Ev: EvRecv, From: 1, Seq: 9}
	got := AppendJSON(prefix, e)
	want := `keep:{"t":5,"node":2,"ev":"recv","from":1,"seq":9}`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = AppendJSON(buf[:0], e) }); n != 0 {
		t.Fatalf("AppendJSON into a large enough buffer allocates %v times", n)
	}
}

// benchEvents is a mix like a simulator's output: mostly message events,
// some notes and positions.
func benchEvents() []Event {
	v := 42.5
	return []Event{
		{T: 1234567890, Node: 17, Ev: EvSend, Kind: "election", Seq: 991, Bytes: 24},
		{T: 1234568890, Node: 18, Ev: EvRecv, Kind: "election", From: 17, Seq: 991, Bytes: 24},
		{T: 1234569890, Node: 19, Ev: EvDrop, Kind: "election", From: 17, Seq: 991, Reason: "range"},
		{T: 2234567890, Node: 18, Ev: "leader", Leader: 17, Value: &v, Epoch: "17:3"},
		{T: 3000000000, Node: 17, Ev: EvPosition, Pos: &[3]float64{123.456, 789.012, 0}},
		{T: 3000000001, Wall: 1718000000123456789, HLC: &HLC{Wall: 1718000000123456789, Logical: 3}, Node: 5,
			Ev: EvRecv, Kind: "ack", From: 4, Seq: 12, Origin: 2, OSeq: 77, Hops: 3, Bytes: 8},
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	evs := benchEvents()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = AppendJSON(buf[:0], &evs[i%len(evs)])
	}
}

func BenchmarkJSONMarshal(b *testing.B) {
	evs := benchEvents()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := json.Marshal(&evs[i%len(evs)]); err != nil {
			b.Fatal(err)
		}
	}
}
