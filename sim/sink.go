package sim

import (
	"fmt"
	"os"
	"path/filepath"

	"manetlab/trace"
)

// flushAt is the per-file buffer size. Files are opened only to flush, so a
// 10,000-node run needs neither 10,000 descriptors nor 10,000 large buffers.
const flushAt = 16 << 10

// sink writes the trace files of a run: one per node (by index) and the
// run file (index len(nodes)).
type sink struct {
	paths   []string
	bufs    [][]byte
	started []bool
	err     error
}

func newSink(dir string, nodes int) (*sink, error) {
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
	s := &sink{paths: make([]string, nodes+1), bufs: make([][]byte, nodes+1), started: make([]bool, nodes+1)}
	s.paths[nodes] = trace.RunFile(dir)
	return s, nil
}

// setNode names the file of node index i (set before its first event).
func (s *sink) setNode(i int, path string) { s.paths[i] = path }

func (s *sink) node(i int, e *trace.Event) { s.add(i, e) }

func (s *sink) run(e *trace.Event) { s.add(len(s.paths)-1, e) }

func (s *sink) add(i int, e *trace.Event) {
	b := trace.AppendJSON(s.bufs[i], e)
	s.bufs[i] = append(b, '\n')
	if len(s.bufs[i]) >= flushAt {
		s.flush(i)
	}
}

func (s *sink) flush(i int) {
	if len(s.bufs[i]) == 0 || s.err != nil {
		return
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if !s.started[i] {
		flag |= os.O_TRUNC
		s.started[i] = true
	}
	f, err := os.OpenFile(s.paths[i], flag, 0o644)
	if err == nil {
		_, err = f.Write(s.bufs[i])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		s.err = fmt.Errorf("writing trace %s: %w", s.paths[i], err)
	}
	s.bufs[i] = s.bufs[i][:0]
}

func (s *sink) close() error {
	for i := range s.bufs {
		s.flush(i)
	}
	return s.err
}
