package trace

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"manetlab/protocol"
)

// Source is where a reader finds the trace files of a run directory: the
// files on disk (Disk), or a Recording the writer kept in memory.
type Source interface {
	// ScanEvents is the package's ScanEvents over the file at path.
	ScanEvents(path string, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error)
	// Names lists the names of the entries of dir, sorted.
	Names(dir string) ([]string, error)
	// Size is the size in bytes of the file at path.
	Size(path string) (int64, error)
}

// Disk is the Source of the files on disk.
var Disk Source = disk{}

type disk struct{}

func (disk) ScanEvents(path string, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	return ScanEvents(path, keep, fn)
}

func (disk) Names(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, de := range entries {
		names[i] = de.Name()
	}
	return names, nil
}

func (disk) Size(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// ReadHeaderFrom is ReadHeader over src.
func ReadHeaderFrom(src Source, path string) (Event, error) {
	var h Event
	found := false
	_, err := src.ScanEvents(path, nil, func(e *Event, _ int) error {
		h, found = *e, true
		return errHeaderRead
	})
	return checkHeader(path, h, found, err)
}

// Recording keeps the trace files of a run in memory as their writer
// writes them, so that the writer can summarise its own run without
// reading the files back (sim does). As a Source it hands ScanEvents the
// events a scan of the file on disk would hand it, with the same line
// numbers and problems, as long as the scan keeps no event type the
// recording did not keep (asking for one is an error). It holds the
// events it keeps in a compact form (about 100 bytes each); events of
// other types are only counted.
//
// One goroutine adds (the writer's); once it is done, any number of
// readers may scan concurrently.
type Recording struct {
	dir     string
	keep    func(ev string) bool
	files   map[string]*RecordedFile
	names   []string
	strs    []string
	strIdx  map[string]uint32
	dropped map[string]bool // event types seen and not kept
}

// NewRecording records the files of the run directory dir, keeping the
// events whose type keep accepts (nil: all), headers, and every event of
// the run file.
func NewRecording(dir string, keep func(ev string) bool) *Recording {
	return &Recording{dir: dir, keep: keep, files: map[string]*RecordedFile{},
		strs: []string{""}, strIdx: map[string]uint32{"": 0}, dropped: map[string]bool{}}
}

// File starts recording the file at path (inside the directory), named
// by the writer before its first line. The run file keeps every event.
func (r *Recording) File(path string) *RecordedFile {
	f := &RecordedFile{rec: r, all: filepath.Base(path) == RunFileName}
	r.files[path] = f
	r.names = append(r.names, filepath.Base(path))
	return f
}

// RecordedFile is one file of a Recording.
type RecordedFile struct {
	rec   *Recording
	all   bool
	lines int
	size  int64
	evs   []packed
	raw   [][]byte // lines replayed through the reader (odd events)
	full  []Event  // events with fields packed does not hold
}

// packed is an event in compact form: strings interned in the recording.
type packed struct {
	t, wall, value                       int64 // value: math.Float64bits
	seq, oseq                            uint64
	node, from, to, origin, leader, peer protocol.NodeID
	hops, bytes                          int32
	ev, kind, reason, epoch, text        uint32
	line                                 int32
	// how: 0 packed, 1 packed with a value, 2 full[ref], 3 raw[ref].
	how uint8
	ref int32
}

// Add records e, whose line (without the newline) the writer wrote as
// line, as the file's next line.
func (f *RecordedFile) Add(e *Event, line []byte) {
	f.lines++
	f.size += int64(len(line)) + 1
	r := f.rec
	if !f.all && r.keep != nil && e.Ev != EvHeader && !r.keep(e.Ev) {
		if !r.dropped[e.Ev] {
			r.dropped[e.Ev] = true
		}
		return
	}
	p := packed{line: int32(f.lines)}
	switch {
	case !plain(e, len(line)):
		p.how, p.ref = 3, int32(len(f.raw))
		f.raw = append(f.raw, append(bytes.Clone(line), '\n'))
	case e.HLC != nil || e.Pos != nil || e.Schema != 0 || e.Run != "" || e.Driver != "" || e.Protocol != "" ||
		e.Scenario != "" || e.Seed != 0 || e.Host != "" || e.Src != "" || int64(int32(e.Hops)) != int64(e.Hops) ||
		int64(int32(e.Bytes)) != int64(e.Bytes):
		p.how, p.ref = 2, int32(len(f.full))
		c := *e
		if c.HLC != nil {
			h := *c.HLC
			c.HLC = &h
		}
		if c.Pos != nil {
			q := *c.Pos
			c.Pos = &q
		}
		if c.Value != nil {
			v := *c.Value
			c.Value = &v
		}
		f.full = append(f.full, c)
	default:
		p.t, p.wall, p.seq, p.oseq = e.T, e.Wall, e.Seq, e.OSeq
		p.node, p.from, p.to, p.origin, p.leader, p.peer = e.Node, e.From, e.To, e.Origin, e.Leader, e.Peer
		p.hops, p.bytes = int32(e.Hops), int32(e.Bytes)
		p.ev, p.kind, p.reason, p.epoch, p.text = r.str(e.Ev), r.str(e.Kind), r.str(e.Reason), r.str(e.Epoch), r.str(e.Text)
		if e.Value != nil {
			p.how, p.value = 1, int64(math.Float64bits(*e.Value))
		}
	}
	f.evs = append(f.evs, p)
}

// plain reports whether decoding e's line gives e back and a scan would
// hand it on: valid UTF-8, finite numbers, an "ev" a scan finds unescaped,
// and a line no longer than the reader's limit.
func plain(e *Event, n int) bool {
	if n > maxLine || e.Ev == "" {
		return false
	}
	for i := 0; i < len(e.Ev); i++ {
		if b := e.Ev[i]; b >= utf8.RuneSelf || !safe[b] || b == '\\' {
			return false
		}
	}
	for _, s := range []string{e.Kind, e.Reason, e.Epoch, e.Text, e.Run, e.Driver, e.Protocol, e.Scenario, e.Host, e.Src} {
		if !utf8.ValidString(s) {
			return false
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if e.Value != nil && !finite(*e.Value) {
		return false
	}
	if e.Pos != nil && !(finite(e.Pos[0]) && finite(e.Pos[1]) && finite(e.Pos[2])) {
		return false
	}
	return true
}

func (r *Recording) str(s string) uint32 {
	if i, ok := r.strIdx[s]; ok {
		return i
	}
	i := uint32(len(r.strs))
	r.strs = append(r.strs, s)
	r.strIdx[s] = i
	return i
}

// Names lists the recorded files of dir, sorted.
func (r *Recording) Names(dir string) ([]string, error) {
	if filepath.Clean(dir) != filepath.Clean(r.dir) {
		return nil, fmt.Errorf("run directory %s: not the recorded %s", dir, r.dir)
	}
	out := append([]string(nil), r.names...)
	slices.Sort(out)
	return out, nil
}

// Size is the size of a recorded file.
func (r *Recording) Size(path string) (int64, error) {
	f := r.files[path]
	if f == nil {
		return 0, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrNotExist}
	}
	return f.size, nil
}

// ScanEvents replays a recorded file.
func (r *Recording) ScanEvents(path string, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	f := r.files[path]
	if f == nil {
		return nil, fmt.Errorf("trace: %w", &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist})
	}
	// Asking for events the recording dropped is an error, once the scan
	// goes past the first line (reading a header alone needs nothing else).
	var lacks error
	if !f.all {
		for ev := range r.dropped {
			if keep == nil || keep(ev) {
				lacks = fmt.Errorf("trace %s: the recording did not keep %q events", path, ev)
			}
		}
	}
	var probs []Problem
	for i := range f.evs {
		if i > 0 && lacks != nil {
			return probs, lacks
		}
		p := &f.evs[i]
		var e Event
		switch p.how {
		case 3:
			ps, err := scanLines(bytes.NewReader(f.raw[p.ref]), path, maxLine, keep, func(e *Event, _ int) error { return fn(e, int(p.line)) })
			for _, q := range ps {
				q.Line = int(p.line)
				probs = append(probs, q)
			}
			if err != nil {
				return probs, err
			}
			continue
		case 2:
			e = f.full[p.ref]
			if e.HLC != nil {
				h := *e.HLC
				e.HLC = &h
			}
			if e.Pos != nil {
				q := *e.Pos
				e.Pos = &q
			}
			if e.Value != nil {
				v := *e.Value
				e.Value = &v
			}
		default:
			e = Event{T: p.t, Wall: p.wall, Node: p.node, Ev: r.strs[p.ev], Kind: r.strs[p.kind], From: p.from, To: p.to,
				Seq: p.seq, Origin: p.origin, OSeq: p.oseq, Hops: int(p.hops), Bytes: int(p.bytes), Reason: r.strs[p.reason],
				Leader: p.leader, Epoch: r.strs[p.epoch], Peer: p.peer, Text: r.strs[p.text]}
			if p.how == 1 {
				v := math.Float64frombits(uint64(p.value))
				e.Value = &v
			}
		}
		if keep != nil && !keep(e.Ev) {
			continue
		}
		if err := fn(&e, int(p.line)); err != nil {
			return probs, fmt.Errorf("%s:%d: %w", path, p.line, err)
		}
	}
	return probs, lacks
}
