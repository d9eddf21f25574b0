package netstack

// Wire sizes of frames, unsigned (docs/wire.md, "Sizes"): what the DCF
// medium's airtime counts. The node driver's encoding has exactly these
// lengths (node's TestWireBytes).
const (
	wireHeader  = 44 // every frame
	wireMessage = 4  // a message's code and length, before its body
	wireAck     = 8
	wireFlood   = 18 // flood and data sections
	wireRREQ    = 26
	wireRREP    = 17
	wireRERR    = 1 // then 8 bytes a destination
)

// WireBytes is the size of f on the wire, unsigned: header, section and
// message (f.Bytes is the message body's size).
func WireBytes(f *Frame) int {
	n := wireHeader
	switch f.Type {
	case Ack:
		n += wireAck
	case Flood, Data:
		n += wireFlood
	case RREQ:
		n += wireRREQ
	case RREP, AODVHello:
		n += wireRREP
	case RERR:
		n += wireRERR + 8*len(f.Unreachable)
	}
	if f.Type.HasBody() {
		n += wireMessage + f.Bytes
	}
	return n
}
