package mutex

import "manetlab/protocol"

// tokenType says which of the token ring's messages a tokenMsg is.
type tokenType uint8

// The token ring's message types. The numbers travel on the wire: append
// only.
const (
	tokenToken      tokenType = iota + 1 // the token, to the successor
	tokenElection                        // regeneration: a candidate's ID going round
	tokenRejoin                          // a recovered node tells its predecessor it is back
	tokenPassedOver                      // the token went past the receiver, which was skipped
)

// The token ring's message kinds, as traces count them.
const (
	tokenKindToken    = "token"
	tokenKindElection = "token-election"
	tokenKindRejoin   = "rejoin"
	tokenKindPassed   = "passed-over"
)

var tokenKinds = [...]string{
	tokenToken:      tokenKindToken,
	tokenElection:   tokenKindElection,
	tokenRejoin:     tokenKindRejoin,
	tokenPassedOver: tokenKindPassed,
}

// tokenMsg is every message of the token ring.
type tokenMsg struct {
	Type tokenType
	// Gen is the token's generation: 1 for the first token, and every
	// regenerated token one above the highest generation its election
	// saw, so that nodes discard an older token that turns up. On an
	// election, the highest generation seen along its way.
	Gen uint64 `msgpack:",omitempty"`
	// Pass counts a token's passes within its generation: the sender
	// sends one above the highest it has seen. A node discards a token
	// whose pass it has seen already, and drops, when its channel gives
	// up on a peer, a token it sent there that a later pass has followed
	// here since: the peer passed it on before it crashed, its
	// acknowledgement lost (tokenring_regen.go).
	Pass uint64 `msgpack:",omitempty"`
	// ID is an election's candidate.
	ID protocol.NodeID `msgpack:",omitempty"`
	// Stamp is an election's candidacy: when its candidate, missing the
	// token, became a candidate (Env.Now in nanoseconds). An election of
	// an earlier candidacy, which the token has overtaken since, comes
	// back stale (tokenring_regen.go).
	Stamp uint64 `msgpack:",omitempty"`
}

// Kind implements protocol.Message.
func (m tokenMsg) Kind() string {
	if int(m.Type) < len(tokenKinds) && tokenKinds[m.Type] != "" {
		return tokenKinds[m.Type]
	}
	return "unknown"
}
