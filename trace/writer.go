package trace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// bufferSize is the buffered writer's buffer: large, because the simulator
// writes millions of short lines and each flush is a system call.
const bufferSize = 1 << 20

// Writer writes events to one trace file, one JSON line per event.
//
// Unbuffered, every line including its newline goes to the file in a
// single write, so a process killed at any moment loses at most the line
// being written. (The real node batches lines with its own writer,
// node/batch.go, which writes the same bytes.) Buffered (the simulator's mode), lines are
// collected in a large buffer and reach the file on Flush, Close or when
// the buffer fills.
//
// A Writer reuses one line buffer and does not allocate per event. It is
// not safe for concurrent use.
type Writer struct {
	path string
	f    *os.File
	// out is f itself when unbuffered, a bufio.Writer over f when
	// buffered; tests swap it to count writes.
	out  io.Writer
	bw   *bufio.Writer
	line []byte
}

// errClosed is returned by a Writer used after Close.
var errClosed = errors.New("writer is closed")

// Create creates (or truncates) the trace file at path, creating its parent
// directories.
func Create(path string, buffered bool) (*Writer, error) {
	f, err := CreateFile(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	w := &Writer{path: path, f: f, out: f, line: make([]byte, 0, 512)}
	if buffered {
		w.bw = bufio.NewWriterSize(f, bufferSize)
		w.out = w.bw
	}
	return w, nil
}

// Path is the file the Writer writes.
func (w *Writer) Path() string { return w.path }

// Write appends e to the file as one line.
func (w *Writer) Write(e *Event) error {
	if w.f == nil {
		return fmt.Errorf("trace %s: %w", w.path, errClosed)
	}
	w.line = append(AppendJSON(w.line[:0], e), '\n')
	if _, err := w.out.Write(w.line); err != nil {
		return fmt.Errorf("trace %s: %w", w.path, err)
	}
	return nil
}

// Flush writes buffered lines to the file. It does nothing unbuffered,
// where every Write already reached the file.
func (w *Writer) Flush() error {
	if w.f == nil {
		return fmt.Errorf("trace %s: %w", w.path, errClosed)
	}
	if w.bw == nil {
		return nil
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("trace %s: %w", w.path, err)
	}
	return nil
}

// Close flushes and closes the file. Closing twice returns an error.
func (w *Writer) Close() error {
	if w.f == nil {
		return fmt.Errorf("trace %s: %w", w.path, errClosed)
	}
	ferr := w.Flush()
	cerr := w.f.Close()
	w.f, w.bw, w.out = nil, nil, nil
	if ferr != nil {
		return ferr
	}
	if cerr != nil {
		return fmt.Errorf("trace %s: %w", w.path, cerr)
	}
	return nil
}
