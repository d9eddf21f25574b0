package mutex_test

import (
	"reflect"
	"testing"

	"manetlab/mutex"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// TestPeerWireRoundTrip: every message of the three algorithms, wrapped by the
// reliable channel as it travels, survives the real driver's codec.
func TestPeerWireRoundTrip(t *testing.T) {
	msgs := map[string][]protocol.Message{
		mutex.RicartAgrawala: {
			reliable.Data[mutex.RAMsg]{Inc: 5, Conn: 1, Seq: 2, Base: 1, Msg: mutex.RAMsg{Type: mutex.RARequest, TS: 9}},
			reliable.Data[mutex.RAMsg]{Inc: 5, Conn: 2, Seq: 1, Base: 1, Msg: mutex.RAMsg{Type: mutex.RAReply, TS: 12, For: 9, Resent: true}},
			reliable.Ack{Chan: "mutex", Inc: 5, Conn: 1, Seq: 2},
		},
		mutex.Lamport: {
			reliable.Data[mutex.LamportMsg]{Inc: 5, Conn: 1, Seq: 3, Base: 2, Msg: mutex.LamportMsg{Type: mutex.LamportRelease, TS: 40, For: 31}},
		},
		mutex.SuzukiKasami: {
			reliable.Data[mutex.SKMsg]{Inc: 5, Conn: 1, Seq: 1, Base: 1, Msg: mutex.SKMsg{Type: mutex.SKRequest, Seq: 3}},
			reliable.Data[mutex.SKMsg]{Inc: 5, Conn: 1, Seq: 2, Base: 1, Msg: mutex.SKMsg{Type: mutex.SKToken, Pass: 7, LN: []uint64{1, 0, 4}, Queue: []protocol.NodeID{3, 1}}},
		},
	}
	for alg, ms := range msgs {
		spec, err := protocol.Lookup(alg)
		if err != nil {
			t.Fatal(err)
		}
		c, err := wire.NewCodec(spec)
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		for _, m := range ms {
			code, body, err := c.Encode(m)
			if err != nil {
				t.Fatalf("%s: encode %#v: %v", alg, m, err)
			}
			got, err := c.Decode(code, body)
			if err != nil || !reflect.DeepEqual(got, m) {
				t.Fatalf("%s: decoded %#v (%v), sent %#v", alg, got, err, m)
			}
		}
	}
}
