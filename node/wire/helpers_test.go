package wire

import (
	"time"

	"manetlab/protocol"
)

// testPing is the sample message: one field of every scalar kind messages
// use.
type testPing struct {
	Leader protocol.NodeID
	Seq    uint64
	Value  float64
	Text   string
	Ok     bool
}

func (testPing) Kind() string { return "ping" }

// testList has a slice field: the shape msgpack over-allocates for.
type testList struct {
	Items []uint64
}

func (testList) Kind() string { return "list" }

// testPtr is registered as a pointer, to check Decode returns the same.
type testPtr struct{ N int32 }

func (*testPtr) Kind() string { return "ptr" }

// testSpec is a local spec: tests never register in the shared registry.
var testSpec = protocol.Spec{
	Name:     "test/wire-codec",
	Messages: []protocol.Message{testPing{}, testList{}, &testPtr{}},
}

var testKey = []byte("manetlab test key: 32 bytes long")

// samplePing is the sample message; with msgpack's default (wide) integers
// it encodes to 51 bytes.
var samplePing = testPing{Leader: 7, Seq: 42, Value: 0.5, Text: "", Ok: true}

// sampleFrames is one valid frame of every type.
func sampleFrames(body []byte) []Frame {
	base := Frame{Run: RunID("test-run"), From: 3, Seq: 17, Clock: HLC{Wall: 1_700_000_000_123_456_789, Logical: 2}}
	hello := base
	hello.Type = TypeHello
	bc := base
	bc.Type, bc.Code, bc.Body = TypeBroadcast, 1, body
	uc := base
	uc.Type, uc.To, uc.Code, uc.Body = TypeUnicast, 9, 1, body
	ack := base
	ack.Type, ack.To, ack.AckSeq = TypeAck, 9, 16
	fl := base
	fl.Type, fl.Origin, fl.OriginSeq, fl.Hops, fl.HopLimit, fl.Final, fl.Code, fl.Body = TypeFlood, 5, 100, 2, 16, 11, 1, body
	loc := base
	loc.Type, loc.From, loc.Loc = TypeLocation, 0, Location{Node: 4, X: 120.5, Y: -3.25, Z: 1.5, Time: 1_700_000_000_000_000_000}
	data := base
	data.Type, data.To, data.Origin, data.OriginSeq, data.Hops, data.HopLimit, data.Final, data.Code, data.Body = TypeData, 9, 5, 101, 2, 32, 11, 1, body
	rreq := base
	rreq.Type, rreq.Origin, rreq.OriginSeq, rreq.OrigSeq, rreq.Final, rreq.DestSeq, rreq.Hops, rreq.TTL = TypeRREQ, 5, 7, 12, 11, 4, 2, 3
	rrep := base
	rrep.Type, rrep.To, rrep.Origin, rrep.Final, rrep.DestSeq, rrep.Hops, rrep.LifetimeMS = TypeRREP, 9, 5, 11, 5, 1, 5_999
	rerr := base
	rerr.Type, rerr.Unreachable = TypeRERR, []Unreachable{{Dest: 11, Seq: 6}, {Dest: 12, Seq: 1}}
	ahello := base
	ahello.Type, ahello.Origin, ahello.Final, ahello.DestSeq, ahello.LifetimeMS = TypeAODVHello, base.From, base.From, 3, 2000
	rrepA := rrep
	rrepA.AckRequired = true
	rack := base
	rack.Type, rack.To = TypeRREPAck, 9
	return []Frame{hello, bc, uc, ack, fl, loc, data, rreq, rrep, rerr, ahello, rack, rrepA}
}

// airFrames are sampleFrames as sent on the DCF medium: every type but
// location with an air section.
func airFrames(body []byte) []Frame {
	var out []Frame
	for i, f := range sampleFrames(body) {
		if f.Type == TypeLocation {
			continue
		}
		f.Air = Air{Start: 1_234_567_890 + time.Duration(i), Airtime: 1_280_000}
		out = append(out, f)
	}
	return out
}

func mustBody(m protocol.Message) []byte {
	c, err := NewCodec(testSpec)
	if err != nil {
		panic(err)
	}
	_, b, err := c.Encode(m)
	if err != nil {
		panic(err)
	}
	return b
}
