package analysis

import (
	"math"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", name, deref(got), want)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestMetricsOfOneElection(t *testing.T) {
	scen := lineScenario(t, 3, 60*time.Second)
	dir := t.TempDir()
	bcast := func(s float64, kind string, seq uint64) trace.Event {
		return trace.Event{T: sec(s), Ev: trace.EvSend, Kind: kind, Seq: seq, Bytes: 10}
	}
	ucast := func(s float64, kind string, seq uint64, to protocol.NodeID) trace.Event {
		e := bcast(s, kind, seq)
		e.To = to
		return e
	}
	start := trace.Event{T: sec(1), Ev: string(protocol.NoteElectionStart), Epoch: "1.3"}
	synthRun(t, dir, scen, 60*time.Second, nil, map[protocol.NodeID][]trace.Event{
		1: {ev(0, trace.EvStart), bcast(0.5, "beacon", 1), start, bcast(1, "election", 2), ucast(1.5, "ack", 3, 2), leaderAt(3, 3, "1.3")},
		2: {ev(0, trace.EvStart), bcast(0.5, "beacon", 1), start, bcast(1, "election", 2), ucast(1.5, "ack", 3, 3), leaderAt(3, 3, "1.3")},
		3: {ev(0, trace.EvStart), start, bcast(1, "election", 1), leaderAt(2, 3, "1.3"), bcast(2, "leader", 2), bcast(30, "beacon", 3),
			// Sent while no election runs: not part of M.
			ucast(40, "leader-exchange", 4, 1)},
	})
	m, err := ComputeMetrics(dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "F", m.F, (2.0+2+1)/180)
	near(t, "R", m.R, 1.0/3)
	near(t, "T", m.T, 2)
	near(t, "M_bcast", m.MBcast, 4.0/3)
	near(t, "M_ucast", m.MUcast, 2.0/3)
	// Nodes 1 and 2 lack the best leader for 3 s, node 3 for 2 s, out of
	// 3 × 60 s, on the 100 ms grid.
	near(t, "wrong_or_unknown", m.WrongOrUnknown, 80.0/1800)
	if c := m.Messages["beacon"]; c.Broadcast != 3 || c.Bytes != 30 {
		t.Errorf("beacons: %+v", c)
	}
	if c := m.Messages["ack"]; c.Unicast != 2 || c.Broadcast != 0 {
		t.Errorf("acks: %+v", c)
	}
	if len(m.Elections) != 1 || m.Elections[0].Participants != 3 || m.Elections[0].Messages != 6 || m.Elections[0].End == nil || *m.Elections[0].End != 3 {
		t.Errorf("elections: %+v", m.Elections)
	}
	if n := m.PerNode[0]; n.Node != 1 || n.Sent != 3 || n.LeaderChanges != 1 || n.NoLeader != 3 || n.InElection != 2 || n.Live != 60 {
		t.Errorf("node 1: %+v", n)
	}
}

func TestMetricsWithoutElections(t *testing.T) {
	scen := lineScenario(t, 2, 10*time.Second)
	dir := t.TempDir()
	synthRun(t, dir, scen, 10*time.Second, []trace.Event{{T: sec(5), Node: 1, Ev: trace.EvCrash}},
		map[protocol.NodeID][]trace.Event{
			1: {ev(0, trace.EvStart), leaderAt(0, 2, "")},
			2: {ev(0, trace.EvStart), leaderAt(1, 2, "")},
		})
	m, err := ComputeMetrics(dir, MetricsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.F != nil || m.R != nil || m.T != nil || m.MBcast != nil || m.Note == "" {
		t.Errorf("a protocol without elections got F=%v R=%v T=%v M=%v note %q", deref(m.F), deref(m.R), deref(m.T), deref(m.MBcast), m.Note)
	}
	// Node 2 has no leader for 1 s of its 10 s; node 1 is right for its
	// 5 live seconds.
	near(t, "wrong_or_unknown", m.WrongOrUnknown, 10.0/150)
	if m.PerNode[0].Live != 5 {
		t.Errorf("node 1 live %v s, want 5", m.PerNode[0].Live)
	}
}
