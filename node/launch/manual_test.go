package launch

import (
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
	manual := make(chan ManualFault)
	var applied []trace.FaultRecord
	appliedCh := make(chan trace.FaultRecord, 10)
	ask := func(id protocol.NodeID, rec bool) error {
		m := ManualFault{Node: id, Recover: rec, Done: make(chan error, 1)}
		select {
		case manual <- m:
		case <-time.After(20 * time.Second):
			t.Fatal("the launcher took no fault by hand")
		}
		return <-m.Done
	}
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := launch(t, path, Options{Manual: manual, Applied: func(r trace.FaultRecord) { appliedCh <- r }})
		done <- outcome{res, err}
	}()
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
