package wire

import (
	"bytes"
	"flag"
	"reflect"
	"testing"

	"manetlab/internal/fuzzseed"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the seed corpora under testdata/fuzz")

// frameSeeds are the frames FuzzDecodeFrame starts from: every type signed
// and not, and the malformed shapes receivers must survive.
func frameSeeds() map[string][]byte {
	seeds := map[string][]byte{}
	for _, key := range [][]byte{nil, testKey} {
		for _, f := range sampleFrames(mustBody(samplePing)) {
			b, err := f.AppendTo(nil, key)
			if err != nil {
				panic(err)
			}
			name := f.Type.String()
			if key != nil {
				name += "-signed"
			}
			seeds[name] = b
			seeds[name+"-truncated"] = b[:len(b)/2]
		}
		for _, f := range airFrames(mustBody(samplePing)) {
			b, err := f.AppendTo(nil, key)
			if err != nil {
				panic(err)
			}
			name := f.Type.String() + "-air"
			if key != nil {
				name += "-signed"
			}
			seeds[name] = b
		}
	}
	uc := seeds["unicast"]
	seeds["wrong-magic"] = append([]byte("MNEX"), uc[4:]...)
	seeds["version-2"] = append(append([]byte("MNET"), 2), uc[5:]...)
	seeds["type-11"] = append(append([]byte(nil), uc[:6]...), append([]byte{11}, uc[7:]...)...)
	// A unicast's bytes retyped as routed data: the body's first bytes
	// become the data section.
	seeds["unicast-as-data"] = append(append([]byte(nil), uc[:6]...), append([]byte{byte(TypeData)}, uc[7:]...)...)
	rerr := bytes.Clone(seeds["rerr"])
	rerr[HeaderSize] = 255
	seeds["rerr-count-255"] = rerr
	rerr = bytes.Clone(seeds["rerr"])
	rerr[HeaderSize] = MaxUnreachable
	seeds["rerr-count-past-end"] = rerr
	rreq := bytes.Clone(seeds["rreq"])
	rreq[len(rreq)-1] = 0
	seeds["rreq-ttl-0"] = rreq
	seeds["trailing"] = append(bytes.Clone(uc), 0)
	bad := bytes.Clone(uc)
	bad[HeaderSize+2], bad[HeaderSize+3] = 0xff, 0xff
	seeds["body-length-huge"] = bad
	air := bytes.Clone(seeds["broadcast-air"])
	air[len(air)-1], air[len(air)-2], air[len(air)-3], air[len(air)-4] = 0, 0, 0, 0
	seeds["air-airtime-0"] = air
	seeds["air-flag-no-section"] = append(append([]byte(nil), uc[:5]...), append([]byte{FlagAir}, uc[6:]...)...)
	seeds["empty"] = nil
	seeds["header-only"] = uc[:HeaderSize]
	return seeds
}

// bodySeeds are the codes and bodies FuzzDecodeBody starts from.
func bodySeeds() map[string]struct {
	code uint16
	body []byte
} {
	type seed = struct {
		code uint16
		body []byte
	}
	return map[string]seed{
		"ping":                {1, mustBody(samplePing)},
		"list":                {2, mustBody(testList{Items: []uint64{1, 2, 3}})},
		"ptr":                 {3, mustBody(&testPtr{N: 4})},
		"huge-array-10-bytes": {2, hugeArray},
		"huge-slice-field":    {2, hugeField},
		"huge-map":            {1, []byte{0xdf, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0}},
		"huge-str":            {1, []byte{0x81, 0xa4, 'T', 'e', 'x', 't', 0xdb, 0xff, 0xff, 0xff, 0xff}},
		"huge-bin":            {2, []byte{0x81, 0xa5, 'I', 't', 'e', 'm', 's', 0xc6, 0xff, 0xff, 0xff, 0xff}},
		"deep":                {1, nested(40)},
		"trailing":            {1, append(mustBody(samplePing), 0xc0)},
		"unknown-code":        {99, mustBody(samplePing)},
		"empty":               {1, nil},
	}
}

// TestWriteSeedCorpus rewrites the committed corpora with -write-corpus.
func TestWriteSeedCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-corpus to rewrite testdata/fuzz")
	}
	write := func(fuzzer, name string, args ...any) {
		if err := fuzzseed.Write(fuzzer, name, args...); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range frameSeeds() {
		write("FuzzDecodeFrame", name, b)
	}
	for name, s := range bodySeeds() {
		write("FuzzDecodeBody", name, s.code, s.body)
	}
}

func FuzzDecodeFrame(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, key := range [][]byte{nil, testKey} {
			var fr Frame
			err := Decode(b, key, &fr)
			if err != nil {
				if r := Reason(err); r == "other" || r == "" {
					t.Fatalf("error without a reason: %v", err)
				}
				continue
			}
			// The format is canonical: what decodes re-encodes to the same
			// bytes. A signed frame read without a key keeps its trailer,
			// which only the key could recompute.
			out, err := fr.AppendTo(nil, key)
			if err != nil {
				t.Fatalf("decoded frame does not encode: %v\n%+v", err, fr)
			}
			if fr.Signed && key == nil {
				out[5] |= FlagHMAC
				out = append(out, b[len(b)-HMACSize:]...)
			}
			if !bytes.Equal(out, b) {
				t.Fatalf("re-encoded\n% x\nfrom\n% x", out, b)
			}
		}
	})
}

func FuzzDecodeBody(f *testing.F) {
	c, err := NewCodec(testSpec)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code uint16, body []byte) {
		m, err := c.Decode(code, body)
		if err != nil {
			if Reason(err) == "other" {
				t.Fatalf("error without a reason: %v", err)
			}
			return
		}
		// What decodes survives a round trip through the codec.
		code2, body2, err := c.Encode(m)
		if err != nil {
			t.Fatalf("decoded %#v does not encode: %v", m, err)
		}
		if code2 != code {
			t.Fatalf("decoded %T under code %d, encodes as %d", m, code, code2)
		}
		m2, err := c.Decode(code2, body2)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !reflect.DeepEqual(m, m2) && !hasNaN(m) {
			t.Fatalf("round trip changed %#v into %#v", m, m2)
		}
	})
}

// hasNaN reports a message DeepEqual cannot compare with itself.
func hasNaN(m any) bool {
	p, ok := m.(testPing)
	return ok && p.Value != p.Value
}
