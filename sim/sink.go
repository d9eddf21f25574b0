package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"manetlab/trace"
)

// flushAt is the per-file buffer size: small, because a 10,000-node run
// holds 10,000 of them.
const flushAt = 16 << 10

// spareFiles is how many descriptors the sink leaves to the rest of the
// process when it decides whether to keep every trace file open.
const spareFiles = 256

// sink writes the trace files of a run: one per node (by index) and the
// run file (index len(nodes)). Full buffers go to a writer goroutine, so
// that file creation and writes (a third of a large run's time on some
// file systems) overlap the simulation. The simulation itself stays on one
// goroutine, and each file's chunks are written in order, so the bytes do
// not depend on timing.
type sink struct {
	paths  []string
	bufs   [][]byte
	chunks chan chunk
	free   chan []byte
	done   chan error
	rec    *trace.Recording // nil: nothing kept
	recs   []*trace.RecordedFile
}

type chunk struct {
	i int
	b []byte
}

func newSink(dir string, nodes int, record func(ev string) bool) (*sink, error) {
	if dir == "" {
		return nil, fmt.Errorf("sim: no output directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("trace directory: %w", err)
	}
	// Remove traces of an earlier run in the same place, so that a reader
	// never mixes two runs.
	old, _ := filepath.Glob(filepath.Join(dir, "node-*.jsonl"))
	for _, f := range old {
		os.Remove(f)
	}
	s := &sink{paths: make([]string, nodes+1), bufs: make([][]byte, nodes+1),
		chunks: make(chan chunk, 64), free: make(chan []byte, 80), done: make(chan error, 1)}
	s.paths[nodes] = trace.RunFile(dir)
	if record != nil {
		s.rec = trace.NewRecording(dir, record)
		s.recs = make([]*trace.RecordedFile, nodes+1)
		s.recs[nodes] = s.rec.File(s.paths[nodes])
	}
	// Opening a file for every flush costs more than the write itself;
	// keep them open unless that could exhaust the descriptors.
	var lim syscall.Rlimit
	keep := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur >= uint64(nodes+1+spareFiles)
	go s.write(keep)
	return s, nil
}

// setNode names the file of node index i (set before its first event).
func (s *sink) setNode(i int, path string) {
	s.paths[i] = path
	if s.rec != nil {
		s.recs[i] = s.rec.File(path)
	}
}

func (s *sink) node(i int, e *trace.Event) { s.add(i, e) }

func (s *sink) run(e *trace.Event) { s.add(len(s.paths)-1, e) }

func (s *sink) add(i int, e *trace.Event) {
	b := s.bufs[i]
	if b == nil {
		select {
		case b = <-s.free:
		default:
			b = make([]byte, 0, flushAt+4<<10)
		}
	}
	n := len(b)
	b = trace.AppendJSON(b, e)
	if s.recs != nil {
		s.recs[i].Add(e, b[n:])
	}
	b = append(b, '\n')
	if len(b) >= flushAt {
		s.chunks <- chunk{i, b}
		b = nil
	}
	s.bufs[i] = b
}

// write is the writer goroutine: it writes chunks in arrival order and
// reports the first error when the channel closes.
func (s *sink) write(keep bool) {
	files := make([]*os.File, len(s.paths))
	started := make([]bool, len(s.paths))
	var first error
	for c := range s.chunks {
		if first == nil {
			first = s.writeChunk(c, files, started, keep)
		}
		select {
		case s.free <- c.b[:0]:
		default:
		}
	}
	for i, f := range files {
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil && first == nil {
			first = fmt.Errorf("writing trace %s: %w", s.paths[i], err)
		}
	}
	s.done <- first
}

func (s *sink) writeChunk(c chunk, files []*os.File, started []bool, keep bool) error {
	f := files[c.i]
	var err error
	if f == nil {
		flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
		if !started[c.i] {
			flag |= os.O_TRUNC
			started[c.i] = true
		}
		if f, err = os.OpenFile(s.paths[c.i], flag, 0o644); err != nil {
			return fmt.Errorf("writing trace: %w", err)
		}
	}
	_, err = f.Write(c.b)
	if keep {
		files[c.i] = f
	} else if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing trace %s: %w", s.paths[c.i], err)
	}
	return nil
}

// close writes what is buffered, waits for the writer and reports the
// first error.
func (s *sink) close() error {
	for i, b := range s.bufs {
		if len(b) > 0 {
			s.chunks <- chunk{i, b}
		}
		s.bufs[i] = nil
	}
	close(s.chunks)
	return <-s.done
}
