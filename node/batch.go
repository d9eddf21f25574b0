package node

import (
	"fmt"
	"os"
	"time"

	"manetlab/trace"
)

// The trace writer batches lines: one write(2) per line cost a node about
// as much CPU per received frame as the rest of its receive path (issue
// 15). Lines collect in a buffer that reaches the file when it holds
// batchSize bytes, when batchEvery has passed since the last write, when
// the loop has handled a batch of frames or timers (Host.flushTraces,
// before the loop waits again) and on Close. A process killed at any
// moment therefore loses at most the events of the batch being processed,
// and at most one cut line (a write(2) of many lines can be cut too).

const (
	// batchSize is the buffered bytes that force a write: small, as a
	// node's trace grows by a few hundred lines a second at most outside
	// a flood of frames.
	batchSize = 32 << 10
	// batchEvery bounds how long a line waits in the buffer while the
	// loop is busy without pause.
	batchEvery = 50 * time.Millisecond
	// frameBatch is the most frames the loop handles before it flushes
	// the traces and looks at its timers again.
	frameBatch = 64
)

// batchWriter writes a node's trace lines to its file in batches. Its
// bytes are exactly those trace.Writer writes for the same events.
type batchWriter struct {
	f     *os.File
	buf   []byte
	size  int
	every time.Duration
	now   func() time.Time // time.Now; tests set it
	last  time.Time        // the last write to the file
}

func newBatchWriter(f *os.File) *batchWriter {
	return &batchWriter{f: f, buf: make([]byte, 0, batchSize+1024), size: batchSize, every: batchEvery,
		now: time.Now, last: time.Now()}
}

// createBatch creates (or truncates) the trace at path, creating its
// parent directories.
func createBatch(path string) (*batchWriter, error) {
	f, err := trace.CreateFile(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return newBatchWriter(f), nil
}

// Write adds e's line to the buffer, and writes the buffer out when it is
// full or has waited batchEvery.
func (w *batchWriter) Write(e *trace.Event) error {
	if w.f == nil {
		return fmt.Errorf("trace: write after close")
	}
	w.buf = append(trace.AppendJSON(w.buf, e), '\n')
	if len(w.buf) >= w.size || w.now().Sub(w.last) >= w.every {
		return w.Flush()
	}
	return nil
}

// Flush writes the buffered lines to the file in one write(2).
func (w *batchWriter) Flush() error {
	if w.f == nil {
		return fmt.Errorf("trace: flush after close")
	}
	w.last = w.now()
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.f.Write(w.buf)
	w.buf = w.buf[:0]
	if err != nil {
		return fmt.Errorf("trace %s: %w", w.f.Name(), err)
	}
	return nil
}

// Close flushes and closes the file.
func (w *batchWriter) Close() error {
	if w.f == nil {
		return fmt.Errorf("trace: close twice")
	}
	ferr := w.Flush()
	cerr := w.f.Close()
	w.f = nil
	if ferr != nil {
		return ferr
	}
	return cerr
}

// flushTraces writes out every hosted node's buffered trace lines: the
// loop calls it when it has handled a batch and is about to wait.
func (h *Host) flushTraces() {
	for _, n := range h.nodes {
		if n.traceErr != nil || n.out == nil {
			continue
		}
		if err := n.out.Flush(); err != nil {
			h.traceFailed(n, err)
		}
	}
}
