package bully

import "fmt"

// Describe implements protocol.MessageDescriber: what the message
// carries (the sender is the driver's to say).
func (m Msg) Describe() string {
	switch m.Type {
	case TypeElection:
		if m.Leader == 0 {
			return fmt.Sprintf("election (no leader yet, number %d)", m.Num)
		}
		return fmt.Sprintf("election (I followed %d.%d)", m.Leader, m.Num)
	case TypeOK:
		return fmt.Sprintf("ok: I am higher (number %d)", m.Num)
	case TypeCoordinator:
		return fmt.Sprintf("coordinator: I lead, election %d", m.Num)
	case TypeCheck:
		return fmt.Sprintf("check: is %d.%d still on?", m.Leader, m.Num)
	case TypeOutdated:
		return fmt.Sprintf("outdated: the highest number is %d", m.Num)
	case TypeAreYouThere:
		return fmt.Sprintf("are-you-there? (number %d)", m.Num)
	case TypeHalt:
		return fmt.Sprintf("halt for election %d", m.Num)
	case TypeNewCoordinator:
		return fmt.Sprintf("new-coordinator: I lead, election %d", m.Num)
	case TypeReady:
		return fmt.Sprintf("ready: election %d is on", m.Num)
	case TypeAreYouNormal:
		return fmt.Sprintf("are-you-normal? (election %d)", m.Num)
	case TypeNotNormal:
		return fmt.Sprintf("not-normal (election %d)", m.Num)
	case TypeProbe:
		return fmt.Sprintf("probe: are you still my coordinator? (election %d)", m.Num)
	}
	return m.Kind()
}
