package trace

import (
	"bytes"
	"encoding/binary"
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
// events it keeps in a compact form (varints, strings interned: about 15
// bytes for a send); events of other types are only counted.
//
// One goroutine adds (the writer's); once it is done, any number of
// readers may scan concurrently.
type Recording struct {
	dir     string
	keep    func(ev string) bool
	kept    []keptType // keep's answers so far, a short list
	files   map[string]*RecordedFile
	names   []string
	strs    []string
	strIdx  map[string]uint32
	dropped map[string]bool // event types seen and not kept
}

type keptType struct {
	ev   string
	keep bool
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
	// blocks hold the kept events, encoded one after the other (below);
	// an event never spans two blocks.
	blocks [][]byte
	n      int      // events in blocks
	line   int      // line of the last event in blocks
	t      int64    // time of the last packed event
	raw    [][]byte // lines replayed through the reader (odd events)
	full   []Event  // events with fields the packed form does not hold
}

// The encoding of an event in a block: the uvarint line number less the
// previous event's, then the uvarint mask of the fields present (the
// fields below; maskFull and maskRaw: an index into full or raw follows,
// as a uvarint, and nothing else), then the time as a zigzag varint less
// the previous packed event's, then each field of the mask in bit order:
// node IDs, sequence numbers, hops and bytes (zigzag) and interned
// strings as varints, the value as 8 bytes (its float64 bits).
const (
	maskNode = 1 << iota
	maskEv
	maskKind
	maskSeq
	maskBytes
	maskFrom
	maskLeader
	maskValue
	maskTo
	maskOrigin
	maskOSeq
	maskHops
	maskPeer
	maskReason
	maskEpoch
	maskText
	maskWall
	maskFull
	maskRaw
)

// blockSize is the size of a block; maxPacked bounds an event's encoding.
const (
	blockSize = 64 << 10
	maxPacked = 192
)

// Add records e, whose line (without the newline) the writer wrote as
// line, as the file's next line.
func (f *RecordedFile) Add(e *Event, line []byte) {
	f.lines++
	f.size += int64(len(line)) + 1
	r := f.rec
	if !f.all && r.keep != nil && e.Ev != EvHeader && !r.keeps(e.Ev) {
		return
	}
	b := f.block()
	b = binary.AppendUvarint(b, uint64(f.lines-f.line))
	f.line = f.lines
	f.n++
	switch {
	case !plain(e, len(line)):
		b = binary.AppendUvarint(b, maskRaw)
		b = binary.AppendUvarint(b, uint64(len(f.raw)))
		f.raw = append(f.raw, append(bytes.Clone(line), '\n'))
	case e.HLC != nil || e.Pos != nil || e.Schema != 0 || e.Run != "" || e.Driver != "" || e.Protocol != "" ||
		e.Scenario != "" || e.Seed != 0 || e.Host != "" || e.Src != "" || int64(int32(e.Hops)) != int64(e.Hops) ||
		int64(int32(e.Bytes)) != int64(e.Bytes):
		b = binary.AppendUvarint(b, maskFull)
		b = binary.AppendUvarint(b, uint64(len(f.full)))
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
		var m uint64
		set := func(bit uint64, present bool) {
			if present {
				m |= bit
			}
		}
		set(maskNode, e.Node != 0)
		set(maskEv, e.Ev != "")
		set(maskKind, e.Kind != "")
		set(maskSeq, e.Seq != 0)
		set(maskBytes, e.Bytes != 0)
		set(maskFrom, e.From != 0)
		set(maskLeader, e.Leader != 0)
		set(maskValue, e.Value != nil)
		set(maskTo, e.To != 0)
		set(maskOrigin, e.Origin != 0)
		set(maskOSeq, e.OSeq != 0)
		set(maskHops, e.Hops != 0)
		set(maskPeer, e.Peer != 0)
		set(maskReason, e.Reason != "")
		set(maskEpoch, e.Epoch != "")
		set(maskText, e.Text != "")
		set(maskWall, e.Wall != 0)
		b = binary.AppendUvarint(b, m)
		b = binary.AppendVarint(b, e.T-f.t)
		f.t = e.T
		u := func(bit, v uint64) {
			if m&bit != 0 {
				b = binary.AppendUvarint(b, v)
			}
		}
		u(maskNode, uint64(e.Node))
		if m&maskEv != 0 {
			b = binary.AppendUvarint(b, uint64(r.str(e.Ev)))
		}
		if m&maskKind != 0 {
			b = binary.AppendUvarint(b, uint64(r.str(e.Kind)))
		}
		u(maskSeq, e.Seq)
		if m&maskBytes != 0 {
			b = binary.AppendVarint(b, int64(e.Bytes))
		}
		u(maskFrom, uint64(e.From))
		u(maskLeader, uint64(e.Leader))
		if m&maskValue != 0 {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(*e.Value))
		}
		u(maskTo, uint64(e.To))
		u(maskOrigin, uint64(e.Origin))
		u(maskOSeq, e.OSeq)
		if m&maskHops != 0 {
			b = binary.AppendVarint(b, int64(e.Hops))
		}
		u(maskPeer, uint64(e.Peer))
		if m&maskReason != 0 {
			b = binary.AppendUvarint(b, uint64(r.str(e.Reason)))
		}
		if m&maskEpoch != 0 {
			b = binary.AppendUvarint(b, uint64(r.str(e.Epoch)))
		}
		if m&maskText != 0 {
			b = binary.AppendUvarint(b, uint64(r.str(e.Text)))
		}
		if m&maskWall != 0 {
			b = binary.AppendVarint(b, e.Wall)
		}
	}
	f.blocks[len(f.blocks)-1] = b
}

// keeps is r.keep(ev), remembered for the few event types there are.
func (r *Recording) keeps(ev string) bool {
	for _, k := range r.kept {
		if k.ev == ev {
			return k.keep
		}
	}
	keep := r.keep(ev)
	if len(r.kept) < 32 {
		r.kept = append(r.kept, keptType{ev, keep})
	}
	if !keep {
		r.dropped[ev] = true
	}
	return keep
}

// block is the last block, with room for one more event.
func (f *RecordedFile) block() []byte {
	if n := len(f.blocks); n > 0 && cap(f.blocks[n-1])-len(f.blocks[n-1]) >= maxPacked {
		return f.blocks[n-1]
	}
	f.blocks = append(f.blocks, make([]byte, 0, blockSize))
	return f.blocks[len(f.blocks)-1]
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
	d := decoder{f: f}
	for i := 0; i < f.n; i++ {
		if i > 0 && lacks != nil {
			return probs, lacks
		}
		e, line, how, ref := d.next()
		switch how {
		case maskRaw:
			ps, err := scanLines(bytes.NewReader(f.raw[ref]), path, maxLine, keep, func(e *Event, _ int) error { return fn(e, line) })
			for _, q := range ps {
				q.Line = line
				probs = append(probs, q)
			}
			if err != nil {
				return probs, err
			}
			continue
		case maskFull:
			e = f.full[ref]
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
		}
		if keep != nil && !keep(e.Ev) {
			continue
		}
		if err := fn(&e, line); err != nil {
			return probs, fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return probs, lacks
}

// decoder reads the events of a RecordedFile back in order.
type decoder struct {
	f     *RecordedFile
	block int
	b     []byte
	line  int
	t     int64
}

// next decodes the next event: its line, and for an event kept whole or
// raw its mask bit and index (e is then empty).
func (d *decoder) next() (e Event, line int, how uint64, ref int) {
	if len(d.b) == 0 {
		d.b = d.f.blocks[d.block]
		d.block++
	}
	d.line += int(d.uvarint())
	m := d.uvarint()
	if m&(maskFull|maskRaw) != 0 {
		return Event{}, d.line, m & (maskFull | maskRaw), int(d.uvarint())
	}
	strs := d.f.rec.strs
	d.t += d.varint()
	e.T = d.t
	id := func(bit uint64) protocol.NodeID {
		if m&bit == 0 {
			return 0
		}
		return protocol.NodeID(d.uvarint())
	}
	str := func(bit uint64) string {
		if m&bit == 0 {
			return ""
		}
		return strs[d.uvarint()]
	}
	e.Node = id(maskNode)
	e.Ev = str(maskEv)
	e.Kind = str(maskKind)
	if m&maskSeq != 0 {
		e.Seq = d.uvarint()
	}
	if m&maskBytes != 0 {
		e.Bytes = int(d.varint())
	}
	e.From = id(maskFrom)
	e.Leader = id(maskLeader)
	if m&maskValue != 0 {
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
		d.b = d.b[8:]
		e.Value = &v
	}
	e.To = id(maskTo)
	e.Origin = id(maskOrigin)
	if m&maskOSeq != 0 {
		e.OSeq = d.uvarint()
	}
	if m&maskHops != 0 {
		e.Hops = int(d.varint())
	}
	e.Peer = id(maskPeer)
	e.Reason = str(maskReason)
	e.Epoch = str(maskEpoch)
	e.Text = str(maskText)
	if m&maskWall != 0 {
		e.Wall = d.varint()
	}
	return e, d.line, 0, 0
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	d.b = d.b[n:]
	return v
}
