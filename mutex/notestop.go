package mutex

import "manetlab/protocol"

// StopsAt implements protocol.NoteStopper: the token's passes round the
// ring are routine (an idle token goes round for ever); "next note"
// stops where the token is taken (a node enters the section: a note),
// and at the regeneration's messages (token-election, rejoin,
// passed-over), delivered or sent.
func (p *tokenRing) StopsAt(s protocol.Step) bool {
	return protocol.StopUnlessRoutine(s, func(kind string) bool { return kind == tokenKindToken })
}
