package judge

import (
	"strings"
	"testing"

	"manetlab/protocol"
)

// TestBudget: the per-node budget's rules alone (no trace): an allowance
// that holds in every run is judged whatever the facts; one that needs
// no faults or loss only where the run, or its clean prefix, meets them;
// over an allowance, to a destination never allowed, or over the most
// to one node is invalid naming the node.
func TestBudget(t *testing.T) {
	b := &protocol.Budget{
		Formula: "ok ≤ elections received; election ≤ 2·starts to 3 only, without faults or loss",
		Allow: func(_ protocol.NodeID, _ []protocol.NodeID, _ protocol.Params, s protocol.Seen) []protocol.Allowance {
			return []protocol.Allowance{
				{Kinds: []string{"ok"}, Most: s.Got("election"), Why: "one per election received"},
				{Kinds: []string{"election"}, Most: 2 * s.Starts, PerPeer: max(s.Starts, 1), Only: []protocol.NodeID{2, 3},
					Why: "2 per start", If: protocol.Faultless},
			}
		},
	}
	members := []protocol.NodeID{1, 2, 3}
	c := &Collector{}
	add := func(t int64, what int, node protocol.NodeID, kind string, to, origin protocol.NodeID) {
		c.Add(CEvent{T: t, What: what, Node: node, Kind: kind, To: to, Origin: origin, Seq: uint64(t)})
	}
	add(1, CStart, 1, "", 0, 0)
	add(1, CSend, 1, "election", 2, 1)
	add(1, CSend, 1, "election", 3, 1)
	add(2, CRecv, 2, "election", 0, 1)
	add(2, CSend, 2, "ok", 1, 2)
	if got := c.Judge(b, members, nil, Facts{}); got == nil || got.Verdict != Valid {
		t.Fatalf("within the budget: %+v", got)
	}
	// A second ok for one election: invalid in every run, naming node 2.
	add(3, CSend, 2, "ok", 1, 2)
	got := c.Judge(b, members, nil, Facts{Fault: "node 3 crashed"})
	if got == nil || got.Verdict != Invalid || !strings.Contains(got.Reason, "node 2 sent 2 ok messages, over its budget of 1") {
		t.Fatalf("ok twice: %+v", got)
	}
	if bad := c.JudgeNode(b, 2, members, nil, Facts{}); bad == nil || bad.Verdict != Invalid {
		t.Fatalf("ok twice, as the run goes: %+v", bad)
	}
	// Elections twice to node 2 after a crash: judged on the clean
	// prefix only, so not before the crash is invalid...
	c2 := &Collector{}
	c2.Add(CEvent{T: 1, What: CStart, Node: 1})
	c2.Add(CEvent{T: 1, What: CSend, Node: 1, Kind: "election", To: 2, Seq: 1})
	c2.Add(CEvent{T: 5, What: CCrash, Node: 3})
	c2.Add(CEvent{T: 6, What: CSend, Node: 1, Kind: "election", To: 2, Seq: 2})
	got = c2.Judge(b, members, nil, Facts{Fault: "node 3 crashed"})
	if got == nil || got.Verdict != Valid || !strings.Contains(got.Reason, "judged before") {
		t.Fatalf("after the crash: %+v", got)
	}
	// ...while before it, it is.
	c3 := &Collector{}
	c3.Add(CEvent{T: 1, What: CStart, Node: 1})
	c3.Add(CEvent{T: 1, What: CSend, Node: 1, Kind: "election", To: 2, Seq: 1})
	c3.Add(CEvent{T: 2, What: CSend, Node: 1, Kind: "election", To: 2, Seq: 2})
	c3.Add(CEvent{T: 5, What: CCrash, Node: 3})
	got = c3.Judge(b, members, nil, Facts{Fault: "node 3 crashed"})
	if got == nil || got.Verdict != Invalid || !strings.Contains(got.Reason, "to 2 before") {
		t.Fatalf("twice to one node before the crash: %+v", got)
	}
	// A destination the budget never allows.
	c4 := &Collector{}
	c4.Add(CEvent{T: 1, What: CStart, Node: 2})
	c4.Add(CEvent{T: 1, What: CSend, Node: 2, Kind: "election", To: 1, Seq: 1})
	if got := c4.Judge(b, members, nil, Facts{}); got == nil || got.Verdict != Invalid || !strings.Contains(got.Reason, "never allows") {
		t.Fatalf("to a lower node: %+v", got)
	}
	// A retransmission received counts for no more than the peer sent.
	c5 := &Collector{}
	c5.Add(CEvent{T: 1, What: CRecv, Node: 2, Kind: protocol.TransportPrefix + "retx", From: 1})
	c5.Add(CEvent{T: 1, What: CSend, Node: 2, Kind: "ok", To: 1, Seq: 1})
	c5.Add(CEvent{T: 1, What: CSend, Node: 1, Kind: "check", To: 2, Seq: 1})
	if got := c5.Judge(b, members, nil, Facts{}); got == nil || got.Verdict != Invalid {
		t.Fatalf("an ok paid by a retransmitted check: %+v", got)
	}
}
