package netstack

import (
	"testing"
	"time"

	"manetlab/protocol"
)

// rreqFrom is a route request for the node of ID final, originated and
// heard from member from.
func rreqFrom(from int32, id uint64, final protocol.NodeID) *Frame {
	return &Frame{Type: RREQ, From: from, To: -1, Seq: id, Origin: from, OSeq: id, OrigSeq: uint32(id), Final: final, TTL: 5}
}

// TestBlacklist: a reply to neighbour 1 that is never acknowledged
// blacklists it (RFC 3561 6.8): its requests are ignored for
// BLACKLIST_TIMEOUT (rreq_retries · NET_TRAVERSAL_TIME, 5.6 s), then
// answered again.
func TestBlacklist(t *testing.T) {
	s, d := aodvStack(4)
	s.Heard(rreqFrom(1, 1, 1), Received) // a request for this node (ID 1)
	reps := d.sent(RREP)
	if len(reps) != 1 || reps[0].To != 1 {
		t.Fatalf("replies %+v", reps)
	}
	for range s.cfg.Retries + 1 {
		s.Timer(Timer{Kind: TimerRetx, Peer: 1, Ref: reps[0].Seq})
	}
	if n := len(d.sent(RREP)); n != s.cfg.Retries+1 {
		t.Fatalf("%d transmissions of the reply, want %d", n, s.cfg.Retries+1)
	}
	d.now += time.Second
	s.Heard(rreqFrom(1, 2, 1), Received)
	if n := len(d.sent(RREP)); n != s.cfg.Retries+1 {
		t.Fatalf("a blacklisted neighbour's request was answered (%d replies)", n)
	}
	d.now += 5 * time.Second // 6 s after the loss: beyond 5.6 s
	s.Heard(rreqFrom(1, 3, 1), Received)
	if n := len(d.sent(RREP)); n != s.cfg.Retries+2 {
		t.Fatalf("after the blacklist timeout: %d replies, want %d", n, s.cfg.Retries+2)
	}
}

// TestIntermediateAndGratuitousReplies: a node with a fresh route to the
// destination answers for it and, with the G flag, sends the destination
// a reply for the requester (traced as kinds intermediate and
// gratuitous); with the D flag it does not answer.
func TestIntermediateAndGratuitousReplies(t *testing.T) {
	s, d := aodvStack(4)
	s.cfg.AODV.GratuitousReply = true
	s.learn(3, 3, 1, 9, true, 2*time.Second) // member 3 (ID 4) is a neighbour
	s.Heard(rreqFrom(1, 1, 4), Received)
	reps := d.sent(RREP)
	if len(reps) != 2 || reps[0].To != 1 || reps[0].Final != 4 || reps[1].To != 3 || reps[1].Final != 2 || reps[1].Origin != 3 {
		t.Fatalf("replies %+v", reps)
	}
	var kinds []string
	for _, e := range d.events {
		kinds = append(kinds, e.Kind)
	}
	if len(kinds) != 2 || kinds[0] != "intermediate" || kinds[1] != "gratuitous" {
		t.Fatalf("traced kinds %q", kinds)
	}
	o, od := aodvStack(4)
	o.cfg.AODV.DestinationOnly = true
	o.learn(3, 3, 1, 9, true, 2*time.Second)
	o.Heard(rreqFrom(1, 1, 4), Received)
	if reps := od.sent(RREP); len(reps) != 0 {
		t.Fatalf("destination_only: replies %+v", reps)
	}
}

// TestAODVHello: a hello gives a one-hop route to its sender with its
// sequence number; a node sends one at its tick unless it broadcast a
// request since the last.
func TestAODVHello(t *testing.T) {
	s, d := aodvStack(4)
	s.cfg.AODV.Neighbors = NeighborsHello
	s.Heard(&Frame{Type: AODVHello, From: 2, To: -1, Seq: 1, Final: 3, DestSeq: 7, Lifetime: 2 * time.Second}, Received)
	r := s.routing().validRoute(2, d.now)
	if r == nil || r.next != 2 || r.hops != 1 || !r.validSeq || r.seq != 7 {
		t.Fatalf("route to the neighbour %+v", r)
	}
	s.Timer(Timer{Kind: TimerDiscovery, Peer: aodvTick})
	if h := d.sent(AODVHello); len(h) != 1 || h[0].Final != 1 || h[0].Lifetime != 2*time.Second {
		t.Fatalf("hellos %+v", h)
	}
	if e := d.events[len(d.events)-1]; e.Ev != "rrep" || e.Kind != "hello" {
		t.Fatalf("hello traced as %+v", e)
	}
	s.Deliver(4, helloTestMsg{}) // a discovery: a request broadcast
	d.now += time.Second
	s.Timer(Timer{Kind: TimerDiscovery, Peer: aodvTick})
	if h := d.sent(AODVHello); len(h) != 1 {
		t.Fatalf("a hello after a request in the interval: %d hellos", len(h))
	}
}

type helloTestMsg struct{}

func (helloTestMsg) Kind() string { return "test" }

// TestKeepSeqOnBreak: a broken link's routes get their destination
// sequence number incremented (RFC 3561 6.11), or kept (ns-3's way).
func TestKeepSeqOnBreak(t *testing.T) {
	for _, keep := range []bool{false, true} {
		s, _ := aodvStack(4)
		s.cfg.AODV.KeepSeqOnBreak = keep
		r := s.learn(3, 2, 2, 9, true, 2*time.Second)
		s.linkBroken(2)
		want := uint32(10)
		if keep {
			want = 9
		}
		if r.valid || r.seq != want {
			t.Errorf("keep_seq_on_break %v: route valid %v, sequence number %d, want %d", keep, r.valid, r.seq, want)
		}
	}
}
