package reliable

import (
	"fmt"

	"manetlab/protocol"
)

// Describe implements protocol.MessageDescriber: the message carried
// (its own line, or its kind), with its place in the channel.
func (d Data[T]) Describe() string {
	s := protocol.DescribeMessage(d.Msg)
	if s == "" {
		s = d.Msg.Kind()
	}
	if d.Retx {
		return fmt.Sprintf("retransmission #%d: %s", d.Seq, s)
	}
	return s
}

// Describe implements protocol.MessageDescriber.
func (a Ack) Describe() string { return fmt.Sprintf("%s #%d", KindAck, a.Seq) }
