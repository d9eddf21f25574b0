package wire

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

func TestCheckMsgpackAcceptsWhatMsgpackWrites(t *testing.T) {
	values := []any{
		nil, true, false, 0, 127, -1, -32, -33, 255, 1 << 16, 1 << 40, -1 << 40, uint64(1<<64 - 1),
		float32(1.5), 2.5, "", "short", strings.Repeat("s", 40), strings.Repeat("s", 300), strings.Repeat("s", 70000),
		[]byte{}, []byte{1, 2, 3}, make([]byte, 300), make([]byte, 70000),
		[]int{}, []int{1, 2, 3}, make([]int, 20), make([]int, 70000),
		map[string]int{"a": 1}, samplePing, testList{Items: []uint64{1, 1 << 50}},
		msgpack.RawMessage{0xd4, 1, 2}, // fixext1
	}
	for _, v := range values {
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckMsgpack(b); err != nil {
			t.Errorf("%T %.40v: %v", v, v, err)
		}
	}
	// Every extension width.
	for _, b := range [][]byte{
		{0xd5, 1, 0, 0}, {0xd6, 1, 0, 0, 0, 0}, {0xd7, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		append([]byte{0xd8, 1}, make([]byte, 16)...),
		{0xc7, 2, 1, 0, 0}, {0xc8, 0, 2, 1, 0, 0}, {0xc9, 0, 0, 0, 2, 1, 0, 0},
	} {
		if err := CheckMsgpack(b); err != nil {
			t.Errorf("% x: %v", b, err)
		}
	}
}

// randomValue builds a nested value from r, at most depth containers deep.
func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(8)
	if depth <= 1 && k >= 5 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return r.Int64() >> r.IntN(64)
	case 1:
		return r.Float64()
	case 2:
		return strings.Repeat("x", r.IntN(40))
	case 3:
		return r.IntN(2) == 0
	case 4:
		return make([]byte, r.IntN(300))
	case 5, 6:
		a := make([]any, r.IntN(5))
		for i := range a {
			a[i] = randomValue(r, depth-1)
		}
		return a
	}
	m := map[string]any{}
	for i := r.IntN(5); i > 0; i-- {
		m[strings.Repeat("k", i)] = randomValue(r, depth-1)
	}
	return m
}

func TestCheckMsgpackRandomValues(t *testing.T) {
	const seed = 1
	r := rand.New(rand.NewPCG(seed, 0))
	for i := 0; i < 2000; i++ {
		v := randomValue(r, MaxDepth)
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckMsgpack(b); err != nil {
			t.Fatalf("seed %d value %d: valid msgpack rejected: %v", seed, i, err)
		}
		if len(b) > 1 {
			if err := CheckMsgpack(b[:len(b)-1]); err == nil {
				t.Fatalf("seed %d value %d: truncated msgpack accepted", seed, i)
			}
		}
	}
}

func nested(n int) []byte {
	b := make([]byte, 0, n+1)
	for i := 0; i < n; i++ {
		b = append(b, 0x91) // array of one element
	}
	return append(b, 0xc0)
}

func TestCheckMsgpackRejects(t *testing.T) {
	if err := CheckMsgpack(nested(MaxDepth)); err != nil {
		t.Errorf("%d nested arrays: %v", MaxDepth, err)
	}
	cases := map[string][]byte{
		"empty":                          {},
		"reserved 0xc1":                  {0xc1},
		"trailing garbage":               {0xc0, 0xc0},
		"too deep":                       nested(MaxDepth + 1),
		"array32 of 2^32-1":              hugeArray,
		"array16 past the end":           {0xdc, 0x00, 0x03, 1, 2},
		"fixarray past the end":          {0x93, 1, 2},
		"map32 huge":                     {0xdf, 0xff, 0xff, 0xff, 0xff, 1, 1},
		"map16 needs two bytes per pair": {0xde, 0x00, 0x02, 1, 1, 1},
		"fixmap short":                   {0x81, 1},
		"str32 huge":                     {0xdb, 0xff, 0xff, 0xff, 0xff, 'a'},
		"str8 short":                     {0xd9, 5, 'a'},
		"fixstr short":                   {0xa3, 'a'},
		"bin32 huge":                     {0xc6, 0x7f, 0xff, 0xff, 0xff},
		"bin16 short":                    {0xc5, 0x01},
		"ext32 huge":                     {0xc9, 0xff, 0xff, 0xff, 0xff, 1},
		"ext8 without type":              {0xc7, 0},
		"fixext16 short":                 {0xd8, 1, 0},
		"float64 short":                  {0xcb, 0, 0},
		"uint64 short":                   {0xcf, 0},
		"array32 header short":           {0xdd, 0xff},
	}
	for name, b := range cases {
		err := CheckMsgpack(b)
		if !errors.Is(err, ErrBody) {
			t.Errorf("%s (% x): %v, want ErrBody", name, b, err)
		}
	}
}

func TestCheckMsgpackDoesNotAllocateOnSuccess(t *testing.T) {
	b := mustBody(samplePing)
	if n := testing.AllocsPerRun(100, func() { CheckMsgpack(b) }); n != 0 {
		t.Errorf("%v allocs per check, want 0", n)
	}
}
