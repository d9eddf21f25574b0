package wire

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"manetlab/protocol"
)

func TestCodecRoundTrip(t *testing.T) {
	c, err := NewCodec(testSpec)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []protocol.Message{
		samplePing,
		testPing{Leader: 0xffffffff, Seq: 1 << 63, Value: -1e300, Text: "héllo, wörld", Ok: false},
		testList{Items: []uint64{1, 2, 1 << 40}},
		testList{},
		&testPtr{N: -5},
	}
	for i, m := range msgs {
		code, body, err := c.Encode(m)
		if err != nil {
			t.Fatalf("encode %d: %v", i, err)
		}
		if want := map[string]uint16{"ping": 1, "list": 2, "ptr": 3}[m.Kind()]; code != want {
			t.Errorf("%T has code %d, want %d (index plus one)", m, code, want)
		}
		got, err := c.Decode(code, body)
		if err != nil {
			t.Fatalf("decode %d: %v", i, err)
		}
		if reflect.TypeOf(got) != reflect.TypeOf(m) {
			t.Errorf("decoded a %T, sent a %T", got, m)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("decoded %#v, sent %#v", got, m)
		}
	}
	// A comparable value message compares equal with ==, as protocols do.
	_, body, _ := c.Encode(samplePing)
	got, _ := c.Decode(1, body)
	if got != protocol.Message(samplePing) {
		t.Errorf("decoded ping %#v != sent %#v", got, samplePing)
	}
}

type otherMsg struct{}

func (otherMsg) Kind() string { return "other" }

type withAny struct{ X any }

func (withAny) Kind() string { return "any" }

type withNestedAny struct{ M map[string][]any }

func (withNestedAny) Kind() string { return "nested" }

func TestNewCodecRejects(t *testing.T) {
	cases := map[string][]protocol.Message{
		"nil":              {testPing{}, nil},
		"duplicate":        {testPing{}, testList{}, testPing{}},
		"interface field":  {withAny{}},
		"nested interface": {withNestedAny{}},
	}
	for name, msgs := range cases {
		if _, err := NewCodec(protocol.Spec{Name: "test/bad", Messages: msgs}); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.Contains(err.Error(), "test/bad") {
			t.Errorf("%s: error %q does not name the protocol", name, err)
		}
	}
}

func TestCodecErrors(t *testing.T) {
	c, _ := NewCodec(testSpec)
	if _, _, err := c.Encode(otherMsg{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unregistered type: %v", err)
	}
	if _, _, err := c.Encode(testList{Items: make([]uint64, MaxBody)}); !errors.Is(err, ErrLength) {
		t.Errorf("oversized body: %v", err)
	}
	_, body, _ := c.Encode(samplePing)
	for _, code := range []uint16{0, 4, 0xffff} {
		if _, err := c.Decode(code, body); !errors.Is(err, ErrCode) {
			t.Errorf("code %d: %v, want ErrCode", code, err)
		}
	}
	bad := map[string][]byte{
		"empty":            nil,
		"trailing garbage": append(append([]byte(nil), body...), 0xc0),
		"truncated":        body[:len(body)-1],
		"wrong shape":      {0x81, 0xa3, 'S', 'e', 'q', 0xa1, 'x'}, // Seq as a string
		"huge array":       hugeArray,
		"huge map":         {0xdf, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0},
	}
	for name, b := range bad {
		if _, err := c.Decode(1, b); !errors.Is(err, ErrBody) {
			t.Errorf("%s: %v, want ErrBody", name, err)
		}
	}
}

// hugeArray declares 2^32-1 elements in 10 bytes.
var hugeArray = []byte{0xdd, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0}

// hugeField is a testList whose Items declares 2^32-1 elements.
var hugeField = []byte{0x81, 0xa5, 'I', 't', 'e', 'm', 's', 0xdd, 0xff, 0xff, 0xff, 0xff, 1, 2, 3}

func TestHugeDeclaredLengthAllocatesLittle(t *testing.T) {
	c, _ := NewCodec(testSpec)
	for name, b := range map[string][]byte{"array in 10 bytes": hugeArray, "slice field": hugeField} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := 0; i < 100; i++ {
			if _, err := c.Decode(2, b); !errors.Is(err, ErrBody) {
				t.Fatalf("%s: %v, want ErrBody", name, err)
			}
		}
		runtime.ReadMemStats(&after)
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Errorf("%s: 100 decodes allocated %d bytes, want under 1 MiB", name, d)
		}
	}
}
