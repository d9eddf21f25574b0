package mutex

import (
	"testing"

	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// TestWireCoord: the wire codec accepts both specs' message lists (the
// centralized algorithm's union with its elections' included) and carries
// their messages unchanged.
func TestWireCoord(t *testing.T) {
	msgs := map[string]protocol.Message{
		Centralized: reliable.Data[centralMsg]{Inc: 5, Conn: 1, Seq: 2, Base: 1, Msg: centralMsg{Type: centralReport, Term: 3, Coord: 8, Inc: 9, Seq: 4, State: centralReportHolding}},
		TokenRing:   reliable.Data[tokenMsg]{Inc: 5, Conn: 1, Seq: 2, Base: 1, Msg: tokenMsg{Type: tokenElection, Gen: 7, ID: 3, Stamp: 5_250_000_000}},
	}
	for name, m := range msgs {
		spec, err := protocol.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := wire.NewCodec(spec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		code, body, err := c.Encode(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := c.Decode(code, body)
		if err != nil || back != m {
			t.Fatalf("%s: %+v came back as %+v (%v)", name, m, back, err)
		}
		if _, err := c.Decode(code, body[:len(body)/2]); err == nil {
			t.Errorf("%s: a truncated body decoded", name)
		}
	}
}
