package trace

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// readableEvents draws n random events that survive a round trip: valid
// UTF-8 everywhere and a non-empty ev.
func readableEvents(seed uint64, n int) []Event {
	r := rand.New(rand.NewPCG(seed, 2))
	var evs []Event
	for len(evs) < n {
		e := randEvent(r)
		if !validStrings(e) {
			continue
		}
		if e.Ev == "" {
			e.Ev = EvSend
		}
		evs = append(evs, *e)
	}
	return evs
}

func writeAll(t *testing.T, w *Writer, evs []Event) {
	t.Helper()
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriterRoundTrip(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "deep", "er", "node-1.jsonl")
		want := readableEvents(7, 500)
		w, err := Create(path, buffered)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, w, want)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, probs, err := ReadFile(path)
		if err != nil || len(probs) != 0 {
			t.Fatalf("buffered=%v: err %v, problems %v", buffered, err, probs)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("buffered=%v: read back %d events that differ from the %d written", buffered, len(got), len(want))
		}
	}
}

// TestUnbufferedSurvivesWithoutClose reads the file from another handle
// while the writer is still open, as after a kill: every written event
// must be there, and nothing else.
func TestUnbufferedSurvivesWithoutClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node-3.jsonl")
	w, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	evs := readableEvents(11, 200)
	for i := range evs {
		writeAll(t, w, evs[i:i+1])
		if i%37 != 0 {
			continue
		}
		got, probs, err := ReadFile(path)
		if err != nil || len(probs) != 0 || len(got) != i+1 {
			t.Fatalf("after %d writes: read %d events, problems %v, err %v", i+1, len(got), probs, err)
		}
	}
}

func TestBufferedHoldsUntilFlush(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := Create(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	writeAll(t, w, readableEvents(3, 50))
	if got, _, _ := ReadFile(path); len(got) != 0 {
		t.Fatalf("buffered writer wrote %d events before Flush", len(got))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, probs, _ := ReadFile(path); len(got) != 50 || len(probs) != 0 {
		t.Fatalf("after Flush: %d events, problems %v", len(got), probs)
	}
}

// countingWriter records every Write call it passes on.
type countingWriter struct {
	to    io.Writer
	calls [][]byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.calls = append(c.calls, bytes.Clone(p))
	return c.to.Write(p)
}

func TestUnbufferedOneWritePerLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node-1.jsonl")
	w, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	cw := &countingWriter{to: w.out}
	w.out = cw
	evs := readableEvents(5, 100)
	writeAll(t, w, evs)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(cw.calls) != len(evs) {
		t.Fatalf("%d writes for %d events", len(cw.calls), len(evs))
	}
	for i, p := range cw.calls {
		if bytes.IndexByte(p, '\n') != len(p)-1 {
			t.Fatalf("write %d is not exactly one line: %q", i, p)
		}
	}
}

func TestWriterDoesNotAllocate(t *testing.T) {
	evs := readableEvents(9, 64)
	for _, buffered := range []bool{false, true} {
		w, err := Create(filepath.Join(t.TempDir(), "node-1.jsonl"), buffered)
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, w, evs) // grow the line buffer to its steady size
		i := 0
		allocs := testing.AllocsPerRun(500, func() {
			if err := w.Write(&evs[i%len(evs)]); err != nil {
				t.Fatal(err)
			}
			i++
		})
		if allocs != 0 {
			t.Errorf("buffered=%v: %v allocations per Write", buffered, allocs)
		}
		w.Close()
	}
}

func TestCreateTruncatesAndCloseTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node-2.jsonl")
	if err := os.WriteFile(path, []byte("old content\nmore old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, w, []Event{{T: 1, Node: 2, Ev: EvStart}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, probs, err := ReadFile(path)
	if err != nil || len(probs) != 0 || len(got) != 1 || got[0].Ev != EvStart {
		t.Fatalf("got %v, problems %v, err %v", got, probs, err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close returned no error")
	}
	if err := w.Write(&got[0]); err == nil {
		t.Error("Write after Close returned no error")
	}
}

func TestCreateFailsUnderAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(filepath.Join(file, "node-1.jsonl"), false); err == nil {
		t.Fatal("Create under a regular file succeeded")
	}
}

func BenchmarkWriterBuffered(b *testing.B) {
	w, err := Create(filepath.Join(b.TempDir(), "run.jsonl"), true)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	evs := benchEvents()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := w.Write(&evs[i%len(evs)]); err != nil {
			b.Fatal(err)
		}
	}
}
