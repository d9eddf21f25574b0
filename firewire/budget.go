package firewire

import (
	"fmt"

	"manetlab/protocol"
)

// Budget is tree identify's per-node message budget (doc.go, "Message
// bounds"), in every run: a node (a fresh process at each recovery) sends
//
//	request:    at most one per life (its one parent request)
//	contention: at most one per request or contention received (each round of contention with the parent follows one)
//	ack:        at most one to each neighbour per life, and one per request or contention received
//	root:       at most one to each neighbour per life, and one per request or contention received (to its children only)
var Budget = &protocol.Budget{
	Formula: "request ≤ 1 per life; contention ≤ requests and contentions received; ack and root ≤ 1 to each neighbour per life and ≤ requests and contentions received",
	Allow: func(_ protocol.NodeID, _ []protocol.NodeID, _ protocol.Params, s protocol.Seen) []protocol.Allowance {
		lives := 1 + s.Recoveries
		asked := s.Got(KindRequest, KindContention)
		life := fmt.Sprintf("1 per life × %d", lives)
		return []protocol.Allowance{
			{Kinds: []string{KindRequest}, Most: lives, Why: life},
			{Kinds: []string{KindContention}, Most: asked, Why: "one per request or contention received"},
			{Kinds: []string{KindAck}, Most: asked, PerPeer: lives, Why: "one per request or contention received, " + life + " to each neighbour"},
			{Kinds: []string{KindRoot}, Most: asked, PerPeer: lives, Why: "one per request or contention received, " + life + " to each neighbour"},
		}
	},
}
