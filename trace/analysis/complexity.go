package analysis

import "manetlab/protocol"

// Complexity sets a protocol's measured message counts beside theory
// (ring elections: protocols whose Spec has a Complexity).
type Complexity struct {
	// Messages counts the election's algorithm messages originated: no
	// announcement, no transport acknowledgements or retransmissions, no
	// relays of multi-hop frames, no control traffic (liveness checks).
	Messages uint64 `json:"messages"`
	// Announce counts the announcement's messages.
	Announce uint64 `json:"announce"`
	// Transport counts the reliable channel's acknowledgements and
	// retransmissions.
	Transport uint64 `json:"transport"`
	// Control counts the protocol's other messages (liveness checks).
	Control uint64 `json:"control"`
	// Time is the seconds from the first election-start note to the last
	// leader note.
	Time float64 `json:"time"`
	// Elections counts the distinct epochs of the leader notes.
	Elections int `json:"elections"`
	// Bound is the theoretical count for this run's arrangement.
	Bound protocol.Bound `json:"bound"`
}
