package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// ms is a trace time of n milliseconds.
func ms(n int64) int64 { return n * int64(time.Millisecond) }

// writeNodeTrace writes node id's trace in dir: a header of run, then
// events given as "ev@ms".
func writeNodeTrace(t *testing.T, dir, run string, id protocol.NodeID, evs ...string) {
	t.Helper()
	w, err := trace.Create(trace.NodeFile(dir, id), false)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&trace.Event{Node: id, Ev: trace.EvHeader, Schema: trace.Schema, Run: run, Driver: "node", Protocol: "adhoc/vasudevan", Seed: 1})
	for _, s := range evs {
		ev, at, _ := strings.Cut(s, "@")
		var n int64
		fmt.Sscan(at, &n)
		w.Write(&trace.Event{T: ms(n), Node: id, Ev: ev})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// collectedScenario is a 3-node scenario of 2 s whose schedule crashes
// node 2 at 300 ms and recovers it at 1 s: what run --collected must not
// copy.
func collectedScenario(t *testing.T) (*scenario.Scenario, string) {
	t.Helper()
	s, err := scenario.Load(writeScenario(t, 3, "2s", "faults: [{at: 300ms, crash: [2]}, {at: 1s, recover: [2]}]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, t.TempDir()
}

// faultsOf lists the run file's crashes and recoveries as "ev node@ms".
func faultsOf(t *testing.T, dir string) string {
	t.Helper()
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			out = append(out, fmt.Sprintf("%s %d@%d", e.Ev, e.Node, e.T/int64(time.Millisecond)))
		}
	}
	return strings.Join(out, ", ")
}

// The case: nobody killed anything (every trace runs from start
// to end) while the scenario schedules a crash. Without a faults record
// the run file records no fault: the schedule is never copied.
func TestCollectedNeverCopiesTheSchedule(t *testing.T) {
	s, dir := collectedScenario(t)
	for id := protocol.NodeID(1); id <= 3; id++ {
		writeNodeTrace(t, dir, "c", id, "start@1", "leader@100", "end@2000")
	}
	c, err := WriteCollectedRunFile(dir, "c", s)
	if err != nil {
		t.Fatal(err)
	}
	if c.FromRecord || len(c.Faults) != 0 || len(c.Warnings) != 0 {
		t.Errorf("collected %+v, want no fault, no warning", c)
	}
	if got := faultsOf(t, dir); got != "" {
		t.Errorf("run file faults %q, want none", got)
	}
}

// Without a record, the faults are what the traces show: a crash at the
// last event of a process life that ends without an end event, a
// recovery where the next life begins (a real node writes recover, then
// start); a trace that stops for good is a crash too.
func TestCollectedFaultsFromTheTraces(t *testing.T) {
	s, dir := collectedScenario(t)
	writeNodeTrace(t, dir, "c", 1, "start@1", "end@2000")
	writeNodeTrace(t, dir, "c", 2, "start@1", "leader@250", "recover@1200", "start@1201", "leader@1300", "end@2000")
	writeNodeTrace(t, dir, "c", 3, "start@1", "leader@500")
	c, err := WriteCollectedRunFile(dir, "c", s)
	if err != nil {
		t.Fatal(err)
	}
	if c.FromRecord || len(c.Warnings) != 0 {
		t.Errorf("collected %+v", c)
	}
	if got, want := faultsOf(t, dir), "crash 2@250, crash 3@500, recover 2@1200"; got != want {
		t.Errorf("run file faults %q, want %q", got, want)
	}
}

// With a faults record the run file takes its faults, at their real
// times; a node whose trace goes on after its recorded crash, and one
// that restarted with no recorded recovery, are warned of.
func TestCollectedFaultsFromTheRecord(t *testing.T) {
	s, dir := collectedScenario(t)
	writeNodeTrace(t, dir, "c", 1, "start@1", "end@2000")
	writeNodeTrace(t, dir, "c", 2, "start@1", "leader@250", "send@600", "send@700", "recover@1000", "start@1001", "end@2000")
	writeNodeTrace(t, dir, "c", 3, "start@1", "leader@400", "recover@900", "start@901", "end@2000")
	rec := fmt.Sprintf(`{"node":2,"ev":"crash","t":%d,"host":"h2"}`+"\n"+`{"node":2,"ev":"recover","t":%d,"host":"h2"}`+"\n", ms(305), ms(999))
	if err := os.WriteFile(trace.FaultsFile(dir), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := WriteCollectedRunFile(dir, "c", s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := faultsOf(t, dir), "crash 2@305, recover 2@999"; got != want || !c.FromRecord {
		t.Errorf("run file faults %q (from the record: %v), want %q", got, c.FromRecord, want)
	}
	want := []string{
		"node 2 has 2 events after its recorded crash at 0.305s and before its recovery at 0.999s (0.600s to 0.700s)",
		"node 3's trace stops at 0.400s without an end event and no crash is recorded",
		"node 3's trace starts again at 0.900s with no recorded recovery before it",
	}
	got := strings.Join(c.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("warnings:\n%s\nlack %q", got, w)
		}
	}
	if len(c.Warnings) != len(want) {
		t.Errorf("%d warnings, want %d:\n%s", len(c.Warnings), len(want), got)
	}
}

// A bad line in the faults record is an error naming the file, the line
// and the field; nothing is written from it.
func TestCollectedBadFaultsRecord(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"node":2,"ev":"crashed","t":5}`, `faults.jsonl:2: ev: "crashed"; want "crash", "recover", "cut" or "heal"`},
		{`{"node":2,"ev":"cut","t":5}`, `faults.jsonl:2: peer: 0; a cut names the other node of the link`},
		{`{"node":2,"ev":"cut","t":5,"peer":2}`, `faults.jsonl:2: peer: 2; a cut names the other node of the link`},
		{`{"node":2,"ev":"heal","t":5,"peer":9}`, `faults.jsonl:2: peer: 9 is no member of the scenario`},
		{`{"node":2,"ev":"crash","t":5,"peer":1}`, `faults.jsonl:2: peer: 1; a crash names no peer`},
		{`{"node":9,"ev":"crash","t":5}`, `faults.jsonl:2: node: 9 is no member of the scenario`},
		{`{"node":2,"ev":"crash","t":2000000000}`, `faults.jsonl:2: t: 2s is at or after the run's end 2s`},
		{`{"node":2,"ev":"crash","t":-1}`, `faults.jsonl:2: t: -1 is before the run's start`},
		{`{"node":"two","ev":"crash","t":1}`, `faults.jsonl:2: node: `},
		{`{"node":2,`, `faults.jsonl:2: not a fault record`},
	}
	for _, tc := range cases {
		s, dir := collectedScenario(t)
		writeNodeTrace(t, dir, "c", 1, "start@1", "end@2000")
		os.WriteFile(trace.FaultsFile(dir), []byte(`{"node":1,"ev":"crash","t":5,"host":"a"}`+"\n"+tc.line+"\n"), 0o644)
		_, err := WriteCollectedRunFile(dir, "c", s)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Join(dir, "faults.jsonl")) {
			t.Errorf("%s: error %v, want %q", tc.line, err, tc.want)
		}
	}
}

// TestCollectedRunEndsWhereTheTracesStop: traces that all stop early
// with end events (an interrupted run) give the run its length, and say
// so; so does an earlier run file of the run that ended early; a node
// crashed early (no end event) does not shorten the run.
func TestCollectedRunEndsWhereTheTracesStop(t *testing.T) {
	s, dir := collectedScenario(t) // 2 s
	for _, id := range []protocol.NodeID{1, 2, 3} {
		writeNodeTrace(t, dir, "r", id, "start@1", "leader@100", "stats@600", "end@600")
	}
	c, err := WriteCollectedRunFile(dir, "r", s)
	if err != nil {
		t.Fatal(err)
	}
	if c.End != 600*time.Millisecond || !strings.Contains(c.EndFrom, "the traces' last events") {
		t.Errorf("interrupted at 600 ms: end %v (%q)", c.End, c.EndFrom)
	}
	if end := runEnd(t, dir); end != ms(600) {
		t.Errorf("run file ends at %d, want 600 ms", end)
	}
	// Again, with that run file there: its end is kept.
	if c, err = WriteCollectedRunFile(dir, "r", s); err != nil || c.End != 600*time.Millisecond || !strings.Contains(c.EndFrom, "the end recorded in the run file") {
		t.Errorf("again: end %v (%q), %v", c.End, c.EndFrom, err)
	}

	s, dir = collectedScenario(t)
	writeNodeTrace(t, dir, "r", 1, "start@1", "leader@100", "end@2000")
	writeNodeTrace(t, dir, "r", 2, "start@1", "leader@100")
	writeNodeTrace(t, dir, "r", 3, "start@1", "leader@100", "end@2000")
	if c, err = WriteCollectedRunFile(dir, "r", s); err != nil || c.End != 2*time.Second || c.EndFrom != "" {
		t.Errorf("a whole run with a crash: end %v (%q), %v", c.End, c.EndFrom, err)
	}
}

// runEnd is the run file's end event's time.
func runEnd(t *testing.T, dir string) int64 {
	t.Helper()
	run, err := analysis.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range run.RunEvents {
		if e.Ev == trace.EvEnd {
			return e.T
		}
	}
	return -1
}
