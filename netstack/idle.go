package netstack

// Idle reports whether the stack holds nothing for its protocol: no
// unicast waiting on a link (for its acknowledgement or behind another),
// no message waiting for a route, no protocol frame in the MAC queue.
// Hellos and acknowledgements aside, an idle stack sends nothing of its
// own accord. The simulator uses it to record quiescence (sim/quiet.go).
func (s *Stack) Idle() bool {
	for _, q := range s.queues {
		if len(q.pending) > 0 {
			return false
		}
	}
	if a := s.aodv; a != nil && (a.waiting > 0 || len(a.finding) > 0) {
		return false
	}
	for _, f := range s.mac.q {
		if f.Type != Hello && f.Type != Ack {
			return false
		}
	}
	return true
}
