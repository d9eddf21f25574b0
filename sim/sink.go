package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/klauspost/compress/zstd"

	"manetlab/internal/safefs"
	"manetlab/trace"
	"manetlab/trace/analysis"
)

// flushAt is the size at which a file's buffer goes to the writer: small,
// because every node holds one. Buffers start at firstBuf and double as a
// node writes; flushing before 4 KB keeps most of them at 4 KB, so a
// 10,000-node run holds at most about 40 MB of trace in memory (with
// 16 KB buffers allocated up front it held 200 MB). When the files cannot
// all stay open, every flush opens its file again, and flushClosed bounds
// how many times.
const (
	flushAt     = 3584
	flushClosed = 15 << 10
	firstBuf    = 512
)

// flushCombined is the size of the writes of the combined layout, whose
// two files each hold one buffer: large, so that a run of 100,000 nodes
// writes its 2 GB in a few thousand system calls.
const flushCombined = 1 << 20

// spareFiles is how many descriptors the sink leaves to the rest of the
// process when it decides whether to keep every trace file open.
const spareFiles = 256

// sink writes the trace files of a run: one per node (by index) and the
// run file (index len(nodes)), or in the combined layout nodes.jsonl
// (index 0, every node's lines in the order they come) and the run file
// (index 1). Full buffers go to a writer goroutine, so
// that file creation and writes (a third of a large run's time on some
// file systems) overlap the simulation: the writer creates every file
// first, while the simulation runs, then writes chunks as they come. The
// simulation itself stays on one goroutine, and each file's chunks are
// written in order, so the bytes do not depend on timing.
//
// A directory used before is re-used file by file: a node file of this
// run is truncated and rewritten in place (on ext4 that costs less than
// allocating a new inode, so a re-used directory is no slower than a
// fresh one), and node files of other IDs are removed, so that a reader
// never mixes two runs. The combined layout removes every node file, the
// per-node one a combined nodes.jsonl.
type sink struct {
	combined bool
	paths    []string
	bufs     [][]byte
	chunks   chan chunk
	free     chan []byte
	done     chan error
	rec      *trace.Recording // nil: nothing kept
	recs     []*trace.RecordedFile
	flush    int // flushAt, flushClosed or flushCombined
	first    int // capacity of a new buffer
	// observe, when not nil, sees every event as it is written (a
	// Controller's observer, control.go).
	observe func(e *trace.Event)
	// discard writes nothing: events go to observe only (Options.Discard).
	discard bool
	// summary leaves out of the node files the events that the summary
	// and `trace check` do not read (trace.level: summary): receives and
	// the drops that are not a lost message. observe still sees them.
	summary bool
	// root is the output directory, opened: the files in it are opened
	// by name (openat), without a walk of the path each time.
	root    *safefs.Dir
	rootDir string
	// failed is set by the writer at its first error (a full disk): the
	// run stops at its next check (world.run).
	failed atomic.Bool
	// zstd, when not nil, compresses every chunk into a zstd frame of
	// its own before it is written (trace.compress: zstd): a file is a
	// series of whole frames, which trace.Open decompresses. Only the
	// writer goroutine uses it, and zbuf.
	zstd *zstd.Encoder
	zbuf []byte
}

// newZstd is the encoder of compressed traces: one goroutine (the
// writer's), the fastest level (a trace shrinks 16 to 22 times at it,
// docs/performance.md, faster than the simulation writes it).
func newZstd() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		panic(err) // only for invalid options
	}
	return enc
}

type chunk struct {
	i int
	b []byte
}

// newSink writes the node files at paths (by node index) and the run file
// into dir, or with combined nodes.jsonl instead of the node files (paths
// is then unused); record, when not nil, keeps a trace.Recording of them;
// compress writes zstd frames.
func newSink(dir string, paths []string, combined, compress bool, record func(ev string) bool) (*sink, error) {
	if dir == "" {
		return nil, fmt.Errorf("sim: no output directory")
	}
	if err := trace.CheckOutDir(dir); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	if err := safefs.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("trace directory: %w", err)
	}
	files := append([]string(nil), paths...)
	if combined {
		files = []string{trace.NodesFile(dir)}
	}
	files = append(files, trace.RunFile(dir))
	root, err := safefs.OpenDir(dir, false)
	if err != nil {
		return nil, fmt.Errorf("trace directory: %w", err)
	}
	s := &sink{combined: combined, paths: files, bufs: make([][]byte, len(files)),
		chunks: make(chan chunk, 64), free: make(chan []byte, 80), done: make(chan error, 1),
		root: root, rootDir: filepath.Clean(dir)}
	if combined {
		s.chunks, s.free = make(chan chunk, 8), make(chan []byte, 10)
	}
	if compress {
		s.zstd = newZstd()
	}
	removeStale(dir, s.paths, combined)
	if record != nil {
		s.rec = trace.NewRecording(dir, record)
		s.recs = make([]*trace.RecordedFile, len(files))
		for i, p := range s.paths {
			s.recs[i] = s.rec.File(p)
		}
	}
	// Opening a file for every flush costs more than the write itself;
	// keep them open unless that could exhaust the descriptors.
	keep := descriptors(uint64(len(files) + spareFiles))
	s.flush = flushAt
	s.first = firstBuf
	switch {
	case combined:
		s.flush, s.first = flushCombined, flushCombined+64<<10
	case !keep:
		s.flush = flushClosed
	}
	go s.write(keep)
	return s, nil
}

// descriptors reports whether the process may hold n open files, raising
// its limit when it can (to the hard limit, or beyond it with the
// privilege to).
func descriptors(n uint64) bool {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return false
	}
	if lim.Cur >= n {
		return true
	}
	want := lim
	want.Cur = n
	want.Max = max(lim.Max, n)
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil
}

// removeStale removes the node files of dir that this run does not write
// (left by an earlier run with other node IDs or the other layout): with
// combined, every node-*.jsonl; without, a combined nodes.jsonl.
func removeStale(dir string, paths []string, combined bool) {
	if !combined {
		os.Remove(trace.NodesFile(dir))
	}
	old, _ := filepath.Glob(filepath.Join(dir, "node-*.jsonl"))
	if len(old) == 0 {
		return
	}
	mine := make(map[string]bool, len(paths))
	for _, p := range paths {
		mine[filepath.Clean(p)] = true
	}
	for _, f := range old {
		if !mine[filepath.Clean(f)] {
			os.Remove(f)
		}
	}
}

// leftOut says whether the summary level leaves e out of the node files.
func (s *sink) leftOut(e *trace.Event) bool {
	return s.summary && (e.Ev == trace.EvRecv || e.Ev == trace.EvDrop && !analysis.LostDrop(e))
}

func (s *sink) node(i int, e *trace.Event) {
	if s.leftOut(e) {
		if s.observe != nil {
			s.observe(e)
		}
		return
	}
	if s.combined {
		i = 0
	}
	s.add(i, e)
}

func (s *sink) run(e *trace.Event) { s.add(len(s.paths)-1, e) }

// flushRun hands the run file's buffer to the writer now: its header and
// first positions go to disk first, so that a run whose disk fills later
// can still be read as far as it was written.
func (s *sink) flushRun() {
	i := len(s.paths) - 1
	if s.discard || len(s.bufs[i]) == 0 {
		return
	}
	s.chunks <- chunk{i, s.bufs[i]}
	s.bufs[i] = nil
}

func (s *sink) add(i int, e *trace.Event) {
	if s.observe != nil {
		s.observe(e)
	}
	if s.discard {
		return
	}
	b := s.bufs[i]
	if b == nil {
		select {
		case b = <-s.free:
		default:
			b = make([]byte, 0, s.first)
		}
	}
	n := len(b)
	b = trace.AppendJSON(b, e)
	if s.recs != nil {
		s.recs[i].Add(e, b[n:])
	}
	b = append(b, '\n')
	if len(b) >= s.flush {
		s.chunks <- chunk{i, b}
		b = nil
	}
	s.bufs[i] = b
}

// write is the writer goroutine: it creates (or truncates) every file,
// writing the chunks that come meanwhile, then writes chunks in arrival
// order and reports the first error when the channel closes.
func (s *sink) write(keep bool) {
	files := make([]*os.File, len(s.paths))
	started := make([]bool, len(s.paths))
	var first error
	handle := func(c chunk) {
		if first == nil {
			if first = s.writeChunk(c, files, started, keep); first != nil {
				s.failed.Store(true)
			}
		}
		if cap(c.b) <= 2*s.flush {
			select {
			case s.free <- c.b[:0]:
			default:
			}
		}
	}
	open := true
	for i := range s.paths {
		if first != nil || !open {
			break
		}
		if !started[i] {
			if first = s.create(i, files, started, keep); first != nil {
				s.failed.Store(true)
			}
		}
		select {
		case c, ok := <-s.chunks:
			if !ok {
				open = false
				break
			}
			handle(c)
		default:
		}
	}
	if open {
		for c := range s.chunks {
			handle(c)
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
	if s.root != nil {
		s.root.Close()
	}
	s.done <- first
}

// create creates or truncates file i, keeping it open if keep.
func (s *sink) create(i int, files []*os.File, started []bool, keep bool) error {
	f, err := s.open(i, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	started[i] = true
	if keep {
		files[i] = f
		return nil
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing trace %s: %w", s.paths[i], err)
	}
	return nil
}

// open opens file i without following a link: by name in the opened
// output directory when it lies there, else as trace.OpenNoFollow does.
func (s *sink) open(i, flag int) (*os.File, error) {
	if dir, name := filepath.Split(s.paths[i]); s.root != nil && filepath.Clean(dir) == s.rootDir {
		return s.root.OpenFile(name, flag, 0o644)
	}
	return trace.OpenNoFollow(s.paths[i], flag)
}

func (s *sink) writeChunk(c chunk, files []*os.File, started []bool, keep bool) error {
	if !started[c.i] {
		if err := s.create(c.i, files, started, true); err != nil {
			return err
		}
	}
	f := files[c.i]
	var err error
	if f == nil {
		if f, err = s.open(c.i, os.O_WRONLY|os.O_APPEND); err != nil {
			return fmt.Errorf("writing trace: %w", err)
		}
	}
	b := c.b
	if s.zstd != nil {
		s.zbuf = s.zstd.EncodeAll(b, s.zbuf[:0])
		b = s.zbuf
	}
	_, err = f.Write(b)
	if keep {
		files[c.i] = f
	} else {
		files[c.i] = nil
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("writing trace %s: %w", s.paths[c.i], err)
	}
	return nil
}

// close writes what is buffered, waits for the writer and reports the
// first error.
func (s *sink) close() error {
	if s.discard {
		return nil
	}
	for i, b := range s.bufs {
		if len(b) > 0 {
			s.chunks <- chunk{i, b}
		}
		s.bufs[i] = nil
	}
	close(s.chunks)
	return <-s.done
}
