package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lines(evs []Event) string {
	var b []byte
	for i := range evs {
		b = append(AppendJSON(b, &evs[i]), '\n')
	}
	return string(b)
}

// TestTruncatedLastLine cuts the last line at every byte: the earlier
// events all come back, with one Problem on the right line; a cut that
// leaves the whole JSON but not the newline loses nothing.
func TestTruncatedLastLine(t *testing.T) {
	evs := readableEvents(21, 6)
	head := lines(evs[:5])
	last := string(AppendJSON(nil, &evs[5]))
	path := filepath.Join(t.TempDir(), "node-1.jsonl")
	for cut := 1; cut <= len(last); cut++ {
		writeFile(t, path, head+last[:cut])
		got, probs, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if cut == len(last) {
			if len(got) != 6 || len(probs) != 0 {
				t.Fatalf("complete last line without newline: %d events, problems %v", len(got), probs)
			}
			continue
		}
		if !reflect.DeepEqual(got, evs[:5]) {
			t.Fatalf("cut at %d: got %d events, want the first 5", cut, len(got))
		}
		want := []Problem{{path, 6, MsgTruncated}}
		if !reflect.DeepEqual(probs, want) {
			t.Fatalf("cut at %d (%q): problems %v, want %v", cut, last[:cut], probs, want)
		}
	}
}

func TestGarbageLinesAreReportedAndSkipped(t *testing.T) {
	evs := readableEvents(22, 3)
	content := lines(evs[:1]) + // 1
		"this is not json\n" + // 2
		"\n" + // 3: skipped silently
		`{"t":1,"node":2}` + "\n" + // 4: no ev
		"[1,2,3]\n" + // 5
		lines(evs[1:2]) + // 6
		`{"t":"soon","node":1,"ev":"send"}` + "\n" + // 7: wrong type
		"   \r\n" + // 8: blank
		`{"t":9,"node":1,"ev":"send","future":{"x":[1]}}` + "\r\n" + // 9: unknown field, CRLF
		`{"t":5,"no{"t":6,"node":1,"ev":"recv"}` + "\n" + // 10: a cut line glued to the next
		"null\n" + // 11
		lines(evs[2:3]) // 12
	path := filepath.Join(t.TempDir(), "node-1.jsonl")
	writeFile(t, path, content)

	var got []Event
	var at []int
	probs, err := Scan(path, func(e *Event, line int) error {
		got = append(got, *e)
		at = append(at, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantAt := []int{1, 6, 9, 12}
	if !reflect.DeepEqual(at, wantAt) {
		t.Fatalf("events at lines %v, want %v", at, wantAt)
	}
	if !reflect.DeepEqual(got[0], evs[0]) || !reflect.DeepEqual(got[1], evs[1]) || !reflect.DeepEqual(got[3], evs[2]) {
		t.Fatal("events around the garbage changed")
	}
	if got[2].T != 9 || got[2].Ev != EvSend {
		t.Fatalf("line with an unknown field read as %+v", got[2])
	}
	var probLines []int
	for _, p := range probs {
		probLines = append(probLines, p.Line)
		if p.File != path || strings.Contains(p.Msg, "truncated") {
			t.Errorf("problem %v: wrong file or called a truncation", p)
		}
	}
	if want := []int{2, 4, 5, 7, 10, 11}; !reflect.DeepEqual(probLines, want) {
		t.Fatalf("problems on lines %v, want %v: %v", probLines, want, probs)
	}
	if !strings.Contains(probs[1].Msg, `"ev"`) {
		t.Errorf("missing ev reported as %q", probs[1].Msg)
	}
}

func TestLongLines(t *testing.T) {
	big := Event{T: 1, Ev: EvHeader, Scenario: strings.Repeat("nodes: 12345\n", 200_000)} // 2.6 MB
	small := Event{T: 2, Node: 1, Ev: EvEnd}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	writeFile(t, path, lines([]Event{big, small, big}))
	got, probs, err := ReadFile(path)
	if err != nil || len(probs) != 0 {
		t.Fatalf("err %v, problems %v", err, probs)
	}
	if !reflect.DeepEqual(got, []Event{big, small, big}) {
		t.Fatal("long lines did not round-trip")
	}

	// Lines over the limit are skipped, in the middle and at the end.
	defer func(old int) { maxLine = old }(maxLine)
	maxLine = 1 << 20
	writeFile(t, path, lines([]Event{small, big, small})+lines([]Event{big})[:len(lines([]Event{big}))-1])
	got, probs, err = ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(probs) != 2 || probs[0].Line != 2 || probs[1].Line != 4 {
		t.Fatalf("over the limit: %d events, problems %v", len(got), probs)
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node-4.jsonl")
	writeFile(t, path, lines(readableEvents(23, 10)))
	stop := errors.New("enough")
	calls := 0
	_, err := Scan(path, func(*Event, int) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 || !strings.Contains(err.Error(), path+":3:") {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}

func TestReadFileErrors(t *testing.T) {
	_, _, err := ReadFile(filepath.Join(t.TempDir(), "absent.jsonl"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, _, err := ReadFile(t.TempDir()); err == nil {
		t.Fatal("reading a directory succeeded")
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	writeFile(t, empty, "")
	if evs, probs, err := ReadFile(empty); err != nil || len(evs) != 0 || len(probs) != 0 {
		t.Fatalf("empty file: %v %v %v", evs, probs, err)
	}
}

func TestProblemString(t *testing.T) {
	if s := (Problem{"a/node-1.jsonl", 12, "bad"}).String(); s != "a/node-1.jsonl:12: bad" {
		t.Errorf("got %q", s)
	}
	if s := (Problem{"a/node-1.jsonl", 0, "bad"}).String(); s != "a/node-1.jsonl: bad" {
		t.Errorf("got %q", s)
	}
}

func TestScanEventsSkipsOtherTypesButNotDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.jsonl")
	w, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{EvSend, EvRecv, "leader", EvRecv, EvSend, "leader"}
	for i, k := range kinds {
		if err := w.Write(&Event{T: int64(i), Node: 1, Ev: k}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"t":9,"node":1,"ev":"recv","fr`) // a cut last line
	f.Close()
	var got []int64
	probs, err := ScanEvents(path, func(ev string) bool { return ev == "leader" }, func(e *Event, _ int) error {
		got = append(got, e.T)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[2 5]" {
		t.Fatalf("kept events at %v, want [2 5]", got)
	}
	if len(probs) != 1 || probs[0].Line != 7 || probs[0].Msg != MsgTruncated {
		t.Fatalf("problems %v, want the truncated line 7", probs)
	}
}

// TestScanAheadAsScanLines: reading ahead on another goroutine hands fn
// the same events, lines and problems as reading in turn, over many
// batches, damaged lines and more of them than are listed; and a fn that
// stops at any line gets the problems of the lines before it only.
func TestScanAheadAsScanLines(t *testing.T) {
	var b strings.Builder
	evs := readableEvents(5, 3*aheadBatch+17)
	for i := range evs {
		switch i % 31 {
		case 3:
			b.WriteString("{not json\n")
		case 20:
			b.WriteString("\n")
		}
		b.Write(AppendJSON(nil, &evs[i]))
		b.WriteByte('\n')
	}
	b.WriteString(`{"t":1,"node":2,"ev":"send"`) // cut last line
	path := filepath.Join(t.TempDir(), "node-2.jsonl")
	writeFile(t, path, b.String())
	type got struct {
		lines []string
		probs []Problem
		err   string
	}
	scan := func(ahead bool, keep func(string) bool, stopAt int) got {
		var g got
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fn := func(e *Event, line int) error {
			if line == stopAt {
				return errors.New("stop")
			}
			g.lines = append(g.lines, fmt.Sprintf("%d %s", line, AppendJSON(nil, e)))
			return nil
		}
		var err2 error
		if ahead {
			g.probs, err2 = scanAhead(f, path, maxLine, keep, fn)
		} else {
			g.probs, err2 = scanLines(f, path, maxLine, keep, fn)
		}
		if err2 != nil {
			g.err = err2.Error()
		}
		return g
	}
	sends := func(ev string) bool { return ev == EvSend }
	for _, keep := range []func(string) bool{nil, sends} {
		for _, stop := range []int{-1, 1, 2, 5, 200, aheadBatch + 3, 2*aheadBatch + 40, 3*aheadBatch + 30} {
			want, have := scan(false, keep, stop), scan(true, keep, stop)
			if !reflect.DeepEqual(want, have) {
				t.Fatalf("keep %v, stop at line %d: ahead differs:\n%d lines, %d problems, err %q\nin turn %d lines, %d problems, err %q",
					keep != nil, stop, len(have.lines), len(have.probs), have.err, len(want.lines), len(want.probs), want.err)
			}
			if stop < 0 && len(want.probs) < MaxListed {
				t.Fatalf("only %d problems: the test wants more than are listed", len(want.probs))
			}
		}
	}
}

// TestAheadNoteKeepsStateOfWhatWasHandedOut: a keep that depends on the
// events handed out so far (the merge's index pass: a node's first line
// is decoded whatever its type) decides the same lines ahead, from the
// record note keeps, as it does in turn from the caller's, damaged lines
// (which hand nothing out) included.
func TestAheadNoteKeepsStateOfWhatWasHandedOut(t *testing.T) {
	var b strings.Builder
	for i := range 3*aheadBatch + 50 {
		node := 1 + i%7
		if i%5 == 0 {
			node = 8 + i // a node's first line, of any type
		}
		switch {
		case i%41 == 3:
			fmt.Fprintf(&b, `{"t":%d,"node":%d,"ev":"recv",broken`+"\n", i, node)
			continue
		case i%2 == 0:
			fmt.Fprintf(&b, `{"t":%d,"node":%d,"ev":"recv","from":3}`+"\n", i, node)
		default:
			fmt.Fprintf(&b, `{"t":%d,"node":%d,"ev":"send","kind":"x"}`+"\n", i, node)
		}
	}
	data := b.String()
	keepWith := func(seen map[uint32]bool) func(string, []byte) bool {
		return func(ev string, raw []byte) bool {
			if raw == nil || ev == EvSend {
				return true
			}
			var e Event
			if Decode(raw, &e) != nil {
				return true
			}
			return !seen[uint32(e.Node)]
		}
	}
	var want, got []string
	inTurn := map[uint32]bool{}
	lr := NewLineReader(strings.NewReader(data), "x.jsonl", 4<<10)
	for {
		e, n, err := lr.Next(keepWith(inTurn))
		if err != nil || e == nil {
			break
		}
		inTurn[uint32(e.Node)] = true
		want = append(want, fmt.Sprintf("%d %s", n, AppendJSON(nil, e)))
	}
	ahead := map[uint32]bool{}
	a := NewAhead(NewLineReader(strings.NewReader(data), "x.jsonl", 4<<10), keepWith(ahead), func(e *Event) { ahead[uint32(e.Node)] = true })
	for {
		e, n, err := a.Next()
		if err != nil || e == nil {
			break
		}
		got = append(got, fmt.Sprintf("%d %s", n, AppendJSON(nil, e)))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ahead handed out %d events, in turn %d", len(got), len(want))
	}
	if !reflect.DeepEqual(a.Problems(), lr.Problems) || len(lr.Problems) == 0 {
		t.Fatalf("problems ahead %v, in turn %v", a.Problems(), lr.Problems)
	}
	if len(want) >= 3*aheadBatch+50-20 {
		t.Fatalf("%d events handed out: keep skipped too few lines to test it", len(want))
	}
}
