package wire

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"manetlab/protocol"
)

func TestFrameRoundTrip(t *testing.T) {
	body := mustBody(samplePing)
	for _, key := range [][]byte{nil, testKey} {
		for _, f := range append(sampleFrames(body), airFrames(body)...) {
			t.Run(fmt.Sprintf("%s/signed=%v/air=%v", f.Type, key != nil, f.Air.Airtime != 0), func(t *testing.T) {
				b, err := f.AppendTo(nil, key)
				if err != nil {
					t.Fatal(err)
				}
				if len(b) != f.Size(key != nil) {
					t.Errorf("encoded %d bytes, Size says %d", len(b), f.Size(key != nil))
				}
				var g Frame
				if err := Decode(b, key, &g); err != nil {
					t.Fatalf("decode: %v", err)
				}
				want := f
				want.Signed = key != nil
				if !reflect.DeepEqual(g, want) {
					t.Errorf("decoded\n%+v\nwant\n%+v", g, want)
				}
			})
		}
	}
}

func TestAppendToKeepsPrefix(t *testing.T) {
	f := sampleFrames(mustBody(samplePing))[1]
	prefix := []byte("xyz")
	b, err := f.AppendTo(append([]byte(nil), prefix...), testKey)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, prefix) {
		t.Fatalf("prefix lost: % x", b[:3])
	}
	var g Frame
	if err := Decode(b[3:], testKey, &g); err != nil {
		t.Fatalf("the HMAC must cover the frame only, not what dst held: %v", err)
	}
}

func TestHMAC(t *testing.T) {
	f := sampleFrames(mustBody(samplePing))[2]
	signed, _ := f.AppendTo(nil, testKey)
	plain, _ := f.AppendTo(nil, nil)
	var g Frame

	if err := Decode(signed, []byte("another key"), &g); !errors.Is(err, ErrHMAC) {
		t.Errorf("wrong key: %v, want ErrHMAC", err)
	}
	if err := Decode(plain, testKey, &g); !errors.Is(err, ErrNoHMAC) {
		t.Errorf("unsigned frame in a keyed run: %v, want ErrNoHMAC", err)
	}
	if err := Decode(signed, nil, &g); err != nil || !g.Signed {
		t.Errorf("signed frame without a key: err %v signed %v, want accepted unverified", err, g.Signed)
	}
	// Every byte is covered: flipping any bit anywhere is caught.
	for i := range signed {
		bad := bytes.Clone(signed)
		bad[i] ^= 0x10
		err := Decode(bad, testKey, &g)
		if err == nil {
			t.Fatalf("flipped byte %d accepted", i)
		}
		if i >= 8 && !errors.Is(err, ErrHMAC) {
			t.Errorf("flipped byte %d: %v, want ErrHMAC", i, err)
		}
	}
}

func TestDecodeTruncated(t *testing.T) {
	for _, key := range [][]byte{nil, testKey} {
		for _, f := range append(sampleFrames(mustBody(samplePing)), airFrames(mustBody(samplePing))...) {
			b, _ := f.AppendTo(nil, key)
			for n := 0; n < len(b); n++ {
				var g Frame
				err := Decode(b[:n], key, &g)
				if err == nil {
					t.Fatalf("%s signed=%v: %d of %d bytes accepted", f.Type, key != nil, n, len(b))
				}
				switch Reason(err) {
				case "short", "hmac", "length":
				default:
					t.Errorf("%s: %d of %d bytes: reason %q (%v)", f.Type, n, len(b), Reason(err), err)
				}
			}
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	body := mustBody(samplePing)
	frames := sampleFrames(body)
	uc, _ := frames[2].AppendTo(nil, nil)
	fl, _ := frames[4].AppendTo(nil, nil)
	loc, _ := frames[5].AppendTo(nil, nil)
	data, _ := frames[6].AppendTo(nil, nil)
	rreq, _ := frames[7].AppendTo(nil, nil)
	rrep, _ := frames[8].AppendTo(nil, nil)
	rerr, _ := frames[9].AppendTo(nil, nil)
	airs := airFrames(body)
	airUC, _ := airs[2].AppendTo(nil, nil)
	airHello, _ := airs[0].AppendTo(nil, nil)
	zero := []byte{0, 0, 0, 0}
	edit := func(b []byte, fn func(b []byte)) []byte {
		b = bytes.Clone(b)
		fn(b)
		return b
	}
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"magic", edit(uc, func(b []byte) { b[0] = 'X' }), ErrMagic},
		{"version 0", edit(uc, func(b []byte) { b[4] = 0 }), ErrVersion},
		{"version 2", edit(uc, func(b []byte) { b[4] = 2 }), ErrVersion},
		{"unknown flag", edit(uc, func(b []byte) { b[5] = 0x80 }), ErrFlags},
		{"reserved byte", edit(uc, func(b []byte) { b[7] = 1 }), ErrFlags},
		{"type 0", edit(uc, func(b []byte) { b[6] = 0 }), ErrType},
		{"type 13", edit(uc, func(b []byte) { b[6] = 13 }), ErrType},
		{"rrep-ack flag on a unicast", edit(uc, func(b []byte) { b[5] |= FlagAckRequired }), ErrField},
		{"type 255", edit(uc, func(b []byte) { b[6] = 255 }), ErrType},
		{"trailing byte", append(bytes.Clone(uc), 0), ErrLength},
		{"body length past the end", edit(uc, func(b []byte) { b[HeaderSize+3]++ }), ErrShort},
		{"body length over MaxBody", edit(uc, func(b []byte) { b[HeaderSize+2], b[HeaderSize+3] = 0xff, 0xff }), ErrLength},
		{"unicast to node 0", edit(uc, func(b []byte) { copy(b[20:24], []byte{0, 0, 0, 0}) }), ErrField},
		{"from node 0", edit(uc, func(b []byte) { copy(b[16:20], []byte{0, 0, 0, 0}) }), ErrField},
		{"flood hops over limit", edit(fl, func(b []byte) { b[HeaderSize+12] = 17 }), ErrField},
		{"flood origin 0", edit(fl, func(b []byte) { copy(b[HeaderSize:], []byte{0, 0, 0, 0}) }), ErrField},
		{"location NaN", edit(loc, func(b []byte) {
			copy(b[HeaderSize+4:], []byte{0x7f, 0xf8, 0, 0, 0, 0, 0, 1})
		}), ErrField},
		{"oversized datagram", make([]byte, MaxFrame+1), ErrLength},

		{"data to node 0", edit(data, func(b []byte) { copy(b[20:24], zero) }), ErrField},
		{"data origin 0", edit(data, func(b []byte) { copy(b[HeaderSize:], zero) }), ErrField},
		{"data hops over limit", edit(data, func(b []byte) { b[HeaderSize+12] = 33 }), ErrField},
		{"data for node 0", edit(data, func(b []byte) { copy(b[HeaderSize+14:], zero) }), ErrField},
		{"data body past the end", edit(data, func(b []byte) { b[HeaderSize+floodSize+3]++ }), ErrShort},
		{"data without its body", data[:HeaderSize+floodSize], ErrShort},
		{"data trailing byte", append(bytes.Clone(data), 0), ErrLength},

		{"rreq to a node", edit(rreq, func(b []byte) { b[23] = 9 }), ErrField},
		{"rreq origin 0", edit(rreq, func(b []byte) { copy(b[HeaderSize:], zero) }), ErrField},
		{"rreq for node 0", edit(rreq, func(b []byte) { copy(b[HeaderSize+16:], zero) }), ErrField},
		{"rreq TTL 0", edit(rreq, func(b []byte) { b[HeaderSize+25] = 0 }), ErrField},
		{"rreq short", rreq[:len(rreq)-1], ErrShort},
		{"rreq trailing byte", append(bytes.Clone(rreq), 0), ErrLength},

		{"rrep to node 0", edit(rrep, func(b []byte) { copy(b[20:24], zero) }), ErrField},
		{"rrep origin 0", edit(rrep, func(b []byte) { copy(b[HeaderSize:], zero) }), ErrField},
		{"rrep for node 0", edit(rrep, func(b []byte) { copy(b[HeaderSize+4:], zero) }), ErrField},
		{"rrep short", rrep[:len(rrep)-1], ErrShort},
		{"rrep trailing byte", append(bytes.Clone(rrep), 0), ErrLength},

		{"rerr to a node", edit(rerr, func(b []byte) { b[23] = 9 }), ErrField},
		{"rerr of no destination", rerr[: HeaderSize+1 : HeaderSize+1], ErrShort},
		{"rerr count 0", append(bytes.Clone(rerr[:HeaderSize]), 0), ErrField},
		{"rerr count over the bound", edit(rerr, func(b []byte) { b[HeaderSize] = MaxUnreachable + 1 }), ErrField},
		{"rerr count 255", edit(rerr, func(b []byte) { b[HeaderSize] = 255 }), ErrField},
		{"rerr count past the end", edit(rerr, func(b []byte) { b[HeaderSize] = 3 }), ErrShort},
		{"rerr count short of the entries", edit(rerr, func(b []byte) { b[HeaderSize] = 1 }), ErrLength},
		{"rerr lists node 0", edit(rerr, func(b []byte) { copy(b[HeaderSize+1+8:], zero) }), ErrField},
		{"rerr half an entry", rerr[:len(rerr)-4], ErrShort},

		{"air flag without the section", edit(uc, func(b []byte) { b[5] |= FlagAir }), ErrShort},
		{"air section without the flag", edit(airUC, func(b []byte) { b[5] &^= FlagAir }), ErrLength},
		{"air section short", airUC[:len(airUC)-1], ErrShort},
		{"air trailing byte", append(bytes.Clone(airUC), 0), ErrLength},
		{"airtime 0", edit(airUC, func(b []byte) { copy(b[len(b)-4:], zero) }), ErrField},
		{"air start negative", edit(airHello, func(b []byte) { b[HeaderSize] = 0x80 }), ErrField},
		{"air on a location", append(edit(loc, func(b []byte) { b[5] |= FlagAir }), airUC[len(airUC)-AirSize:]...), ErrField},
	}
	for _, c := range cases {
		var g Frame
		err := Decode(c.b, nil, &g)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestAppendToRejects(t *testing.T) {
	body := mustBody(samplePing)
	good := sampleFrames(body)
	cases := map[string]func(f *Frame){
		"reserved type":   func(f *Frame) { f.Type = 12 },
		"unicast to None": func(f *Frame) { f.Type, f.To = TypeUnicast, 0 },
		"body too long":   func(f *Frame) { f.Type, f.Body = TypeBroadcast, make([]byte, MaxBody+1) },
		"location Inf":    func(f *Frame) { f.Type, f.Loc.Y = TypeLocation, math.Inf(1) },
		"hops over limit": func(f *Frame) { *f = good[4]; f.Hops = f.HopLimit + 1 },
		"hello from None": func(f *Frame) { f.Type, f.From = TypeHello, 0 },
		"air negative":    func(f *Frame) { f.Type, f.Air = TypeHello, Air{Start: 5, Airtime: -1} },
		"air too long":    func(f *Frame) { f.Type, f.Air = TypeHello, Air{Start: 5, Airtime: MaxAirtime + 1} },
		"air before 0":    func(f *Frame) { f.Type, f.Air = TypeHello, Air{Start: -1, Airtime: 1} },
		"air start only":  func(f *Frame) { f.Type, f.Air = TypeHello, Air{Start: 5} },
		"air on location": func(f *Frame) { *f = good[5]; f.Air = Air{Airtime: 1} },

		"data to None":             func(f *Frame) { *f = good[6]; f.To = 0 },
		"data hops over limit":     func(f *Frame) { *f = good[6]; f.Hops = f.HopLimit + 1 },
		"data from origin None":    func(f *Frame) { *f = good[6]; f.Origin = 0 },
		"data for None":            func(f *Frame) { *f = good[6]; f.Final = 0 },
		"data body too long":       func(f *Frame) { *f = good[6]; f.Body = make([]byte, MaxBody+1) },
		"rreq TTL 0":               func(f *Frame) { *f = good[7]; f.TTL = 0 },
		"rreq to a node":           func(f *Frame) { *f = good[7]; f.To = 9 },
		"rreq from origin None":    func(f *Frame) { *f = good[7]; f.Origin = 0 },
		"rreq for None":            func(f *Frame) { *f = good[7]; f.Final = 0 },
		"rrep to None":             func(f *Frame) { *f = good[8]; f.To = 0 },
		"rrep for origin None":     func(f *Frame) { *f = good[8]; f.Origin = 0 },
		"rrep for None":            func(f *Frame) { *f = good[8]; f.Final = 0 },
		"rerr to a node":           func(f *Frame) { *f = good[9]; f.To = 9 },
		"rerr of nothing":          func(f *Frame) { *f = good[9]; f.Unreachable = nil },
		"rerr over MaxUnreachable": func(f *Frame) { *f = good[9]; f.Unreachable = unreachable(MaxUnreachable + 1) },
		"rerr listing None":        func(f *Frame) { *f = good[9]; f.Unreachable = []Unreachable{{Dest: 4}, {Dest: 0}} },
	}
	for name, fn := range cases {
		f := good[0]
		fn(&f)
		dst := []byte{1, 2}
		out, err := f.AppendTo(dst, nil)
		if err == nil {
			t.Errorf("%s: encoded", name)
		}
		if len(out) != 2 {
			t.Errorf("%s: dst grew to %d bytes on error", name, len(out))
		}
	}
	// The largest frame still decodes.
	f := good[4]
	f.Body = make([]byte, MaxBody)
	f.Air = Air{Start: 1, Airtime: MaxAirtime}
	b, err := f.AppendTo(nil, testKey)
	if err != nil || len(b) != MaxFrame {
		t.Fatalf("max frame: %d bytes, err %v; want %d", len(b), err, MaxFrame)
	}
	var g Frame
	if err := Decode(b, testKey, &g); err != nil {
		t.Fatalf("max frame: %v", err)
	}
}

func unreachable(n int) []Unreachable {
	u := make([]Unreachable, n)
	for i := range u {
		u[i] = Unreachable{Dest: protocol.NodeID(1000 + i), Seq: uint32(i)}
	}
	return u
}

// TestMaxFrameCoversEveryType checks that the largest frame of every type,
// signed, is at most MaxFrame and decodes.
func TestMaxFrameCoversEveryType(t *testing.T) {
	for _, f := range append(sampleFrames(nil), airFrames(nil)...) {
		if f.Type.HasBody() {
			f.Body = make([]byte, MaxBody)
		}
		if f.Type == TypeRERR {
			f.Unreachable = unreachable(MaxUnreachable)
		}
		b, err := f.AppendTo(nil, testKey)
		if err != nil {
			t.Fatalf("%s: %v", f.Type, err)
		}
		if len(b) > MaxFrame || len(b) != f.Size(true) {
			t.Errorf("%s: largest frame %d bytes, Size %d, MaxFrame %d", f.Type, len(b), f.Size(true), MaxFrame)
		}
		var g Frame
		if err := Decode(b, testKey, &g); err != nil {
			t.Errorf("%s: largest frame: %v", f.Type, err)
		}
	}
	for typ := Type(0); typ < 255; typ++ {
		if typ.Valid() != (typ >= TypeHello && typ <= TypeRREPAck) {
			t.Errorf("type %d: valid %v", typ, typ.Valid())
		}
	}
}

func TestLifetimeMillis(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want uint32
	}{
		{0, 0},
		{-time.Second, 0},
		{999 * time.Microsecond, 0},
		{time.Millisecond, 1},
		{6*time.Second - 1, 5_999},
		{6 * time.Second, 6_000},
		{math.MaxUint32 * time.Millisecond, math.MaxUint32},
		{math.MaxInt64, math.MaxUint32},
	}
	for _, c := range cases {
		if got := LifetimeMillis(c.d); got != c.want {
			t.Errorf("LifetimeMillis(%v) = %d, want %d", c.d, got, c.want)
		}
	}
	f := Frame{LifetimeMS: 5_999}
	if f.Lifetime() != 5999*time.Millisecond {
		t.Errorf("Lifetime %v", f.Lifetime())
	}
}

func TestReason(t *testing.T) {
	if Reason(nil) != "" || Reason(errors.New("x")) != "other" {
		t.Errorf("nil or foreign error mislabelled")
	}
	wrapped := fmt.Errorf("node 3: %w", fmt.Errorf("%w: detail", ErrMagic))
	if got := Reason(wrapped); got != "magic" {
		t.Errorf("Reason(wrapped ErrMagic) = %q", got)
	}
	seen := map[string]bool{}
	for _, e := range reasons {
		r := Reason(e)
		if r == "" || r == "other" || seen[r] {
			t.Errorf("reason %q is empty or duplicated", r)
		}
		seen[r] = true
	}
}

func TestRunID(t *testing.T) {
	if got := RunID(""); got != 0xcbf29ce484222325 {
		t.Errorf("RunID(\"\") = %#x, want the FNV-64a offset basis", got)
	}
	if got := RunID("a"); got != 0xaf63dc4c8601ec8c {
		t.Errorf("RunID(\"a\") = %#x, want FNV-64a", got)
	}
	if RunID("run-1") == RunID("run-2") {
		t.Errorf("distinct runs share an ID")
	}
}

func TestEncodeAndHeaderDecodeDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	body := mustBody(samplePing)
	f := sampleFrames(body)[4]
	buf := make([]byte, 0, MaxFrame)
	var g Frame
	for _, key := range [][]byte{nil, testKey} {
		b, _ := f.AppendTo(buf[:0], key)
		enc := testing.AllocsPerRun(100, func() { f.AppendTo(buf[:0], key) })
		dec := testing.AllocsPerRun(100, func() { Decode(b, key, &g) })
		if enc != 0 || dec != 0 {
			t.Errorf("signed=%v: encode %v allocs, decode %v allocs; want 0", key != nil, enc, dec)
		}
	}
}

// TestSizes pins the sizes docs/wire.md lists.
func TestSizes(t *testing.T) {
	want := map[Type][2]int{TypeHello: {44, 76}, TypeAck: {52, 84}, TypeLocation: {80, 112}, TypeBroadcast: {48, 80}, TypeUnicast: {48, 80}, TypeFlood: {66, 98},
		TypeData: {66, 98}, TypeRREQ: {70, 102}, TypeRREP: {61, 93}, TypeAODVHello: {61, 93}, TypeRERR: {45, 77},
		TypeRREPAck: {44, 76}}
	for typ, w := range want {
		f := Frame{Type: typ}
		if got := [2]int{f.Size(false), f.Size(true)}; got != w {
			t.Errorf("%s: sizes %v, docs say %v", typ, got, w)
		}
	}
	rerr := Frame{Type: TypeRERR, Unreachable: make([]Unreachable, MaxUnreachable)}
	if got := [2]int{rerr.Size(false), rerr.Size(true)}; got != [2]int{557, 589} {
		t.Errorf("rerr of %d destinations: sizes %v, docs say [557 589]", MaxUnreachable, got)
	}
	air := Frame{Type: TypeHello, Air: Air{Airtime: 1}}
	if got := [2]int{air.Size(false), air.Size(true)}; got != [2]int{56, 88} {
		t.Errorf("hello with an air section: sizes %v, docs say [56 88]", got)
	}
	if MaxFrame != 1310 {
		t.Errorf("MaxFrame %d, docs say 1310", MaxFrame)
	}
}
