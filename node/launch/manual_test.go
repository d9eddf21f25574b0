package launch

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// TestManualFaultsAreAppliedAndRecordedLikeScheduledOnes crashes node 3
// by hand and recovers it, while the schedule crashes node 2: the run
// file and the faults record hold both alike, every fault went through
// Applied, and faults that cannot be applied are refused saying why.
func TestManualFaultsAreAppliedAndRecordedLikeScheduledOnes(t *testing.T) {
	path := writeScenario(t, 4, "3s", "faults: [{at: 500ms, crash: [2]}]\n")
	var applied []trace.FaultRecord
	askFault, appliedCh, done := launchManual(t, path, Options{})
	ask := func(id protocol.NodeID, rec bool) error { return askFault(ManualFault{Node: id, Recover: rec}) }
	// The schedule's crash of node 2 comes first (the readiness of every
	// process is awaited through the first one's record).
	applied = append(applied, <-appliedCh)
	if err := ask(3, false); err != nil {
		t.Fatal(err)
	}
	applied = append(applied, <-appliedCh)
	for _, c := range []struct {
		id   protocol.NodeID
		rec  bool
		want string
	}{{3, false, "node 3 is down already"}, {1, true, "node 1 is up"}, {9, false, "node 9 does not run here"}} {
		if err := ask(c.id, c.rec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fault of node %d (recover %v): %v, want %q", c.id, c.rec, err, c.want)
		}
	}
	if err := ask(3, true); err != nil {
		t.Fatal(err)
	}
	applied = append(applied, <-appliedCh)
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	run, err := analysis.ReadDir(o.res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			got = append(got, e.Ev+" "+string(rune('0'+e.Node)))
		}
	}
	if strings.Join(got, ", ") != "crash 2, crash 3, recover 3" {
		t.Errorf("run file faults %q", got)
	}
	checkFaultsRecord(t, o.res.Dir, run.RunEvents)
	for i, r := range applied {
		e := run.RunEvents[0]
		for _, x := range run.RunEvents {
			if (x.Ev == trace.EvCrash || x.Ev == trace.EvRecover) && x.Node == r.Node && x.Ev == r.Ev && x.T == r.T {
				e = x
			}
		}
		if e.T != r.T || r.Host == "" {
			t.Errorf("applied[%d] %+v is not in the run file", i, r)
		}
	}
	if n := len(o.res.Procs[2].PIDs); n != 2 {
		t.Errorf("node 3 ran %d processes, want 2 (the recovery by hand started it again)", n)
	}
}

// TestManualFaultsInASharedProcessAndCuts: with the four nodes in one
// process, node 3 is crashed and recovered by hand inside it (the
// process runs on), and the link 1–2 is cut and healed: each half of
// the cut at its node. All of it is in the run file and the faults
// record alike, with its node's time; what cannot be done is refused.
func TestManualFaultsInASharedProcessAndCuts(t *testing.T) {
	path := writeScenario(t, 4, "3s", "")
	ask, appliedCh, done := launchManual(t, path, Options{IDsPerProcess: 4})
	steps := []struct {
		m    ManualFault
		want string // the error, or "" when applied
		recs int    // records it adds
	}{
		{ManualFault{Node: 3}, "", 1},
		{ManualFault{Node: 3}, "node 3 is down already", 0},
		{ManualFault{Node: 1, Peer: 2}, "", 2},
		{ManualFault{Node: 2, Peer: 1}, "the link 2–1 is cut already", 0},
		{ManualFault{Node: 1, Peer: 1}, "no link between node 1 and itself", 0},
		{ManualFault{Node: 8, Peer: 9}, "nodes 8 and 9 do not run here", 0},
		{ManualFault{Node: 2, Peer: 1, Recover: true}, "", 2},
		{ManualFault{Node: 1, Peer: 2, Recover: true}, "the link 1–2 is not cut", 0},
		{ManualFault{Node: 3, Recover: true}, "", 1},
		{ManualFault{Sides: [2][]protocol.NodeID{{1, 2}, {3, 4}}}, "", 8},
		{ManualFault{Sides: [2][]protocol.NodeID{{1}, {3}}}, "no link between nodes 1 and 3 runs here that is not cut already", 0},
		{ManualFault{Hosts: [2]string{"h1", "h2"}}, "hosts are cut apart in a run over several", 0},
	}
	var applied []trace.FaultRecord
	for _, s := range steps {
		err := ask(s.m)
		if s.want == "" && err != nil || s.want != "" && (err == nil || !strings.Contains(err.Error(), s.want)) {
			t.Fatalf("%+v: %v, want %q", s.m, err, s.want)
		}
		for range s.recs {
			applied = append(applied, <-appliedCh)
		}
	}
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	run, err := analysis.ReadDir(o.res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range run.RunEvents {
		switch e.Ev {
		case trace.EvCrash, trace.EvRecover:
			got = append(got, fmt.Sprintf("%s %d", e.Ev, e.Node))
		case trace.EvCut, trace.EvHeal:
			got = append(got, fmt.Sprintf("%s %d %d", e.Ev, e.Node, e.Peer))
		}
	}
	if want := "crash 3, cut 1 2, cut 2 1, heal 2 1, heal 1 2, recover 3, cut 1 3, cut 3 1, cut 1 4, cut 4 1, cut 2 3, cut 3 2, cut 2 4, cut 4 2"; strings.Join(got, ", ") != want {
		t.Errorf("run file faults %q, want %q", got, want)
	}
	checkFaultsRecord(t, o.res.Dir, run.RunEvents)
	if len(applied) != 14 {
		t.Errorf("applied %+v, want 14 faults", applied)
	}
	if n := len(o.res.Procs[0].PIDs); n != 1 {
		t.Errorf("the shared process ran %d times, want once (node 3 crashed and recovered inside it)", n)
	}
	evs, _, err := trace.ReadFile(trace.NodeFile(o.res.Dir, 3))
	if err != nil {
		t.Fatal(err)
	}
	var crashAt, recoverAt int64 = -1, -1
	for _, e := range evs {
		switch e.Ev {
		case trace.EvCrash:
			crashAt = e.T
		case trace.EvRecover:
			recoverAt = e.T
		}
	}
	if crashAt != applied[0].T || recoverAt != applied[5].T {
		t.Errorf("node 3's trace: crash at %d, recovery at %d; recorded %d and %d", crashAt, recoverAt, applied[0].T, applied[5].T)
	}
}

type launched struct {
	res *Result
	err error
}

// launchManual launches the scenario at path with opt taking faults by
// hand: ask hands one to the launcher and returns its outcome, every
// fault applied comes on the channel, and the launch's outcome on done.
func launchManual(t *testing.T, path string, opt Options) (ask func(ManualFault) error, applied <-chan trace.FaultRecord, done <-chan launched) {
	manual := make(chan ManualFault)
	appliedCh := make(chan trace.FaultRecord, 100)
	doneCh := make(chan launched, 1)
	opt.Manual = manual
	opt.Applied = func(r trace.FaultRecord) { appliedCh <- r }
	go func() {
		res, err := launch(t, path, opt)
		doneCh <- launched{res, err}
	}()
	ask = func(m ManualFault) error {
		m.Done = make(chan error, 1)
		select {
		case manual <- m:
		case <-time.After(20 * time.Second):
			t.Fatal("the launcher took no fault by hand")
		}
		return <-m.Done
	}
	return ask, appliedCh, doneCh
}
