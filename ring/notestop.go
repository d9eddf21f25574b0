package ring

import "manetlab/protocol"

// The ring family's "next note" stops (protocol.NoteStopper): every
// election message delivered, whether the node forwards it, swallows it
// or answers it (a token dropped by a larger node is the lesson of
// Chang-Roberts as much as one forwarded), and every timer that makes a
// node send one (an initiator's start); Tanenbaum's members' periodic
// checks of their coordinator are routine: they stop only when one is
// answered with more than its acknowledgement (an election, "outdated").
func ringStops(s protocol.Step) bool {
	return protocol.StopUnlessRoutine(s, func(kind string) bool { return kind == KindCheck })
}

// StopsAt implements protocol.NoteStopper.
func (p *changRoberts) StopsAt(s protocol.Step) bool { return ringStops(s) }

// StopsAt implements protocol.NoteStopper.
func (p *leLann) StopsAt(s protocol.Step) bool { return ringStops(s) }

// StopsAt implements protocol.NoteStopper.
func (p *hirschbergSinclair) StopsAt(s protocol.Step) bool { return ringStops(s) }

// StopsAt implements protocol.NoteStopper.
func (p *tanenbaum) StopsAt(s protocol.Step) bool { return ringStops(s) }
