package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// hlcClock is a node's hybrid logical clock over a skewed wall clock.
type hlcClock struct {
	skew time.Duration
	w    int64
	l    uint32
}

func (c *hlcClock) tick(pt int64) trace.HLC {
	if pt > c.w {
		c.w, c.l = pt, 0
	} else {
		c.l++
	}
	return trace.HLC{Wall: c.w, Logical: c.l}
}

func (c *hlcClock) recv(pt int64, m trace.HLC) trace.HLC {
	w := max(c.w, m.Wall, pt)
	switch {
	case w == c.w && w == m.Wall:
		c.l = max(c.l, m.Logical) + 1
	case w == c.w:
		c.l++
	case w == m.Wall:
		c.l = m.Logical + 1
	default:
		c.l = 0
	}
	c.w = w
	return trace.HLC{Wall: c.w, Logical: c.l}
}

// skewedRun writes a three-node run of real nodes: each node in turn
// broadcasts a frame that the two others receive 1 ms later, and leader
// notes in between. skew shifts each node's wall clock; withHLC says
// whether events carry a hybrid logical clock (else only wall and a
// per-node monotonic t).
func skewedRun(t *testing.T, dir string, skew map[protocol.NodeID]time.Duration, withHLC bool) {
	t.Helper()
	const base = int64(1_700_000_000_000_000_000)
	ids := []protocol.NodeID{1, 2, 3}
	clocks := map[protocol.NodeID]*hlcClock{}
	evs := map[protocol.NodeID][]trace.Event{}
	seq := map[protocol.NodeID]uint64{}
	for _, id := range ids {
		clocks[id] = &hlcClock{skew: skew[id]}
	}
	stamp := func(id protocol.NodeID, now time.Duration, e trace.Event, m *trace.HLC) trace.Event {
		wall := base + int64(now+skew[id])
		e.Node, e.Wall, e.T = id, wall, int64(now+skew[id]/3) // t: a monotonic clock with its own origin
		if withHLC {
			var h trace.HLC
			if m != nil {
				h = clocks[id].recv(wall, *m)
			} else {
				h = clocks[id].tick(wall)
			}
			e.HLC = &h
		}
		evs[id] = append(evs[id], e)
		return e
	}
	now := time.Duration(0)
	for round := range 6 {
		for _, id := range ids {
			now += 50 * time.Millisecond
			seq[id]++
			s := stamp(id, now, trace.Event{Ev: trace.EvSend, Kind: "election", Seq: seq[id], Bytes: 10}, nil)
			for _, o := range ids {
				if o == id {
					continue
				}
				ev := trace.Event{Ev: trace.EvRecv, Kind: "election", From: id, Seq: seq[id]}
				if round == 2 && o == 3 {
					ev.Ev, ev.Reason = trace.EvDrop, "loss"
				}
				stamp(o, now+time.Millisecond, ev, s.HLC)
			}
			now += 2 * time.Millisecond
			stamp(id, now, trace.Event{Ev: string(protocol.NoteLeader), Leader: 3, Epoch: "1.3"}, nil)
		}
	}
	writeTrace(t, trace.RunFile(dir), "r1", 0, "")
	for _, id := range ids {
		writeTrace(t, trace.NodeFile(dir, id), "r1", id, "", evs[id]...)
	}
}

// checkCausal asserts that merged events keep every file's order and put
// every receive after its send.
func checkCausal(t *testing.T, merged []trace.Event) {
	t.Helper()
	lastLine := map[string]int{}
	sent := map[[2]uint64]bool{}
	for i, e := range merged {
		file, lineStr, ok := strings.Cut(e.Src, ".jsonl:")
		if !ok {
			t.Fatalf("merged line %d has no src: %+v", i+1, e)
		}
		line, _ := strconv.Atoi(lineStr)
		if line <= lastLine[file] && i > 0 {
			t.Errorf("merged line %d: %s comes after line %d of the same file", i+1, e.Src, lastLine[file])
		}
		lastLine[file] = line
		switch e.Ev {
		case trace.EvSend, trace.EvRelay:
			sent[[2]uint64{uint64(e.Node), e.Seq}] = true
		case trace.EvRecv, trace.EvDrop:
			if !sent[[2]uint64{uint64(e.From), e.Seq}] {
				t.Errorf("merged line %d: %s (from %d seq %d) precedes its send", i+1, e.Src, e.From, e.Seq)
			}
		}
	}
}

func TestMergeSkewedClocks(t *testing.T) {
	for _, skew := range []time.Duration{5 * time.Second, -5 * time.Second} {
		for _, withHLC := range []bool{true, false} {
			t.Run(skew.String()+map[bool]string{true: "/hlc", false: "/wall-only"}[withHLC], func(t *testing.T) {
				dir := t.TempDir()
				skewedRun(t, dir, map[protocol.NodeID]time.Duration{2: skew}, withHLC)
				out := filepath.Join(t.TempDir(), "merged.jsonl")
				var buf bytes.Buffer
				rep, err := Merge([]string{dir}, &buf)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				merged := readLines(t, out)
				if merged[0].Ev != trace.EvHeader || merged[0].Run != "r1" {
					t.Fatalf("first merged line is not the run header: %+v", merged[0])
				}
				// 18 sends, 36 receives or drops, 18 leader notes.
				if got := len(merged) - 1; got != 72 || rep.Events != 72 {
					t.Fatalf("merged %d events (report %d), want 72", got, rep.Events)
				}
				checkCausal(t, merged[1:])
				if rep.Matched != 36 || rep.Unmatched != 0 {
					t.Errorf("matched %d, unmatched %d; want 36, 0", rep.Matched, rep.Unmatched)
				}
				if withHLC && rep.Repaired != 0 {
					t.Errorf("HLC traces needed %d repairs, want 0", rep.Repaired)
				}
				if !withHLC && rep.Repaired == 0 {
					t.Errorf("wall clocks skewed by %v needed no repair: the test does not test the topological pass", skew)
				}
				if len(rep.Offsets) != 3 {
					t.Fatalf("offsets: %+v", rep.Offsets)
				}
				for _, o := range rep.Offsets {
					want := int64(0)
					if o.Node == 2 {
						want = int64(skew)
					}
					if !o.Known || o.Reference != "node 1" || absDiff(o.Offset, want) > int64(time.Millisecond) || o.Uncertainty > int64(3*time.Millisecond) {
						t.Errorf("node %d offset %v ±%v against %s, want %v", o.Node, time.Duration(o.Offset), time.Duration(o.Uncertainty), o.Reference, time.Duration(want))
					}
				}
			})
		}
	}
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestMergeRejectsMixedRuns(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	skewedRun(t, a, nil, true)
	writeTrace(t, trace.NodeFile(b, 4), "r2", 4, "", trace.Event{Node: 4, Ev: trace.EvStart})
	_, err := Merge([]string{a, b}, &bytes.Buffer{})
	if err == nil {
		t.Fatal("merging two runs succeeded")
	}
	for _, want := range []string{trace.RunFile(a), trace.NodeFile(b, 4), `"r2"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestMergeDuplicatesAndTruncation(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	skewedRun(t, a, map[protocol.NodeID]time.Duration{3: -5 * time.Second}, true)
	// The same node file collected twice, from two machines.
	data, err := os.ReadFile(trace.NodeFile(a, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace.NodeFile(b, 2), data, 0o644); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, trace.NodeFile(a, 1), `{"t":999,"node":1,"ev":"se`)
	var buf bytes.Buffer
	rep, err := Merge([]string{a, b}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != 72 {
		t.Errorf("merged %d events, want the 72 distinct ones", rep.Events)
	}
	if rep.Duplicates != 24 {
		t.Errorf("%d duplicates, want node 2's 24 events", rep.Duplicates)
	}
	problems := strings.Join(rep.Problems, "\n")
	wantTrunc := trace.NodeFile(a, 1) + ":26: " + trace.MsgTruncated
	if !strings.Contains(problems, wantTrunc) {
		t.Errorf("problems do not report %q:\n%s", wantTrunc, problems)
	}
	if !strings.Contains(problems, trace.NodeFile(b, 2)+":2: duplicate of "+trace.NodeFile(a, 2)+":2") {
		t.Errorf("problems do not name the duplicate's file:line:\n%s", problems)
	}
	out := filepath.Join(t.TempDir(), "m.jsonl")
	os.WriteFile(out, buf.Bytes(), 0o644)
	checkCausal(t, readLines(t, out)[1:])
}
