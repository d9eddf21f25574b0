package adhoc

import (
	"fmt"

	"manetlab/protocol"
)

// The protocol.MessageDescriber lines: what each message carries, the
// computation named as Num.Src as the notes name it.

func comp(num uint64, src protocol.NodeID) string { return Index{Num: num, ID: src}.String() }

// Describe implements protocol.MessageDescriber.
func (m Election) Describe() string {
	if m.Departed != protocol.None {
		return fmt.Sprintf("election %s (leader %d left)", comp(m.Num, m.Src), m.Departed)
	}
	return "election " + comp(m.Num, m.Src)
}

// Describe implements protocol.MessageDescriber.
func (m Ack) Describe() string {
	if m.Best == protocol.None {
		return fmt.Sprintf("ack for %s: no candidate", comp(m.Num, m.Src))
	}
	return fmt.Sprintf("ack for %s: best %d (value %g)", comp(m.Num, m.Src), m.Best, m.Value)
}

// Describe implements protocol.MessageDescriber.
func (m Leader) Describe() string {
	return fmt.Sprintf("leader: %d (value %g), election %s", m.Leader, m.Value, comp(m.Num, m.Src))
}

// Describe implements protocol.MessageDescriber.
func (m Probe) Describe() string { return fmt.Sprintf("probe: still in %s?", comp(m.Num, m.Src)) }

// Describe implements protocol.MessageDescriber.
func (m Reply) Describe() string { return fmt.Sprintf("reply: still in %s", comp(m.Num, m.Src)) }

// Describe implements protocol.MessageDescriber.
func (m Child) Describe() string {
	return fmt.Sprintf("child: I joined %s under you", comp(m.Num, m.Src))
}

// Describe implements protocol.MessageDescriber.
func (m Beacon) Describe() string {
	return fmt.Sprintf("beacon of %d #%d, election %s", m.Leader, m.Seq, comp(m.Num, m.Src))
}

// Describe implements protocol.MessageDescriber.
func (m Query) Describe() string {
	return fmt.Sprintf("beacon-query: %d after #%d?", m.Leader, m.Seq)
}

// Describe implements protocol.MessageDescriber.
func (m Exchange) Describe() string {
	return fmt.Sprintf("leader-exchange: %d (value %g), election %s", m.Leader, m.Value, comp(m.Num, m.Src))
}
