package mutex

import (
	"testing"

	"manetlab/protocol"
)

// newCentralCoord builds node id of mutex/centralized on members 1 to 4,
// names it leader and completes its collection (every other member
// idle); it returns the node, its term number and its env.
func newCentralCoord(t *testing.T, id protocol.NodeID) (*centralized, uint64, *coordEnv, map[protocol.NodeID]*coordDeliverer[centralMsg]) {
	t.Helper()
	env := newCoordEnv(t)
	proc, err := NewCentralized(protocol.Config{ID: id, Members: []protocol.NodeID{1, 2, 3, 4}, Env: env, Params: protocol.Params{}})
	if err != nil {
		t.Fatal(err)
	}
	p := proc.(*centralized)
	p.Step(protocol.Start{})
	p.news = append(p.news, id) // the election names this node
	p.afterElection()
	coordAlgorithm[centralMsg](env)
	from := map[protocol.NodeID]*coordDeliverer[centralMsg]{}
	for m := protocol.NodeID(1); m <= 4; m++ {
		from[m] = &coordDeliverer[centralMsg]{from: m}
		if m != id {
			p.Step(from[m].data(centralMsg{Type: centralReport, Term: p.co.term.Num, Coord: id, State: centralReportIdle}))
		}
	}
	if p.co == nil || p.co.collecting() {
		t.Fatalf("node %d: not coordinating with its queue rebuilt", id)
	}
	return p, p.co.term.Num, env, from
}

// TestCentralizedSupersededCoordinator: two coordinators at once (the
// elections disagree for a while, as on the DCF medium, where node 6 was
// elected beside node 8 when its checks of 8 were lost). A coordinator
// that hears of a newer term grants no more in its own: node 4 (the
// higher ID, its election naming it) reports to node 3's inquiry of term
// 2 and collects again in term 3; a client's request in term 1 is not
// granted (before the fix node 4 granted it in term 1 while node 3 could
// grant in term 2: configs/mutex-centralized.yaml on DCF, seed 1). Node 3,
// hearing of term 3, steps down and follows it; a request in its own old
// term does not bring it back, one of a client that followed node 4 does.
func TestCentralizedSupersededCoordinator(t *testing.T) {
	p, term, env, from := newCentralCoord(t, 4)
	p.Step(from[3].data(centralMsg{Type: centralInquire, Term: term + 1, Coord: 3}))
	out := coordAlgorithm[centralMsg](env)
	if p.co == nil || p.co.term != (centralTerm{Num: term + 2, Coord: 4}) || !p.co.collecting() {
		t.Fatalf("node 4 after node 3's inquiry of term %d: coordinating %+v; want a collection in term %d", term+1, p.co, term+2)
	}
	if len(out) != 4 || out[0].to != 3 || out[0].m.(centralMsg).Type != centralReport || out[0].m.(centralMsg).Term != term+1 {
		t.Fatalf("node 4 sent %+v; want a report to 3 in its term, then inquiries to 1, 2 and 3", out)
	}
	p.Step(from[1].data(centralMsg{Type: centralRequest, Term: term, Coord: 4, Inc: 9, Seq: 1}))
	for _, s := range coordAlgorithm[centralMsg](env) {
		if s.m.(centralMsg).Type == centralGrant {
			t.Fatalf("node 4 granted %+v in its superseded term", s)
		}
	}

	q, qterm, qenv, qfrom := newCentralCoord(t, 3)
	q.Step(qfrom[4].data(centralMsg{Type: centralInquire, Term: qterm + 5, Coord: 4}))
	out = coordAlgorithm[centralMsg](qenv)
	if q.co != nil || q.term != (centralTerm{Num: qterm + 5, Coord: 4}) || len(out) != 1 || out[0].m.(centralMsg).Type != centralReport {
		t.Fatalf("node 3 after node 4's inquiry: coordinating %+v, following %v, sent %+v; want it to follow 4 and report", q.co, q.term, out)
	}
	q.Step(qfrom[1].data(centralMsg{Type: centralRequest, Term: qterm, Coord: 3, Inc: 9, Seq: 1}))
	if q.co != nil || len(coordAlgorithm[centralMsg](qenv)) != 0 {
		t.Fatalf("node 3 answered a request in its own old term: coordinating %+v", q.co)
	}
	q.Step(qfrom[2].data(centralMsg{Type: centralRequest, Term: qterm + 5, Coord: 4, Inc: 9, Seq: 1}))
	if q.co == nil || !q.co.collecting() || q.co.term.Num != qterm+6 {
		t.Fatalf("node 3, asked by a client of node 4's term: coordinating %+v; want a collection in term %d", q.co, qterm+6)
	}
}
