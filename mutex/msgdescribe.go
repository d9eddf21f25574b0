package mutex

import (
	"fmt"

	"manetlab/protocol"
)

// The protocol.MessageDescriber lines: what each message carries (the
// sender and receiver are the driver's to say).

func sentAgain(s string, r bool) string {
	if r {
		return s + " (sent again)"
	}
	return s
}

// Describe implements protocol.MessageDescriber.
func (m RAMsg) Describe() string {
	switch m.Type {
	case RARequest:
		return sentAgain(fmt.Sprintf("request at time %d", m.TS), m.Resent)
	case RAReply:
		return sentAgain(fmt.Sprintf("reply: go ahead (request at %d)", m.For), m.Resent)
	}
	return m.Kind()
}

// Describe implements protocol.MessageDescriber.
func (m LamportMsg) Describe() string {
	switch m.Type {
	case LamportRequest:
		return sentAgain(fmt.Sprintf("request at time %d", m.TS), m.Resent)
	case LamportReply:
		return sentAgain(fmt.Sprintf("reply to the request at %d (clock %d)", m.For, m.TS), m.Resent)
	case LamportRelease:
		return sentAgain(fmt.Sprintf("release of the request at %d", m.For), m.Resent)
	}
	return m.Kind()
}

// Describe implements protocol.MessageDescriber.
func (m SKMsg) Describe() string {
	switch m.Type {
	case SKRequest:
		return sentAgain(fmt.Sprintf("request #%d", m.Seq), m.Resent)
	case SKToken:
		return sentAgain(fmt.Sprintf("token, pass %d, queue [%s]", m.Pass, ids(m.Queue)), m.Resent)
	}
	return m.Kind()
}

func ids(l []protocol.NodeID) string {
	s := ""
	for i, id := range l {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(id)
	}
	return s
}

// Describe implements protocol.MessageDescriber.
func (m tokenMsg) Describe() string {
	switch m.Type {
	case tokenToken:
		return fmt.Sprintf("token, generation %d, pass %d", m.Gen, m.Pass)
	case tokenElection:
		return fmt.Sprintf("token-election from %d (generation %d)", m.ID, m.Gen)
	case tokenRejoin:
		return "rejoin: I am back"
	case tokenPassedOver:
		return fmt.Sprintf("passed-over: the token went past you (generation %d, pass %d)", m.Gen, m.Pass)
	}
	return m.Kind()
}

// Describe implements protocol.MessageDescriber.
func (m centralMsg) Describe() string {
	t := centralTermOf(m).String()
	switch m.Type {
	case centralRequest:
		return fmt.Sprintf("request #%d (coordinator %s)", m.Seq, t)
	case centralGrant:
		return fmt.Sprintf("grant of request #%d (coordinator %s)", m.Seq, t)
	case centralRelease:
		return fmt.Sprintf("release of request #%d (coordinator %s)", m.Seq, t)
	case centralInquire:
		return fmt.Sprintf("inquire: your state? (coordinator %s)", t)
	case centralReport:
		st := [...]string{centralReportIdle: "idle", centralReportWanting: "wanting", centralReportHolding: "holding"}
		s := "?"
		if int(m.State) < len(st) {
			s = st[m.State]
		}
		return fmt.Sprintf("report: %s, request #%d (coordinator %s)", s, m.Seq, t)
	case centralOutdated:
		return fmt.Sprintf("outdated: I follow a later coordinator than %s", t)
	case centralCheck:
		return fmt.Sprintf("check: do you still hold request #%d? (coordinator %s)", m.Seq, t)
	}
	return m.Kind()
}
