package protocol

// Budget bounds the messages each node sends by what its own trace
// shows: its election starts, the leader notes naming itself, its
// recoveries and requests, the messages it received. It is the message
// bound of a protocol whose count over a whole run no fixed formula of n
// gives (how many elections a run holds depends on its faults and its
// timing), stated per cause, so that a count-only bug (an extra send, a
// duplicate broadcast, one more hop) still shows: a node that sends more
// than its causes allow is judged invalid, naming the node, the kinds,
// the count and the allowance (trace/judge, docs/analysis.md "Message
// bounds"). The derivation is in the protocol's package doc.
type Budget struct {
	// Formula sums up the allowances for the text ("election ≤
	// |higher|·starts; ok ≤ elections received; ...").
	Formula string
	// Allow returns the allowances of node id among members, given what
	// its trace shows. A kind that no allowance names is not bounded.
	Allow func(id NodeID, members []NodeID, params Params, seen Seen) []Allowance
}

// Seen is what one node's trace shows, the causes a Budget pays for.
type Seen struct {
	Starts     int // election-start notes
	Leads      int // leader notes naming the node itself
	Recoveries int // recoveries (a fresh process each)
	Requests   int // critical-section requests
	// Open: the node's notes leave it in an election (an election-start
	// note with no election-end note after it, in this life): the one
	// round of its own that may be under way, paid for by no other cause
	// yet.
	Open bool
	// From holds, for each peer, what the node received from it and
	// what the peer's trace shows it sent to the node.
	From map[NodeID]Peer
}

// Peer is what one node received from one peer.
type Peer struct {
	// Recv counts the messages received by kind; Retx the reliable
	// channel's retransmissions received (TransportPrefix+"retx"),
	// which may carry any kind.
	Recv map[string]int
	Retx int
	// Sent counts what the peer's trace shows it sent to the node, by
	// kind; nil when the peer left no trace.
	Sent map[string]int
}

// Got is how many messages of the kinds the node received: from each
// peer those it received under their kinds and its retransmissions, but
// no more than the peer sent it of those kinds (a channel delivers each
// message once to each life of the node).
func (s Seen) Got(kinds ...string) int {
	n := 0
	for _, p := range s.From {
		got := p.Retx
		for _, k := range kinds {
			got += p.Recv[k]
		}
		if p.Sent != nil {
			sent := 0
			for _, k := range kinds {
				sent += p.Sent[k]
			}
			// Once per life: a recovered process may receive again what
			// its previous life had (the peer's channel retransmits what
			// the crash left unacknowledged).
			got = min(got, sent*(1+s.Recoveries))
		}
		n += got
	}
	return n
}

// Allowance is the most a node may send of some kinds.
type Allowance struct {
	Kinds []string // counted together
	Most  int      // the most in all
	// PerPeer, when positive, is the most to any one destination.
	PerPeer int
	// Only, when not nil, lists the only destinations allowed: a send of
	// these kinds to any other is over the allowance.
	Only []NodeID
	// Why says where Most comes from, for the reason ("4 per election
	// start × 2 starts").
	Why string
	// If is when the allowance holds; nil: in every run.
	If *Conditions
}
