package bully

import "manetlab/protocol"

// routine are the messages of a group at rest: a member's periodic check
// of its coordinator (textbook; a coordinator's probe of the higher IDs
// too) and Garcia-Molina's coordinator's are-you-normal and members'
// probes. Their answer is the reliable channel's acknowledgement, so
// "next note" steps over them; one that goes unanswered makes a note
// ("leader 7 suspected"), one answered with an election, "outdated" or
// "not normal" stops.
func routine(kind string) bool {
	return kind == KindCheck || kind == KindAreYouNormal || kind == KindProbe
}

// StopsAt implements protocol.NoteStopper: every message of an election
// (election, ok, coordinator; are-you-there, halt, new-coordinator,
// ready) delivered, every timer that sends one, not the routine checks.
func (p *textbook) StopsAt(s protocol.Step) bool { return protocol.StopUnlessRoutine(s, routine) }

// StopsAt implements protocol.NoteStopper, as textbook's.
func (p *garciaMolina) StopsAt(s protocol.Step) bool { return protocol.StopUnlessRoutine(s, routine) }
