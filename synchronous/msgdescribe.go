package synchronous

import "fmt"

// Describe implements protocol.MessageDescriber.
func (m Msg) Describe() string {
	switch m.Type {
	case TypeToken:
		return fmt.Sprintf("token: %d leads", m.ID)
	case TypeFast:
		return fmt.Sprintf("fast: candidate %d", m.ID)
	case TypeSlow:
		return fmt.Sprintf("slow: candidate %d", m.ID)
	case TypeElected:
		return fmt.Sprintf("elected: %d leads", m.ID)
	case TypeInvite:
		return fmt.Sprintf("invite from root %d, depth %d", m.ID, m.Depth)
	}
	return m.Kind()
}
