package node

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
)

// batchEvents is a run's worth of varied events, as a node writes them.
func batchEvents(n int) []trace.Event {
	evs := []trace.Event{{Ev: trace.EvHeader, Schema: trace.Schema, Run: "batch", Driver: "node", Protocol: "floodmax", Node: 3, Seed: 9}}
	for i := range n {
		e := trace.Event{T: int64(i) * 1337, Wall: 1_700_000_000_000_000_000 + int64(i), Node: 3,
			HLC: &trace.HLC{Wall: int64(i) * 7, Logical: uint32(i % 5)}}
		switch i % 4 {
		case 0:
			e.Ev, e.Kind, e.From, e.Seq = trace.EvRecv, "max", protocol.NodeID(i%7+1), uint64(i)
		case 1:
			e.Ev, e.Kind, e.Seq = trace.EvSend, "max", uint64(i)
		case 2:
			e.Ev, e.Kind, e.From, e.Reason = trace.EvDrop, "max", 2, "range"
		case 3:
			e.Ev, e.Text = trace.EvStats, fmt.Sprintf("received %d \"quoted\" é", i)
		}
		evs = append(evs, e)
	}
	return evs
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBatchWriterSameBytes: the batched trace is byte for byte the one
// trace.Writer writes unbuffered, whether the buffer is flushed by size
// (a small buffer), by the loop's Flush calls, or only on Close.
func TestBatchWriterSameBytes(t *testing.T) {
	dir := t.TempDir()
	evs := batchEvents(3000)
	ref := filepath.Join(dir, "ref.jsonl")
	w, err := trace.Create(ref, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := w.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := fileBytes(t, ref)
	for _, c := range []struct {
		name       string
		size       int
		flushEvery int
	}{{"close-only", 1 << 30, 0}, {"by-size", 700, 0}, {"flush-every-64", batchSize, 64}, {"flush-every-1", batchSize, 1}} {
		path := filepath.Join(dir, "sub", c.name+".jsonl")
		bw, err := createBatch(path)
		if err != nil {
			t.Fatal(err)
		}
		bw.size, bw.every = c.size, time.Hour
		for i := range evs {
			if err := bw.Write(&evs[i]); err != nil {
				t.Fatal(err)
			}
			if c.flushEvery > 0 && i%c.flushEvery == 0 {
				if err := bw.Flush(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := bw.Close(); err != nil {
			t.Fatal(err)
		}
		if got := fileBytes(t, path); !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes differ from the unbuffered writer's %d", c.name, len(got), len(want))
		}
	}
}

// TestBatchWriterFlushes: lines wait in the buffer until it fills, until
// batchEvery has passed since the last write (on the next Write), until
// Flush, or until Close.
func TestBatchWriterFlushes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node-3.jsonl")
	bw, err := createBatch(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1000, 0)
	bw.now, bw.last = func() time.Time { return clock }, clock
	evs := batchEvents(40)
	lines := func() int { return bytes.Count(fileBytes(t, path), []byte{'\n'}) }
	write := func(i int) {
		t.Helper()
		if err := bw.Write(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}

	write(0)
	write(1)
	clock = clock.Add(batchEvery - time.Millisecond)
	write(2)
	if n := lines(); n != 0 {
		t.Fatalf("%d lines in the file before the interval passed, want 0", n)
	}
	clock = clock.Add(time.Millisecond)
	write(3)
	if n := lines(); n != 4 {
		t.Fatalf("%d lines after the interval passed, want 4", n)
	}

	write(4)
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := lines(); n != 5 {
		t.Fatalf("%d lines after Flush, want 5", n)
	}

	bw.size = len(bw.buf) + 1 // the next line fills it
	write(5)
	if n := lines(); n != 6 {
		t.Fatalf("%d lines after the buffer filled, want 6", n)
	}

	bw.size = batchSize
	write(6)
	write(7)
	if n := lines(); n != 6 {
		t.Fatalf("%d lines before Close, want 6", n)
	}
	if err := bw.Close(); err != nil {
		t.Fatal(err)
	}
	if n := lines(); n != 8 {
		t.Fatalf("%d lines after Close, want 8", n)
	}
	if err := bw.Write(&evs[8]); err == nil {
		t.Error("Write after Close succeeded")
	}
}
