package trace

import (
	"encoding/json"
	"manetlab/protocol"
	"math"
	"math/rand"
	"reflect"
	"testing"
)

// checkDecode asserts that decodeFast, when it decodes a line, gives what
// json.Unmarshal gives.
func checkDecode(t *testing.T, line []byte) bool {
	t.Helper()
	var fast, slow Event
	ok := decodeFast(line, &fast)
	err := json.Unmarshal(line, &slow)
	if ok && (err != nil || !reflect.DeepEqual(fast, slow)) {
		t.Fatalf("%s\nfast %+v\njson %+v (%v)", line, fast, slow, err)
	}
	return ok
}

func randomEvent(rng *rand.Rand) Event {
	strs := []string{"", "recv", "announce", "a b", "é", "<x>", "q\"uote", "back\\slash", "\x01", "\u2028", "nbr-up"}
	pick := func() string {
		if rng.Intn(8) > 0 {
			return strs[rng.Intn(3)] // plain, mostly
		}
		return strs[rng.Intn(len(strs))]
	}
	num := func() int64 {
		switch rng.Intn(4) {
		case 0:
			return 0
		case 1:
			return rng.Int63n(1000)
		case 2:
			return -rng.Int63()
		}
		return rng.Int63()
	}
	e := Event{T: num(), Wall: num() * int64(rng.Intn(2)), Node: NodeIDOf(rng), Ev: pick(), Kind: pick(),
		From: NodeIDOf(rng), To: NodeIDOf(rng), Seq: uint64(num()), Origin: NodeIDOf(rng), OSeq: rng.Uint64(),
		Hops: int(num()), Bytes: int(num()), Reason: pick(), Leader: NodeIDOf(rng), Epoch: pick(), Peer: NodeIDOf(rng),
		Text: pick(), Schema: int(num() % 3), Run: pick(), Driver: pick(), Protocol: pick(), Scenario: pick(),
		Seed: rng.Uint64(), Host: pick(), ScenarioHash: pick(), Src: pick()}
	if rng.Intn(2) == 0 {
		e.HLC = &HLC{Wall: num(), Logical: rng.Uint32()}
	}
	floats := []float64{0, -0.0, 1, 1.5, -31.551, 1e21, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64}
	if rng.Intn(2) == 0 {
		v := floats[rng.Intn(len(floats))]
		e.Value = &v
	}
	if rng.Intn(3) == 0 {
		e.Pos = &[3]float64{floats[rng.Intn(len(floats))], floats[rng.Intn(len(floats))], -floats[rng.Intn(len(floats))]}
	}
	return e
}

func NodeIDOf(rng *rand.Rand) (id protocol.NodeID) {
	if rng.Intn(3) == 0 {
		return 0
	}
	return protocol.NodeID(rng.Uint32())
}

// The fast decoder gives json.Unmarshal's result on every line AppendJSON
// writes, and on those lines damaged: it either decodes a line as json
// does or leaves it to json.
func TestDecodeFastMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	fast := 0
	for range 20000 {
		e := randomEvent(rng)
		line := AppendJSON(nil, &e)
		if checkDecode(t, line) {
			fast++
		}
		for range 3 {
			b := append([]byte(nil), line...)
			switch i := rng.Intn(len(b)); rng.Intn(4) {
			case 0:
				b = append(b[:i], b[i+1:]...)
			case 1:
				b[i] = "{}[],:\"0123456789-.eE \\xa"[rng.Intn(25)]
			case 2:
				b = append(b[:i], append([]byte(`,"seq":1`), b[i:]...)...)
			default:
				b = append(b[:i], append([]byte(`"`), b[i:]...)...)
			}
			checkDecode(t, b)
		}
	}
	if fast < 1000 {
		t.Errorf("only %d of 20000 plain lines decoded fast", fast)
	}
	for _, l := range []string{`{"t":1}`, `{"t":-0,"node":0,"ev":""}`, `{"t":1,"node":4294967296,"ev":"x"}`, `{"t":01,"node":1,"ev":"x"}`,
		`{"t":1,"node":1,"ev":"x","value":1e999}`, `{"t":1,"node":1,"ev":"x"} `, `{"t":1,"node":1,"node":2,"ev":"x"}`,
		`{"t":1,"ev":"x","node":1}`, `{"t":1.5,"node":1,"ev":"x"}`, `{"t":1,"hlc":{"w":1,"l":-1},"node":1,"ev":"x"}`,
		`{"t":1,"node":1,"ev":"x","pos":[1,2]}`, `{"t":1,"node":1,"ev":"x","value":null}`, `{"t":1,"node":1,"ev":"x","Kind":"k"}`,
		// Integers at the lengths where the decoder's own digits give way
		// to strconv's.
		`{"t":999999999999999999,"node":999999999,"ev":"x"}`, `{"t":-999999999999999999,"node":4294967295,"ev":"x"}`,
		`{"t":9223372036854775807,"node":1,"ev":"x","seq":999999999999999999}`, `{"t":-9223372036854775808,"node":1,"ev":"x","seq":18446744073709551615}`,
		`{"t":9223372036854775808,"node":1,"ev":"x"}`, `{"t":1,"node":1,"ev":"x","seq":18446744073709551616}`,
		`{"t":1,"node":1,"ev":"x","hops":-0,"bytes":-12}`, `{"t":1,"node":1,"ev":"x","hlc":{"w":1,"l":4294967296}}`} {
		checkDecode(t, []byte(l))
	}
}
