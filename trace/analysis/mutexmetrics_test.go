package analysis

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// Trace builders for mutual exclusion runs.
func csNote(s float64, kind protocol.NoteKind) trace.Event {
	return trace.Event{T: sec(s), Ev: string(kind)}
}

func sendTo(s float64, kind string, seq uint64, to protocol.NodeID) trace.Event {
	return trace.Event{T: sec(s), Ev: trace.EvSend, Kind: kind, Seq: seq, To: to, Bytes: 8}
}

func recvFrom(s float64, kind string, seq uint64, from protocol.NodeID) trace.Event {
	return trace.Event{T: sec(s), Ev: trace.EvRecv, Kind: kind, Seq: seq, From: from}
}

// centralizedRun is a coordinator (node 3) granting nodes 1 and 2 in
// turn, with known answers:
//
//	node 1: request 1.0, enter 1.2, exit 2.0; request 4.0, enter 4.2, exit 5.0
//	node 2: request 1.5 (waits behind node 1), enter 2.2, exit 3.0;
//	        request 8.0, crash 8.5 (abandoned), start 9.0, request 9.5 (waiting)
//	node 3: request 3.5, never granted (waiting; node 1's entry at 4.2
//	        overtakes it)
//
// Messages: requests 1→3, 2→3, 1→3; grants 3→1, 3→2, 3→1; releases 1→3,
// 2→3, 1→3: nine, three per entry; plus a hello and a transport ack.
// The one handover is node 1's exit at 2.0 to node 2's entry at 2.2:
// release 1→3, grant 3→2, two messages.
func centralizedRun() (map[protocol.NodeID][]trace.Event, []trace.Event) {
	nodes := map[protocol.NodeID][]trace.Event{
		1: {
			ev(0, trace.EvStart),
			csNote(1.0, protocol.NoteCSRequest), sendTo(1.0, "request", 1, 3),
			recvFrom(1.2, "grant", 3, 3), csNote(1.2, protocol.NoteCSEnter),
			csNote(2.0, protocol.NoteCSExit), sendTo(2.0, "release", 2, 3),
			csNote(4.0, protocol.NoteCSRequest), sendTo(4.0, "request", 3, 3),
			recvFrom(4.2, "grant", 5, 3), csNote(4.2, protocol.NoteCSEnter),
			csNote(5.0, protocol.NoteCSExit), sendTo(5.0, "release", 4, 3),
		},
		2: {
			ev(0, trace.EvStart),
			csNote(1.5, protocol.NoteCSRequest), sendTo(1.5, "request", 1, 3),
			recvFrom(2.2, "grant", 4, 3), csNote(2.2, protocol.NoteCSEnter),
			csNote(3.0, protocol.NoteCSExit), sendTo(3.0, "release", 2, 3),
			csNote(8.0, protocol.NoteCSRequest),
			ev(8.5, trace.EvCrash), ev(9.0, trace.EvStart),
			csNote(9.5, protocol.NoteCSRequest),
		},
		3: {
			ev(0, trace.EvStart),
			sendTo(0.5, "hello", 1, 0), sendTo(0.6, protocol.TransportPrefix+"ack", 2, 1),
			recvFrom(1.1, "request", 1, 1), sendTo(1.1, "grant", 3, 1),
			recvFrom(1.6, "request", 1, 2),
			recvFrom(2.1, "release", 2, 1), sendTo(2.1, "grant", 4, 2),
			recvFrom(3.1, "release", 2, 2),
			csNote(3.5, protocol.NoteCSRequest),
			recvFrom(4.1, "request", 3, 1), sendTo(4.1, "grant", 5, 1),
			recvFrom(5.1, "release", 4, 1),
		},
	}
	runEvs := []trace.Event{{T: sec(8.5), Node: 2, Ev: trace.EvCrash}, {T: sec(9), Node: 2, Ev: trace.EvRecover}}
	return nodes, runEvs
}

func TestMutexMetricsKnownAnswers(t *testing.T) {
	scen := lineScenario(t, 3, 10*time.Second)
	dir := t.TempDir()
	nodes, runEvs := centralizedRun()
	synthRun(t, dir, scen, 10*time.Second, runEvs, nodes)
	rep, err := ComputeMetrics(dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Mutex
	if m == nil {
		t.Fatal("no mutex metrics for a run with sections")
	}
	if m.Requests != 6 || m.Entries != 3 || m.Granted != 3 || m.Abandoned != 1 || m.Unrequested != 0 {
		t.Errorf("requests %d entries %d granted %d abandoned %d unrequested %d, want 6 3 3 1 0",
			m.Requests, m.Entries, m.Granted, m.Abandoned, m.Unrequested)
	}
	if m.Messages != 9 || m.Transport != 1 || m.ByKind["request"] != 3 || m.ByKind["grant"] != 3 || m.ByKind["release"] != 3 || len(m.ByKind) != 3 {
		t.Errorf("messages %d transport %d by kind %v, want 9, 1, 3 of each of request, grant, release", m.Messages, m.Transport, m.ByKind)
	}
	near(t, "messages per entry", m.MessagesPerEntry, 3)
	if m.PerEntryByKind["grant"] != 1 {
		t.Errorf("grants per entry %v, want 1", m.PerEntryByKind["grant"])
	}
	if m.Sync.Handovers != 1 || m.Sync.Unlinked != 0 || m.Sync.MaxMessages == nil || *m.Sync.MaxMessages != 2 {
		t.Errorf("sync delay %+v, want one handover of 2 messages", m.Sync)
	}
	near(t, "sync delay (s)", m.Sync.MeanTime, 0.2)
	near(t, "sync delay (messages)", m.Sync.MeanMessages, 2)
	// Waits 0.2, 0.7, 0.2.
	near(t, "waiting mean", m.WaitingMean, 1.1/3)
	near(t, "waiting p95", m.WaitingP95, 0.7)
	near(t, "throughput", m.Throughput, 0.3)
	// Entries per requesting node 2, 1, 0: 9 / (3 × 5).
	near(t, "jain", m.Jain, 0.6)
	if m.Overtakes != 1 {
		t.Errorf("overtakes %d, want 1 (node 1 at 4.2 past node 3's request of 3.5)", m.Overtakes)
	}
	if m.WaitingAtEnd != 2 || m.Recent != 1 || m.RecentWindow != 0.7 || m.Oldest == nil || m.Oldest.Node != 3 || m.Oldest.T != 3.5 {
		t.Errorf("waiting at end %d (recent %d within %v s), oldest %+v; want 2, 1 within 0.7, node 3 at 3.5",
			m.WaitingAtEnd, m.Recent, m.RecentWindow, m.Oldest)
	}
	if len(m.PerNode) != 3 || m.PerNode[1].Node != 2 || m.PerNode[1].Requests != 3 || m.PerNode[1].Entries != 1 {
		t.Errorf("per node %+v", m.PerNode)
	}
	near(t, "node 1 waiting", m.PerNode[0].WaitingMean, 0.2)
	if m.Violations != 0 {
		t.Errorf("%d mutual exclusion violations in a correct run", m.Violations)
	}
	var b strings.Builder
	rep.WriteText(&b)
	for _, want := range []string{
		"mutual exclusion: 3 entries, 6 requests (3 granted, 1 abandoned by a crash, 2 waiting at the end, 1 of them within the last 0.700s); 0 violations",
		"messages per entry 3.00 (9 messages: grant 1.00, release 1.00, request 1.00); 1 transport apart",
		"sync delay over 1 handovers: mean 0.200s, max 0.200s; in messages mean 2.00, max 2",
		"waiting: mean 0.367s, p95 0.700s, max 0.700s; throughput 0.300 entries/s",
		"fairness: 1 overtakes; Jain's index of entries per requesting node 0.600",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestMutexMetricsHandoverRules(t *testing.T) {
	scen := lineScenario(t, 2, 10*time.Second)
	// Node 1's exit at 2 is followed by node 2's entry at 3.2, requested
	// at 3 (after the exit): idle, no handover. Node 2's exit at 4 is
	// followed by its own entry at 4.5: no handover. Node 2's exit at 5 is
	// followed by node 1's entry at 6, requested at 3.5: a handover of 1 s
	// with no causal chain (node 2 never sends), which is also a violation
	// of mutual exclusion twice over. Node 2's entry at 4.5 (request 3.9)
	// overtakes node 1's request of 3.5.
	dir := t.TempDir()
	synthRun(t, dir, scen, 10*time.Second, nil, map[protocol.NodeID][]trace.Event{
		1: {csNote(1, protocol.NoteCSRequest), csNote(1, protocol.NoteCSEnter), csNote(2, protocol.NoteCSExit), sendTo(2, "token", 1, 2),
			csNote(3.5, protocol.NoteCSRequest), csNote(6, protocol.NoteCSEnter), csNote(7, protocol.NoteCSExit)},
		2: {csNote(3, protocol.NoteCSRequest), recvFrom(3, "token", 1, 1), csNote(3.2, protocol.NoteCSEnter),
			csNote(3.9, protocol.NoteCSRequest), csNote(4, protocol.NoteCSExit), csNote(4.5, protocol.NoteCSEnter), csNote(5, protocol.NoteCSExit)},
	})
	rep, err := ComputeMetrics(dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Mutex
	if m.Sync.Handovers != 1 || m.Sync.Unlinked != 1 || m.Sync.MeanMessages != nil {
		t.Errorf("sync delay %+v, want one unlinked handover", m.Sync)
	}
	near(t, "sync delay (s)", m.Sync.MaxTime, 1)
	if m.Violations != 2 {
		t.Errorf("%d violations, want 2 (node 1's entry at 6 follows neither of node 2's exits)", m.Violations)
	}
	if m.Overtakes != 1 {
		t.Errorf("overtakes %d, want 1", m.Overtakes)
	}
	near(t, "messages per entry", m.MessagesPerEntry, 0.25)
	near(t, "jain", m.Jain, 1)
	if m.WaitingAtEnd != 0 || m.Oldest != nil {
		t.Errorf("waiting at end %d (%+v), want none", m.WaitingAtEnd, m.Oldest)
	}
}

func TestMutexMetricsAbsentWithoutSections(t *testing.T) {
	scen := lineScenario(t, 2, 10*time.Second)
	dir := t.TempDir()
	synthRun(t, dir, scen, 10*time.Second, nil, map[protocol.NodeID][]trace.Event{
		1: {ev(0, trace.EvStart), leaderAt(1, 2, "")},
		2: {ev(0, trace.EvStart), leaderAt(1, 2, "")},
	})
	rep, err := ComputeMetrics(dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mutex != nil {
		t.Errorf("mutex metrics for an election: %+v", rep.Mutex)
	}
}
