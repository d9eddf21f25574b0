package invitation

import "fmt"

// Describe implements protocol.MessageDescriber: what the message
// carries (the sender is the driver's to say).
func (m Msg) Describe() string {
	g := m.group().String()
	yes := "no"
	if m.Yes {
		yes = "yes"
	}
	switch m.Type {
	case TypeAreYouCoordinator:
		return fmt.Sprintf("are-you-coordinator? (check %d)", m.Round)
	case TypeCoordinatorReply:
		return fmt.Sprintf("coordinator-reply: %s (check %d, my group %s)", yes, m.Round, g)
	case TypeAreYouThere:
		return fmt.Sprintf("are-you-there? (group %s)", g)
	case TypeThereReply:
		return fmt.Sprintf("there-reply: %s (group %s)", yes, g)
	case TypeInvitation:
		return fmt.Sprintf("invitation to group %s", g)
	case TypeAccept:
		return fmt.Sprintf("accept group %s", g)
	case TypeAcceptReply:
		return fmt.Sprintf("accept-reply: %s (group %s)", yes, g)
	case TypeReady:
		return fmt.Sprintf("ready: group %s of %d", g, m.Size)
	}
	return m.Kind()
}
