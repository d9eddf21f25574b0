package trace

import (
	"encoding/json"
	"strconv"

	"manetlab/protocol"
)

// Decode decodes one line of a trace into e (zero) as the readers do:
// encoding/json's result, without its reflection for the lines AppendJSON
// writes.
func Decode(line []byte, e *Event) error {
	if decodeFast(line, e) {
		return nil
	}
	*e = Event{}
	return json.Unmarshal(line, e)
}

// decodeFast decodes a line written exactly as AppendJSON writes it
// (keys in its order, no spaces, integers where it writes integers,
// strings of printable ASCII without escapes) into e, which must be zero,
// and reports whether it did. Any other line is left to encoding/json
// (the reader falls back), so the result is always json.Unmarshal's: this
// only spares the reflection on the millions of plain lines of a large
// run.
func decodeFast(line []byte, e *Event) bool {
	d := fastDecoder{b: line}
	if !d.lit(`{"t":`) {
		return false
	}
	var ok bool
	if e.T, ok = d.int(); !ok {
		return false
	}
	next := 0
	for {
		if d.i == len(d.b)-1 && d.b[d.i] == '}' {
			return true
		}
		if !d.lit(`,"`) {
			return false
		}
		j := d.i
		for j < len(d.b) && d.b[j] != '"' {
			j++
		}
		if j+1 >= len(d.b) || d.b[j+1] != ':' {
			return false
		}
		k := fieldIndex(d.b[d.i:j])
		if k < next {
			return false // unknown, repeated or out of order
		}
		next = k + 1
		d.i = j + 2
		if !d.field(k, e) {
			return false
		}
	}
}

// The fields after "t", in AppendJSON's order.
const (
	fWall = iota
	fHLC
	fNode
	fEv
	fKind
	fFrom
	fTo
	fSeq
	fOrigin
	fOSeq
	fHops
	fBytes
	fReason
	fLeader
	fValue
	fEpoch
	fPeer
	fText
	fPos
	fSchema
	fRun
	fDriver
	fProtocol
	fScenario
	fSeed
	fHost
	fScenarioHash
	fSrc
)

func fieldIndex(key []byte) int {
	switch string(key) {
	case "wall":
		return fWall
	case "hlc":
		return fHLC
	case "node":
		return fNode
	case "ev":
		return fEv
	case "kind":
		return fKind
	case "from":
		return fFrom
	case "to":
		return fTo
	case "seq":
		return fSeq
	case "origin":
		return fOrigin
	case "oseq":
		return fOSeq
	case "hops":
		return fHops
	case "bytes":
		return fBytes
	case "reason":
		return fReason
	case "leader":
		return fLeader
	case "value":
		return fValue
	case "epoch":
		return fEpoch
	case "peer":
		return fPeer
	case "text":
		return fText
	case "pos":
		return fPos
	case "schema":
		return fSchema
	case "run":
		return fRun
	case "driver":
		return fDriver
	case "protocol":
		return fProtocol
	case "scenario":
		return fScenario
	case "seed":
		return fSeed
	case "host":
		return fHost
	case "scenario_hash":
		return fScenarioHash
	case "src":
		return fSrc
	}
	return -1
}

// field decodes the value of field k into e.
func (d *fastDecoder) field(k int, e *Event) bool {
	ok := true
	switch k {
	case fWall:
		e.Wall, ok = d.int()
	case fHLC:
		if !d.lit(`{"w":`) {
			return false
		}
		var h HLC
		if h.Wall, ok = d.int(); !ok || !d.lit(`,"l":`) {
			return false
		}
		var l uint64
		if l, ok = d.uint(32); !ok || !d.lit(`}`) {
			return false
		}
		h.Logical = uint32(l)
		e.HLC = &h
	case fNode, fFrom, fTo, fOrigin, fLeader, fPeer:
		var v uint64
		v, ok = d.uint(32)
		id := protocol.NodeID(v)
		switch k {
		case fNode:
			e.Node = id
		case fFrom:
			e.From = id
		case fTo:
			e.To = id
		case fOrigin:
			e.Origin = id
		case fLeader:
			e.Leader = id
		case fPeer:
			e.Peer = id
		}
	case fSeq:
		e.Seq, ok = d.uint(64)
	case fOSeq:
		e.OSeq, ok = d.uint(64)
	case fSeed:
		e.Seed, ok = d.uint(64)
	case fHops, fBytes, fSchema:
		var v int64
		v, ok = d.int()
		switch k {
		case fHops:
			e.Hops = int(v)
		case fBytes:
			e.Bytes = int(v)
		case fSchema:
			e.Schema = int(v)
		}
	case fValue:
		var v float64
		if v, ok = d.float(); ok {
			e.Value = &v
		}
	case fPos:
		var p [3]float64
		if !d.lit(`[`) {
			return false
		}
		for c := range 3 {
			if c > 0 && !d.lit(`,`) {
				return false
			}
			if p[c], ok = d.float(); !ok {
				return false
			}
		}
		if !d.lit(`]`) {
			return false
		}
		e.Pos = &p
	default:
		var s string
		if s, ok = d.str(); !ok {
			return false
		}
		switch k {
		case fEv:
			e.Ev = s
		case fKind:
			e.Kind = s
		case fReason:
			e.Reason = s
		case fEpoch:
			e.Epoch = s
		case fText:
			e.Text = s
		case fRun:
			e.Run = s
		case fDriver:
			e.Driver = s
		case fProtocol:
			e.Protocol = s
		case fScenario:
			e.Scenario = s
		case fHost:
			e.Host = s
		case fScenarioHash:
			e.ScenarioHash = s
		case fSrc:
			e.Src = s
		}
	}
	return ok
}

// fastDecoder reads a line from position i.
type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) lit(s string) bool {
	if len(d.b)-d.i < len(s) || string(d.b[d.i:d.i+len(s)]) != s {
		return false
	}
	d.i += len(s)
	return true
}

// digits returns the end of a JSON integer's digits at i (no leading
// zero but for 0 itself), or -1.
func (d *fastDecoder) digits(i int) int {
	j := i
	for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
		j++
	}
	if j == i || d.b[i] == '0' && j > i+1 {
		return -1
	}
	return j
}

// int reads an integer as encoding/json decodes it into an int64: a
// fraction or exponent is left to it.
func (d *fastDecoder) int() (int64, bool) {
	i := d.i
	if i < len(d.b) && d.b[i] == '-' {
		i++
	}
	j := d.digits(i)
	if j < 0 || j < len(d.b) && (d.b[j] == '.' || d.b[j] == 'e' || d.b[j] == 'E') {
		return 0, false
	}
	if j-i <= 18 { // cannot overflow: no strconv
		v := int64(small(d.b[i:j]))
		if i > d.i {
			v = -v
		}
		d.i = j
		return v, true
	}
	v, err := strconv.ParseInt(string(d.b[d.i:j]), 10, 64)
	if err != nil {
		return 0, false
	}
	d.i = j
	return v, true
}

// small is the value of at most 18 decimal digits.
func small(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v*10 + uint64(c-'0')
	}
	return v
}

// uint reads an unsigned integer of the given bits.
func (d *fastDecoder) uint(bits int) (uint64, bool) {
	j := d.digits(d.i)
	if j < 0 || j < len(d.b) && (d.b[j] == '.' || d.b[j] == 'e' || d.b[j] == 'E') {
		return 0, false
	}
	if j-d.i <= 9 || bits == 64 && j-d.i <= 18 { // fits in bits
		v := small(d.b[d.i:j])
		d.i = j
		return v, true
	}
	v, err := strconv.ParseUint(string(d.b[d.i:j]), 10, bits)
	if err != nil {
		return 0, false
	}
	d.i = j
	return v, true
}

// float reads a JSON number as encoding/json decodes it into a float64.
func (d *fastDecoder) float() (float64, bool) {
	i := d.i
	if i < len(d.b) && d.b[i] == '-' {
		i++
	}
	j := d.digits(i)
	if j < 0 {
		return 0, false
	}
	if j < len(d.b) && d.b[j] == '.' {
		k := j + 1
		for k < len(d.b) && d.b[k] >= '0' && d.b[k] <= '9' {
			k++
		}
		if k == j+1 {
			return 0, false
		}
		j = k
	}
	if j < len(d.b) && (d.b[j] == 'e' || d.b[j] == 'E') {
		k := j + 1
		if k < len(d.b) && (d.b[k] == '+' || d.b[k] == '-') {
			k++
		}
		m := k
		for m < len(d.b) && d.b[m] >= '0' && d.b[m] <= '9' {
			m++
		}
		if m == k {
			return 0, false
		}
		j = m
	}
	v, err := strconv.ParseFloat(string(d.b[d.i:j]), 64)
	if err != nil {
		return 0, false
	}
	d.i = j
	return v, true
}

// str reads a string of printable ASCII without escapes.
func (d *fastDecoder) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	j := d.i + 1
	for j < len(d.b) && d.b[j] != '"' {
		if c := d.b[j]; c < 0x20 || c >= 0x7f || c == '\\' {
			return "", false
		}
		j++
	}
	if j >= len(d.b) {
		return "", false
	}
	s := internEv(d.b[d.i+1 : j])
	d.i = j + 1
	return s, true
}

// internEv returns the common short strings of a trace without
// allocating them.
func internEv(b []byte) string {
	switch string(b) {
	case EvSend:
		return EvSend
	case EvRecv:
		return EvRecv
	case EvDrop:
		return EvDrop
	case EvNbrUp:
		return EvNbrUp
	case EvNbrDown:
		return EvNbrDown
	case "leader":
		return "leader"
	case "announce":
		return "announce"
	case "hello":
		return "hello"
	case "":
		return ""
	}
	return string(b)
}
