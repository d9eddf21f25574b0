package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"manetlab/protocol"
)

// TestRecordingScansAsDisk writes events, ordinary and odd (NaN, invalid
// UTF-8, no "ev", HLC and positions, a line longer than the reader
// takes), to a file and to a Recording, and checks that scanning either
// hands over the same events with the same line numbers and problems.
func TestRecordingScansAsDisk(t *testing.T) {
	defer func(old int) { maxLine = old }(maxLine)
	maxLine = 400
	dir := t.TempDir()
	path := NodeFile(dir, 3)
	nan, one := math.NaN(), 1.5
	evs := []Event{
		{Ev: EvHeader, Schema: Schema, Run: "r", Node: 3, Driver: "sim"},
		{T: 1, Node: 3, Ev: EvStart},
		{T: 2, Node: 3, Ev: EvRecv, From: 4, Kind: "k"},
		{T: 3, Node: 3, Ev: EvSend, Kind: "coord", To: 5, Seq: 9, Bytes: 40, Hops: 1},
		{T: 4, Node: 3, Ev: "leader", Leader: 7, Value: &one, Epoch: "e1"},
		{T: 5, Node: 3, Ev: EvCommand, Text: "bad \xff utf8", Value: &nan},
		{T: 6, Node: 3, Ev: "", Kind: "no ev"},
		{T: 7, Node: 3, Ev: EvSend, HLC: &HLC{Wall: 3, Logical: 2}, Pos: &[3]float64{1, 2, 3}},
		{T: 8, Node: 3, Ev: EvSend, Text: strings.Repeat("x", 500)},
		{T: 9, Node: 3, Ev: "leader", Leader: 8, Wall: 77, Peer: 2, Reason: "r\u2028"},
	}
	keep := func(ev string) bool { return ev != EvRecv }
	rec := NewRecording(dir, keep)
	f := rec.File(path)
	var file []byte
	for i := range evs {
		line := AppendJSON(nil, &evs[i])
		f.Add(&evs[i], line)
		file = append(append(file, line...), '\n')
	}
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	type got struct {
		Line int
		JSON string
	}
	scan := func(src Source, keep func(string) bool) ([]got, []Problem, error) {
		var out []got
		probs, err := src.ScanEvents(path, keep, func(e *Event, line int) error {
			out = append(out, got{line, string(AppendJSON(nil, e))})
			return nil
		})
		return out, probs, err
	}
	for n, k := range []func(string) bool{keep, func(ev string) bool { return ev == EvSend }} {
		de, dp, derr := scan(Disk, k)
		me, mp, merr := scan(rec, k)
		if derr != nil || merr != nil {
			t.Fatalf("disk: %v, memory: %v", derr, merr)
		}
		if !reflect.DeepEqual(de, me) || !reflect.DeepEqual(dp, mp) {
			t.Errorf("disk:\n%v\n%v\nmemory:\n%v\n%v", de, dp, me, mp)
		}
		if n == 0 && (len(de) < 6 || len(dp) < 2) {
			t.Errorf("too little read: %d events, %d problems", len(de), len(dp))
		}
	}
	if _, _, err := scan(rec, nil); err == nil || !strings.Contains(err.Error(), `did not keep "recv"`) {
		t.Errorf("scanning for events the recording dropped: %v", err)
	}
	names, err := rec.Names(dir)
	if err != nil || !reflect.DeepEqual(names, []string{filepath.Base(path)}) {
		t.Errorf("names %v, %v", names, err)
	}
	if size, err := rec.Size(path); err != nil || size != int64(len(file)) {
		t.Errorf("size %d, %v; want %d", size, err, len(file))
	}
	if h, err := ReadHeaderFrom(rec, path); err != nil || h.Run != "r" {
		t.Errorf("header %+v, %v", h, err)
	}
}

// TestRecordingCompactRoundTrip adds many events with every field the
// compact form holds, present or not, extreme values and times going
// back, and checks that a scan hands them back as a scan of the file
// does, across many blocks.
func TestRecordingCompactRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := NodeFile(dir, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	rec := NewRecording(dir, func(ev string) bool { return ev != EvRecv })
	f := rec.File(path)
	var file []byte
	pick := func(v uint64) uint64 {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return v
		case 2:
			return rng.Uint64N(300)
		}
		return rng.Uint64()
	}
	strs := []string{"", "a", "announce", "range", "e.1", "some text"}
	evs := []string{EvSend, EvRecv, "leader", EvStart, EvCommand, "x"}
	for i := 0; i < 30000; i++ {
		e := Event{T: int64(pick(uint64(i))) - int64(rng.IntN(3)*1000), Node: protocol.NodeID(pick(math.MaxUint32)),
			Ev: evs[rng.IntN(len(evs))], Kind: strs[rng.IntN(len(strs))], From: protocol.NodeID(pick(7)),
			To: protocol.NodeID(pick(math.MaxUint32)), Seq: pick(math.MaxUint64), Origin: protocol.NodeID(pick(3)),
			OSeq: pick(math.MaxUint64), Hops: int(int32(pick(math.MaxUint32))), Bytes: -int(int32(pick(5))),
			Reason: strs[rng.IntN(len(strs))], Leader: protocol.NodeID(pick(9)), Epoch: strs[rng.IntN(len(strs))],
			Peer: protocol.NodeID(pick(1)), Text: strs[rng.IntN(len(strs))], Wall: int64(pick(1 << 62))}
		if rng.IntN(2) == 0 {
			v := float64(rng.IntN(1e6)) / 7
			e.Value = &v
		}
		if rng.IntN(4) == 0 {
			e.HLC = &HLC{Wall: int64(pick(1 << 62)), Logical: uint32(pick(math.MaxUint32))}
		}
		if rng.IntN(4) == 0 {
			e.Pos = &[3]float64{rng.Float64() * 1e4, -rng.Float64(), float64(rng.IntN(3))}
		}
		if rng.IntN(4) == 0 {
			e.Schema, e.Seed = int(pick(3)), pick(math.MaxUint64)
			e.Run, e.Driver, e.Protocol = strs[rng.IntN(len(strs))], strs[rng.IntN(len(strs))], strs[rng.IntN(len(strs))]
			e.Scenario, e.Host, e.Src = strs[rng.IntN(len(strs))], strs[rng.IntN(len(strs))], strs[rng.IntN(len(strs))]
		}
		line := AppendJSON(nil, &e)
		f.Add(&e, line)
		file = append(append(file, line...), '\n')
	}
	if len(f.blocks) < 3 {
		t.Fatalf("%d blocks: the test should span several", len(f.blocks))
	}
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	var disk, mem []string
	keep := func(ev string) bool { return ev != EvRecv }
	collect := func(out *[]string) func(e *Event, line int) error {
		return func(e *Event, line int) error {
			*out = append(*out, fmt.Sprintf("%d %s", line, AppendJSON(nil, e)))
			return nil
		}
	}
	if _, err := Disk.ScanEvents(path, keep, collect(&disk)); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.ScanEvents(path, keep, collect(&mem)); err != nil {
		t.Fatal(err)
	}
	if len(disk) < 20000 || !reflect.DeepEqual(disk, mem) {
		t.Fatalf("disk %d events, memory %d, or they differ", len(disk), len(mem))
	}
}
