package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"manetlab/protocol"
	"manetlab/scenario"
	"manetlab/trace"
)

// Follower reads a run directory as its files grow: the run file's
// header (the scenario), every node trace (node-N.jsonl, or the
// simulator's nodes.jsonl) and the faults record, handing each complete
// line to the State once. A file replaced by another (the run file
// renamed into place at the end) is read again from its start; a line
// is read only once it ends with a newline.
type Follower struct {
	Dir     string
	State   *State
	files   map[string]*tail
	skipped map[string]bool
	buf     []byte
	// Problems are the lines that could not be read (at most
	// maxProblems), "file:line: why".
	Problems []string
	pmu      sync.Mutex
}

const maxProblems = 20

type tail struct {
	f    *os.File
	info os.FileInfo
	part []byte
	line int
	node protocol.NodeID // a node file's node; 0 for the others
	kind int
	// A compressed file (trace.compress: zstd) is read a whole frame at
	// a time: raw holds the bytes of the frame still being written.
	zstd, seen bool
	raw        []byte
}

const (
	kindNode = iota
	kindNodes
	kindRun
	kindFaults
)

// NewFollower follows dir into st.
func NewFollower(dir string, st *State) *Follower {
	return &Follower{Dir: dir, State: st, files: map[string]*tail{}, skipped: map[string]bool{}}
}

// Close closes the files held open.
func (f *Follower) Close() {
	for _, t := range f.files {
		t.f.Close()
	}
	f.files = map[string]*tail{}
}

// Poll reads what the files gained since the last poll; it returns how
// many lines it read. The run file comes first: the nodes are its
// scenario's.
func (f *Follower) Poll() (int, error) {
	ents, err := os.ReadDir(f.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil // not made yet
	}
	if err != nil {
		return 0, err
	}
	names := []string{trace.RunFileName}
	for _, e := range ents {
		n := e.Name()
		if n == trace.RunFileName || (n != trace.NodesFileName && n != trace.FaultsFileName && nodeFileID(n) == 0) {
			continue
		}
		if !e.Type().IsRegular() {
			// A link or a FIFO in place of a trace: skipped, and said
			// once, as the readers do.
			if !f.skipped[n] {
				f.skipped[n] = true
				f.problem(n, 0, errors.New("not a regular file, skipped"))
			}
			continue
		}
		names = append(names, n)
	}
	read := 0
	var first error
	for i, n := range names {
		if i == 1 {
			if sc, _ := f.State.Scenario(); sc == nil {
				break // nothing before the scenario is known
			}
		}
		// A file that cannot be read (a link planted in place of a
		// trace) is said; the others are read all the same.
		k, err := f.read(n)
		read += k
		if err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = err
		}
	}
	return read, first
}

// nodeFileID is N of "node-N.jsonl", else 0.
func nodeFileID(name string) protocol.NodeID {
	s, ok := strings.CutPrefix(name, "node-")
	if !ok {
		return 0
	}
	s, ok = strings.CutSuffix(s, ".jsonl")
	if !ok {
		return 0
	}
	id, err := strconv.ParseUint(s, 10, 32)
	if err != nil || strconv.FormatUint(id, 10) != s {
		return 0
	}
	return protocol.NodeID(id)
}

// read reads file name's new complete lines.
func (f *Follower) read(name string) (int, error) {
	path := filepath.Join(f.Dir, name)
	t := f.files[name]
	info, err := os.Lstat(path)
	if err != nil {
		return 0, err
	}
	if t != nil && (!os.SameFile(t.info, info) || info.Size() < offset(t)) {
		// Replaced or truncated: read it again from the start.
		t.f.Close()
		delete(f.files, name)
		t = nil
	}
	if t == nil {
		fh, err := trace.OpenFile(path)
		if err != nil {
			return 0, err
		}
		t = &tail{f: fh, info: info, node: nodeFileID(name)}
		switch {
		case name == trace.RunFileName:
			t.kind = kindRun
		case name == trace.NodesFileName:
			t.kind = kindNodes
		case name == trace.FaultsFileName:
			t.kind = kindFaults
		}
		f.files[name] = t
	}
	if f.buf == nil {
		f.buf = make([]byte, 64<<10)
	}
	buf := f.buf
	lines := 0
	now := time.Now()
	for {
		k, err := t.f.Read(buf)
		data := buf[:k]
		if k > 0 && !t.seen {
			t.seen, t.zstd = true, trace.IsZstd(data)
		}
		if t.zstd && k > 0 {
			var zerr error
			if data, zerr = unzstd(t, data); zerr != nil {
				return lines, fmt.Errorf("%s: %w", path, zerr)
			}
		}
		if len(data) > 0 {
			for {
				i := bytes.IndexByte(data, '\n')
				if i < 0 {
					if len(t.part)+len(data) <= maxPartialLine {
						t.part = append(t.part, data...)
					}
					break
				}
				line := data[:i]
				if len(t.part) > 0 {
					line = append(t.part, line...)
					t.part = t.part[:0]
				}
				t.line++
				lines++
				f.take(name, t, line, now)
				data = data[i+1:]
			}
		}
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// maxFrame bounds a compressed file's frame (the simulator's are at most
// about 1 MiB).
const maxFrame = 64 << 20

// unzstd adds data, read from t's compressed file, to what t holds of
// it and returns the decompressed bytes of its whole frames.
func unzstd(t *tail, data []byte) ([]byte, error) {
	t.raw = append(t.raw, data...)
	if len(t.raw) > maxFrame {
		return nil, fmt.Errorf("a zstd frame longer than %d MiB: not a trace the simulator wrote", maxFrame>>20)
	}
	n, err := trace.ZstdFrames(t.raw)
	if err != nil || n == 0 {
		return nil, err
	}
	out, err := trace.DecodeZstd(nil, t.raw[:n])
	t.raw = append(t.raw[:0], t.raw[n:]...)
	return out, err
}

func offset(t *tail) int64 {
	off, err := t.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0
	}
	return off
}

func (f *Follower) problem(name string, line int, err error) {
	f.pmu.Lock()
	defer f.pmu.Unlock()
	if len(f.Problems) < maxProblems {
		f.Problems = append(f.Problems, fmt.Sprintf("%s:%d: %v", name, line, err))
	}
}

// problems is a copy of Problems, for another goroutine.
func (f *Follower) problems() []string {
	f.pmu.Lock()
	defer f.pmu.Unlock()
	return append([]string(nil), f.Problems...)
}

// take hands one line to the state.
func (f *Follower) take(name string, t *tail, line []byte, now time.Time) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if t.kind == kindFaults {
		var r trace.FaultRecord
		if err := json.Unmarshal(line, &r); err != nil {
			f.problem(name, t.line, err)
			return
		}
		if err := r.Check(); err != nil || !f.State.Member(r.Node) {
			f.problem(name, t.line, fmt.Errorf("not a fault of a member: %s", line))
			return
		}
		f.State.Fault(r, now)
		return
	}
	var e trace.Event
	if err := trace.Decode(line, &e); err != nil {
		f.problem(name, t.line, err)
		return
	}
	switch t.kind {
	case kindRun:
		if e.Ev == trace.EvHeader {
			sc, err := scenario.Parse([]byte(e.Scenario), trace.RunFile(f.Dir), nil)
			if err == nil {
				err = f.State.SetScenario(&e, sc)
			}
			if err != nil {
				f.problem(name, t.line, fmt.Errorf("the scenario recorded in the header: %w", err))
			}
		}
		// The run file's faults are the faults record's, or the node
		// files' (the simulator's): not taken twice.
	case kindNodes:
		f.State.Apply(e.Node, &e, now)
	default:
		if e.Node == t.node {
			f.State.Apply(t.node, &e, now)
		}
	}
}
