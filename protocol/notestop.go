package protocol

// Step is one step of a run as the studio's "next note" weighs it,
// after it was taken at a live node: one of the algorithm's messages
// delivered to the node (Kind, the message's kind) or one of the node's
// timers fired (Timer, its name), and the kinds of the algorithm's
// messages the node sent in reply, in order (Sent; the transport's
// acknowledgements and the network's frames are not among them).
type Step struct {
	Kind  string
	Timer string
	Sent  []string
}

// NoteStopper is what a Process may add for people who step through a
// run (the studio's "next note", key n): which steps its lesson wants
// them to look at, besides the notes (a leader chosen, a section entered
// or left, an election started or ended, a round), at which "next note"
// always stops. Chang-Roberts wants every token delivered, forwarded or
// dropped; bully wants the election's messages, not a member's periodic
// check of its coordinator; a token ring, not the token's idle passes.
// It is optional (DefaultStop is the rule without it), read only by
// drivers, and must not change the process's state.
type NoteStopper interface {
	StopsAt(s Step) bool
}

// DefaultStop is the rule for a process that declares none: every
// message of the algorithm delivered (whatever the node does with it)
// and every timer that makes the node send one.
func DefaultStop(s Step) bool {
	return s.Kind != "" || len(s.Sent) > 0
}

// StopsAt is p's own rule for step s (NoteStopper), or DefaultStop.
func StopsAt(p Process, s Step) bool {
	if d, ok := p.(NoteStopper); ok {
		return d.StopsAt(s)
	}
	return DefaultStop(s)
}

// StopUnlessRoutine is a NoteStopper's rule for a protocol with routine
// messages (heartbeats, checks, an idle token's passes): a step stops
// when it delivers a message that is not routine or makes the node send
// one; a routine message delivered, or a timer that sends only routine
// ones, does not.
func StopUnlessRoutine(s Step, routine func(kind string) bool) bool {
	if s.Kind != "" && !routine(s.Kind) {
		return true
	}
	for _, k := range s.Sent {
		if !routine(k) {
			return true
		}
	}
	return false
}
