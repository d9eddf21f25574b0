package ring

import (
	"fmt"
	"strings"

	"manetlab/protocol"
)

// Describe implements protocol.MessageDescriber: what the message carries,
// so that a token node 4 forwards for 8 reads as 8's.
func (m Msg) Describe() string {
	e := ""
	if m.Epoch != 0 {
		e = fmt.Sprintf(", election %d", m.Epoch)
	}
	dir := ""
	if m.Back {
		dir = ", backwards"
	}
	switch m.Type {
	case TypeToken:
		return fmt.Sprintf("token from %d%s", m.ID, e)
	case TypeElected:
		return fmt.Sprintf("elected: %d leads%s", m.ID, e)
	case TypeProbe:
		return fmt.Sprintf("probe from %d%s, phase %d, hop %d%s", m.ID, e, m.Phase, m.Hops, dir)
	case TypeReply:
		return fmt.Sprintf("reply to %d%s, phase %d%s", m.ID, e, m.Phase, dir)
	case TypeElection:
		return fmt.Sprintf("election from %d%s, live %s", m.ID, e, idList(m.Live))
	case TypeCoordinator:
		s := fmt.Sprintf("coordinator: %d leads%s, from %d", m.ID, e, m.Origin)
		if m.Reached {
			s += ", past the leader"
		}
		return s
	case TypeCheck:
		return fmt.Sprintf("check: is %d alive?%s", m.ID, e)
	case TypeOutdated:
		if m.Done {
			return fmt.Sprintf("outdated: my election %d is over", m.Epoch)
		}
		return fmt.Sprintf("outdated: I am in election %d", m.Epoch)
	}
	return m.Kind()
}

// idList is "3,5,8".
func idList(ids []protocol.NodeID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}
