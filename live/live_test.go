package live

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "manetlab/adhoc"
	_ "manetlab/baseline"
	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/sim"
	"manetlab/trace"
	"manetlab/trace/report"
)

// simulated runs the quickstart (node 8 crashes at 20 s, recovers at 40 s)
// into a directory, a file per node.
func simulated(t *testing.T, sets ...string) string {
	t.Helper()
	s, err := scenario.Load("../configs/quickstart.yaml", append([]string{"trace.layout=per-node"}, sets...))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sim.Run(s, sim.Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFollowGrowingFiles copies a simulated run into a directory a piece
// at a time, lines cut in the middle included, and follows it: nothing is
// read before its line ends, every line is read once, and at the end the
// page's state (leaders, the crash and recovery of node 8) and its verdict
// are the run's, the verdict the summary's.
func TestFollowGrowingFiles(t *testing.T) {
	src := simulated(t)
	dir := t.TempDir()
	names, err := filepath.Glob(filepath.Join(src, "*.jsonl"))
	if err != nil || len(names) != 21 {
		t.Fatalf("%d files in the simulated run (%v), want 21", len(names), err)
	}
	data := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		data[filepath.Base(n)] = b
	}
	st := NewState()
	f := NewFollower(dir, st)
	defer f.Close()
	write := func(name string, b []byte) {
		fh, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(b)
		fh.Close()
	}
	// The run file first, then every node file in four pieces, each cut
	// in the middle of a line.
	write(trace.RunFileName, data[trace.RunFileName])
	lines := 0
	for piece := 0; piece < 4; piece++ {
		for name, b := range data {
			if name == trace.RunFileName {
				continue
			}
			write(name, b[cut(b, piece):cut(b, piece+1)])
		}
		k, err := f.Poll()
		if err != nil {
			t.Fatal(err)
		}
		lines += k
		if piece == 1 {
			// Half-way (30 s): node 8 crashed at 20 s and is down.
			s := st.Snapshot(0)
			if s.Now < 25 || s.Now > 30 || nodeView(s, 8).Alive {
				t.Fatalf("half-way: t = %.1f s, node 8 alive %v; want about 30 s, crashed", s.Now, nodeView(s, 8).Alive)
			}
			v := Judge(dir, st, false)
			if v.Error != "" || v.Verdict == "" || len(v.Lines) == 0 || !strings.HasPrefix(v.Lines[0], "verdict: ") {
				t.Fatalf("verdict so far %+v", v)
			}
		}
	}
	want := 0
	for _, b := range data {
		want += bytes.Count(b, []byte("\n"))
	}
	if lines != want {
		t.Fatalf("%d lines read, want %d, each once", lines, want)
	}
	s := st.Snapshot(0)
	if !nodeView(s, 8).Alive || len(s.Nodes) != 20 {
		t.Fatalf("at the end node 8 alive %v, %d nodes", nodeView(s, 8).Alive, len(s.Nodes))
	}
	var crash, recov bool
	for _, e := range s.Log {
		crash = crash || (e.Node == 8 && e.Ev == trace.EvCrash && e.T == 20)
		recov = recov || (e.Node == 8 && e.Ev == trace.EvRecover && e.T == 40)
	}
	if !crash || !recov {
		t.Errorf("the log lacks node 8's crash at 20 s (%v) or recovery at 40 s (%v): %+v", crash, recov, s.Log)
	}
	// Every node's leader is its last leader note.
	for name, b := range data {
		id := nodeFileID(name)
		if id == 0 {
			continue
		}
		var last protocol.NodeID
		for _, l := range bytes.Split(b, []byte("\n")) {
			var e trace.Event
			if trace.Decode(l, &e) == nil && (e.Ev == string(protocol.NoteLeader) || e.Ev == trace.EvStart) {
				last = e.Leader
			}
		}
		if got := nodeView(s, id).Leader; got != last {
			t.Errorf("node %d follows %d on the page, %d in its trace", id, got, last)
		}
	}
	if len(s.Strip) < 55 || s.Totals.Frames == 0 || len(s.Totals.ByKind) == 0 {
		t.Errorf("strip of %d samples, %d frames, kinds %v", len(s.Strip), s.Totals.Frames, s.Totals.ByKind)
	}
	sum, err := report.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v := Judge(dir, st, true); v.Verdict != sum.Verdict || v.Reason != sum.Reason || !v.Final {
		t.Errorf("final verdict %q (%s), the summary's %q (%s)", v.Verdict, v.Reason, sum.Verdict, sum.Reason)
	}
	// A file replaced by another (the run file renamed into place) is
	// read again from its start.
	tmp := filepath.Join(dir, "run.tmp")
	os.WriteFile(tmp, data[trace.RunFileName], 0o644)
	os.Rename(tmp, filepath.Join(dir, trace.RunFileName))
	if k, err := f.Poll(); err != nil || k != bytes.Count(data[trace.RunFileName], []byte("\n")) {
		t.Errorf("the replaced run file: %d lines read (%v)", k, err)
	}
}

// cut is where piece k of a node file ends (k of 4): 5 bytes into the
// first line at 15k s or later.
func cut(b []byte, k int) int {
	if k == 0 {
		return 0
	}
	if k == 4 {
		return len(b)
	}
	off := 0
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		var e trace.Event
		if trace.Decode(bytes.TrimSpace(l), &e) == nil && e.T >= int64(k)*15e9 {
			return off + 5
		}
		off += len(l)
	}
	return len(b)
}

func nodeView(s *Snapshot, id protocol.NodeID) NodeView {
	for _, n := range s.Nodes {
		if n.ID == id {
			return n
		}
	}
	return NodeView{}
}

// TestStateBounded feeds a state two hours of a busy run of 100 nodes:
// its log, its strip and its rates stay within their bounds.
func TestStateBounded(t *testing.T) {
	sc, err := scenario.Parse([]byte("name: b\nduration: 7200s\nnodes: {count: 100}\nmobility: {model: static, area: [500, 500]}\nprotocol: {name: baseline/floodmax}\n"), "b.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState()
	if err := st.SetScenario(&trace.Event{Ev: trace.EvHeader, Run: "b", Driver: "node"}, sc); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for id := protocol.NodeID(1); id <= 100; id++ {
		st.Apply(id, &trace.Event{Node: id, Ev: trace.EvStart}, now)
	}
	for i := int64(0); i < 200000; i++ {
		id := protocol.NodeID(i%100 + 1)
		tt := i * int64(7200*time.Second) / 200000
		st.Apply(id, &trace.Event{T: tt, Node: id, Ev: string(protocol.NoteLeader), Leader: protocol.NodeID(i % 7)}, now)
		st.Apply(id, &trace.Event{T: tt, Node: id, Ev: trace.EvSend, Kind: "k" + string(rune('a'+i%5))}, now)
		st.Apply(id, &trace.Event{T: tt, Node: id, Ev: string(protocol.NoteElectionStart), Epoch: string(rune('a' + i%50))}, now)
	}
	s := st.Snapshot(0)
	if len(s.Log) != LogSize || len(s.Strip) > StripSize || len(s.Ended) > keptElections || len(s.Totals.ByKind) != 5 {
		t.Errorf("log %d (bound %d), strip %d (bound %d), ended elections %d, kinds %d", len(s.Log), LogSize, len(s.Strip), StripSize, len(s.Ended), len(s.Totals.ByKind))
	}
	if s.Now < 7199 || s.Strip[len(s.Strip)-1].T < 7000 {
		t.Errorf("now %.0f, last strip sample %.0f", s.Now, s.Strip[len(s.Strip)-1].T)
	}
}

// TestHostileLines: lines that are no events, of no member, before the
// start or far in the future change nothing they should not and keep the
// state bounded; a link in place of a node file is skipped and said.
func TestHostileLines(t *testing.T) {
	src := simulated(t, "duration=5s")
	dir := t.TempDir()
	for _, n := range []string{"run.jsonl", "node-1.jsonl"} {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	bad := "not json\n{\"t\":-5,\"node\":1,\"ev\":\"send\",\"kind\":\"x\"}\n{\"t\":9000000000000000000,\"node\":1,\"ev\":\"leader\",\"leader\":1}\n" +
		"{\"t\":1,\"node\":999,\"ev\":\"leader\",\"leader\":999}\n" + strings.Repeat("x", 2<<20) + "\n"
	f, _ := os.OpenFile(filepath.Join(dir, "node-1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(bad)
	f.Close()
	os.WriteFile(filepath.Join(dir, "node-999.jsonl"), []byte("{\"t\":1,\"node\":999,\"ev\":\"start\"}\n"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "node-2.jsonl"))
	os.WriteFile(filepath.Join(dir, "node-3.jsonl"), []byte("{\"t\":1,\"node\":3,\"ev\":\"start\"}\n"), 0o644)
	st := NewState()
	fo := NewFollower(dir, st)
	defer fo.Close()
	if _, err := fo.Poll(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(fo.problems(), ";"), "node-2.jsonl:0: not a regular file, skipped") {
		t.Errorf("the planted link is not said: %q", fo.problems())
	}
	s := st.Snapshot(0)
	if len(s.Nodes) != 20 || !nodeView(s, 3).Alive || len(s.Strip) > StripSize || len(fo.Problems) < 2 {
		t.Errorf("%d nodes, node 3 alive %v, strip %d, problems %q", len(s.Nodes), nodeView(s, 3).Alive, len(s.Strip), fo.Problems)
	}
	if _, ok := s.Totals.ByKind["x"]; ok {
		t.Errorf("an event before the start was counted")
	}
}
