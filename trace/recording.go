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

	"manetlab/internal/intern"
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
	strs    *intern.Table
	dropped map[string]bool // event types seen and not kept
	scratch []byte          // Add's encoding of an event
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
		strs: intern.New(""), dropped: map[string]bool{}}
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
}

// The encoding of an event in a block: the uvarint line number less the
// previous event's, then the uvarint mask of the fields present (the
// fields below; with maskRaw, an index into raw follows as a uvarint, and
// nothing else), then the time as a zigzag varint less the previous
// packed event's, then each field of the mask in bit order: node IDs and
// unsigned numbers as uvarints, signed ones as zigzag varints, strings
// as the uvarint index of the interned string, floats as 8 bytes (their
// bits).
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
	maskHLC
	maskPos
	maskSchema
	maskRun
	maskDriver
	maskProtocol
	maskScenario
	maskSeed
	maskHost
	maskScenarioHash
	maskSrc
	maskRaw
)

// Blocks start at firstBlock bytes and double up to blockSize: a run of
// many small files (one per node) holds many small blocks.
const (
	firstBlock = 256
	blockSize  = 64 << 10
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
	b := binary.AppendUvarint(r.scratch[:0], uint64(f.lines-f.line))
	f.line = f.lines
	f.n++
	if !plain(e, len(line)) {
		b = binary.AppendUvarint(b, maskRaw)
		b = binary.AppendUvarint(b, uint64(len(f.raw)))
		f.raw = append(f.raw, append(bytes.Clone(line), '\n'))
		f.put(b)
		r.scratch = b
		return
	}
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
	set(maskHLC, e.HLC != nil)
	set(maskPos, e.Pos != nil)
	set(maskSchema, e.Schema != 0)
	set(maskRun, e.Run != "")
	set(maskDriver, e.Driver != "")
	set(maskProtocol, e.Protocol != "")
	set(maskScenario, e.Scenario != "")
	set(maskSeed, e.Seed != 0)
	set(maskHost, e.Host != "")
	set(maskScenarioHash, e.ScenarioHash != "")
	set(maskSrc, e.Src != "")
	b = binary.AppendUvarint(b, m)
	b = binary.AppendVarint(b, e.T-f.t)
	f.t = e.T
	u := func(bit, v uint64) {
		if m&bit != 0 {
			b = binary.AppendUvarint(b, v)
		}
	}
	i := func(bit uint64, v int64) {
		if m&bit != 0 {
			b = binary.AppendVarint(b, v)
		}
	}
	str := func(bit uint64, s string) {
		if m&bit != 0 {
			b = binary.AppendUvarint(b, uint64(r.strs.Index(s)))
		}
	}
	float := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	u(maskNode, uint64(e.Node))
	str(maskEv, e.Ev)
	str(maskKind, e.Kind)
	u(maskSeq, e.Seq)
	i(maskBytes, int64(e.Bytes))
	u(maskFrom, uint64(e.From))
	u(maskLeader, uint64(e.Leader))
	if m&maskValue != 0 {
		float(*e.Value)
	}
	u(maskTo, uint64(e.To))
	u(maskOrigin, uint64(e.Origin))
	u(maskOSeq, e.OSeq)
	i(maskHops, int64(e.Hops))
	u(maskPeer, uint64(e.Peer))
	str(maskReason, e.Reason)
	str(maskEpoch, e.Epoch)
	str(maskText, e.Text)
	i(maskWall, e.Wall)
	if m&maskHLC != 0 {
		b = binary.AppendVarint(b, e.HLC.Wall)
		b = binary.AppendUvarint(b, uint64(e.HLC.Logical))
	}
	if m&maskPos != 0 {
		float(e.Pos[0])
		float(e.Pos[1])
		float(e.Pos[2])
	}
	i(maskSchema, int64(e.Schema))
	str(maskRun, e.Run)
	str(maskDriver, e.Driver)
	str(maskProtocol, e.Protocol)
	str(maskScenario, e.Scenario)
	u(maskSeed, e.Seed)
	str(maskHost, e.Host)
	str(maskScenarioHash, e.ScenarioHash)
	str(maskSrc, e.Src)
	f.put(b)
	r.scratch = b
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

// put appends the encoded event b to the last block, or to a new one
// when it has no room.
func (f *RecordedFile) put(b []byte) {
	n := len(f.blocks)
	if n == 0 || cap(f.blocks[n-1])-len(f.blocks[n-1]) < len(b) {
		size := firstBlock
		if n > 0 {
			size = min(2*cap(f.blocks[n-1]), blockSize)
		}
		f.blocks = append(f.blocks, make([]byte, 0, max(size, len(b))))
		n++
	}
	f.blocks[n-1] = append(f.blocks[n-1], b...)
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
	for _, s := range []string{e.Kind, e.Reason, e.Epoch, e.Text, e.Run, e.Driver, e.Protocol, e.Scenario, e.Host, e.ScenarioHash, e.Src} {
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
	// One Event for all, as the disk's scan: fn may keep a copy of *e, and
	// the pointers inside are fresh for every event.
	var e Event
	for i := 0; i < f.n; i++ {
		if i > 0 && lacks != nil {
			return probs, lacks
		}
		var line int
		var how uint64
		var ref int
		e, line, how, ref = d.next()
		if how == maskRaw {
			ps, err := scanLines(bytes.NewReader(f.raw[ref]), path, maxLine, keep, func(e *Event, _ int) error { return fn(e, line) })
			for _, q := range ps {
				q.Line = line
				probs = append(probs, q)
			}
			if err != nil {
				return probs, err
			}
			continue
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

// next decodes the next event: its line, and for an event kept raw
// maskRaw and its index (e is then empty).
func (d *decoder) next() (e Event, line int, how uint64, ref int) {
	if len(d.b) == 0 {
		d.b = d.f.blocks[d.block]
		d.block++
	}
	d.line += int(d.uvarint())
	m := d.uvarint()
	if m&maskRaw != 0 {
		return Event{}, d.line, maskRaw, int(d.uvarint())
	}
	strs := d.f.rec.strs.Strs
	d.t += d.varint()
	e.T = d.t
	u := func(bit uint64) uint64 {
		if m&bit == 0 {
			return 0
		}
		return d.uvarint()
	}
	i := func(bit uint64) int64 {
		if m&bit == 0 {
			return 0
		}
		return d.varint()
	}
	str := func(bit uint64) string {
		if m&bit == 0 {
			return ""
		}
		return strs[d.uvarint()]
	}
	float := func() float64 {
		v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
		d.b = d.b[8:]
		return v
	}
	e.Node = protocol.NodeID(u(maskNode))
	e.Ev = str(maskEv)
	e.Kind = str(maskKind)
	e.Seq = u(maskSeq)
	e.Bytes = int(i(maskBytes))
	e.From = protocol.NodeID(u(maskFrom))
	e.Leader = protocol.NodeID(u(maskLeader))
	if m&maskValue != 0 {
		v := float()
		e.Value = &v
	}
	e.To = protocol.NodeID(u(maskTo))
	e.Origin = protocol.NodeID(u(maskOrigin))
	e.OSeq = u(maskOSeq)
	e.Hops = int(i(maskHops))
	e.Peer = protocol.NodeID(u(maskPeer))
	e.Reason = str(maskReason)
	e.Epoch = str(maskEpoch)
	e.Text = str(maskText)
	e.Wall = i(maskWall)
	if m&maskHLC != 0 {
		h := HLC{Wall: d.varint()}
		h.Logical = uint32(d.uvarint())
		e.HLC = &h
	}
	if m&maskPos != 0 {
		p := [3]float64{float(), float(), float()}
		e.Pos = &p
	}
	e.Schema = int(i(maskSchema))
	e.Run = str(maskRun)
	e.Driver = str(maskDriver)
	e.Protocol = str(maskProtocol)
	e.Scenario = str(maskScenario)
	e.Seed = u(maskSeed)
	e.Host = str(maskHost)
	e.ScenarioHash = str(maskScenarioHash)
	e.Src = str(maskSrc)
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
