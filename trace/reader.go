package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
)

// MaxLine is the longest line the reader decodes (64 MiB); a longer line is
// skipped and reported. Run headers carry the whole scenario, so lines of
// a few MiB are normal.
const MaxLine = 64 << 20

// Problem is something the reader could not read or did not accept. The
// reader reports it and goes on.
type Problem struct {
	File string
	Line int // 1-based; 0 when the problem concerns the whole file
	Msg  string
}

// String formats the problem as file:line: msg (file: msg without a line),
// the form editors and terminals link to.
func (p Problem) String() string {
	if p.Line <= 0 {
		return p.File + ": " + p.Msg
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ": " + p.Msg
}

// MsgTruncated is the Msg of the Problem for a last line that has no
// newline and does not decode: what a writer killed mid-line leaves.
const MsgTruncated = "truncated last line (the writer was killed, or its disk was full)"

// ReadFile reads every event of a trace file it can. Damaged lines become
// Problems; the error is only for a file that cannot be opened or read.
func ReadFile(path string) ([]Event, []Problem, error) {
	var evs []Event
	probs, err := Scan(path, func(e *Event, _ int) error {
		evs = append(evs, *e)
		return nil
	})
	return evs, probs, err
}

// Scan calls fn for every event of the trace file at path, in file order,
// with its 1-based line number, so that large traces need not sit in
// memory. fn may keep a copy of *e (the pointers inside are never reused)
// but not e itself. Empty lines are skipped; lines that are not JSON
// objects, lack "ev" or are longer than MaxLine become Problems, and the
// scan goes on. If fn returns an error the scan stops and Scan returns it,
// prefixed with file:line.
func Scan(path string, fn func(e *Event, line int) error) ([]Problem, error) {
	return ScanEvents(path, nil, fn)
}

// ScanEvents is Scan restricted to the event types keep accepts (nil:
// all). Lines of other types are skipped before they are decoded, which
// makes a pass over a large trace several times faster; a skipped line is
// not checked beyond its "ev" field. The lines of a large file are read
// and decoded a little ahead of fn, on another goroutine (scanAhead):
// keep is called there, and must be safe for that (a function of ev
// alone).
func ScanEvents(path string, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	f, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	if st, ok := f.(interface{ Stat() (os.FileInfo, error) }); ok && statSize(st) >= aheadMin {
		return scanAhead(f, path, maxLine, keep, fn)
	}
	return scanLines(f, path, maxLine, keep, fn)
}

// statSize is the size of the file st reads (a compressed file's on disk),
// or 0 when it cannot be told.
func statSize(st interface{ Stat() (os.FileInfo, error) }) int64 {
	fi, err := st.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// aheadMin is the size from which ScanEvents reads ahead: the batches of
// a small file (a node file) cost more than its reading spares.
const aheadMin = 1 << 20

// aheadBatch is how many decoded events an Ahead hands over at a time;
// aheadBatches how many batches it uses.
const (
	aheadBatch   = 256
	aheadBatches = 4
)

// scanAhead is scanLines with the reading and decoding of the lines on a
// goroutine of its own (Ahead), so that a large trace's decoding takes
// the second core while fn judges the events before: fn sees the same
// events, lines and problems in the same order, and on an error the same
// problems (those of the lines before).
func scanAhead(r io.Reader, path string, max int, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	var keepLine func(string, []byte) bool
	if keep != nil {
		keepLine = func(ev string, _ []byte) bool { return keep(ev) }
	}
	a := NewAhead(newLineReader(r, path, 64<<10, max), keepLine, nil)
	defer a.Stop()
	for {
		e, n, err := a.Next()
		if err != nil || e == nil {
			return a.Problems(), err
		}
		if err := fn(e, n); err != nil {
			a.Stop()
			return a.Problems(), fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
}

// Ahead hands out a LineReader's events as its Next does, reading and
// decoding them on a goroutine of its own, a few batches ahead of the
// caller. keep is called on that goroutine.
type Ahead struct {
	lr         *LineReader
	full, free chan *aheadItems
	done       chan struct{}
	wg         sync.WaitGroup
	stop       func()
	cur        *aheadItems
	i          int
	probs      int // len(lr.Problems) when the last event handed out was read
	over       bool
}

// aheadItems is a batch of events read ahead; end: the file's last.
type aheadItems struct {
	items []aheadItem
	end   bool
	err   error
}

type aheadItem struct {
	e     Event
	line  int
	probs int
}

// NewAhead starts reading lr ahead, deciding on lines with keep as
// lr.Next(keep) does; Stop (or the end of the file) ends the goroutine.
// keep is called on that goroutine, and so is note (when not nil), with
// every event handed out, in order, before the lines after it are read:
// a keep that depends on the events before its line keeps its state
// there.
func NewAhead(lr *LineReader, keep func(ev string, line []byte) bool, note func(e *Event)) *Ahead {
	a := &Ahead{lr: lr, full: make(chan *aheadItems, aheadBatches), free: make(chan *aheadItems, aheadBatches), done: make(chan struct{})}
	for range aheadBatches {
		a.free <- &aheadItems{items: make([]aheadItem, 0, aheadBatch)}
	}
	a.wg.Add(1)
	go a.read(keep, note)
	a.stop = sync.OnceFunc(func() {
		close(a.done)
		a.wg.Wait()
	})
	return a
}

// read fills batches until the end of the file or Stop.
func (a *Ahead) read(keep func(string, []byte) bool, note func(*Event)) {
	defer a.wg.Done()
	defer close(a.full)
	for {
		var b *aheadItems
		select {
		case b = <-a.free:
		case <-a.done:
			return
		}
		b.items = b.items[:0]
		for len(b.items) < aheadBatch && !b.end {
			e, n, err := a.lr.Next(keep)
			switch {
			case err != nil:
				b.end, b.err = true, err
			case e == nil:
				b.end = true
			default:
				if note != nil {
					note(e)
				}
				b.items = append(b.items, aheadItem{*e, n, len(a.lr.Problems)})
			}
		}
		select {
		case a.full <- b:
		case <-a.done:
			return
		}
		if b.end {
			return
		}
	}
}

// Next is the LineReader's Next: the next event and its line number, a
// nil event at the end of the file, or the error that ended it.
func (a *Ahead) Next() (*Event, int, error) {
	for {
		if a.cur != nil && a.i < len(a.cur.items) {
			it := &a.cur.items[a.i]
			a.i++
			a.probs = it.probs
			return &it.e, it.line, nil
		}
		if a.cur != nil {
			if a.cur.end {
				a.over = true
				return nil, a.lr.n, a.cur.err
			}
			a.free <- a.cur
		}
		b, ok := <-a.full
		if !ok {
			return nil, 0, nil // stopped
		}
		a.cur, a.i = b, 0
	}
}

// Stop ends the reading ahead; Next must not be called after.
func (a *Ahead) Stop() { a.stop() }

// Problems are the LineReader's problems: at the end of the file all of
// them; after Stop, those of the lines before the last event handed out
// (as the LineReader had them then).
func (a *Ahead) Problems() []Problem {
	if a.over {
		a.stop()
		return a.lr.Problems
	}
	a.stop()
	if a.probs == 0 {
		return nil
	}
	return a.lr.Problems[:a.probs]
}

// scanLines is ScanEvents over r, named path in problems and errors, with
// lines of at most max bytes.
func scanLines(r io.Reader, path string, max int, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	lr := newLineReader(r, path, 64<<10, max)
	var keepLine func(string, []byte) bool
	if keep != nil {
		keepLine = func(ev string, _ []byte) bool { return keep(ev) }
	}
	for {
		e, n, err := lr.Next(keepLine)
		if err != nil {
			return lr.Problems, err
		}
		if e == nil {
			return lr.Problems, nil
		}
		if err := fn(e, n); err != nil {
			return lr.Problems, fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
}

// LineReader reads the events of a trace file one at a time, on demand,
// as ScanEvents hands them (same lines, same problems), so that a reader
// can walk many files side by side (trace merge's k-way merge).
type LineReader struct {
	path string
	ls   lineScanner
	n    int
	// Problems are the damaged lines read so far, as ScanEvents reports
	// them: the first MaxListed, then only counted (unlisted), and at the
	// end of the file one problem that says how many more there were. A
	// cut last line is always listed.
	Problems []Problem
	unlisted int
	ev       Event // the event Next returns, reused
}

// MaxListed is how many damaged lines of one file are listed one by one:
// the memory of an analysis must not grow with garbage (a file of a
// million bad lines, or a link to /dev/urandom that a regular-file check
// did not catch), and the first few locate the damage.
const MaxListed = 20

// problem records a damaged line: listed while fewer than MaxListed are,
// counted after (a cut last line is listed anyway: it says the writer
// stopped there).
func (l *LineReader) problem(p Problem) {
	if len(l.Problems) < MaxListed || p.Msg == MsgTruncated {
		l.Problems = append(l.Problems, p)
		return
	}
	l.unlisted++
}

// endProblems closes the list at the end of the file.
func (l *LineReader) endProblems() {
	if l.unlisted > 0 {
		l.Problems = append(l.Problems, Problem{l.path, 0, fmt.Sprintf("%d more damaged lines not listed (the first %d are)", l.unlisted, MaxListed)})
		l.unlisted = 0
	}
}

// Lines is how many lines have been read.
func (l *LineReader) Lines() int { return l.n }

// NewLineReader reads the trace file named path from r through a buffer
// of size bytes (lines may be longer, up to MaxLine).
func NewLineReader(r io.Reader, path string, size int) *LineReader {
	return newLineReader(r, path, size, maxLine)
}

func newLineReader(r io.Reader, path string, size, max int) *LineReader {
	return &LineReader{path: path, ls: lineScanner{r: bufio.NewReaderSize(r, size), max: max}}
}

// Next returns the next event and its line number, or a nil event at the
// end of the file. The event is valid until the next call: a caller may
// keep a copy of *e (the pointers inside are never reused), not e. keep, when not nil, is asked about each complete line
// whose type it can read without decoding it (with the raw line, valid
// until the next call): a line it refuses is skipped undecoded, as
// ScanEvents' keep does. The error is for a file that cannot be read.
func (l *LineReader) Next(keep func(ev string, line []byte) bool) (*Event, int, error) {
	for {
		l.n++
		n := l.n
		line, newline, err := l.ls.next()
		if err != nil {
			return nil, n, fmt.Errorf("trace %s:%d: %w", l.path, n, err)
		}
		if l.ls.tooLong {
			l.problem(Problem{l.path, n, fmt.Sprintf("line longer than %d bytes skipped", l.ls.max)})
			continue
		}
		if line == nil && !newline {
			l.n--
			l.endProblems()
			return nil, n, nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if keep != nil && newline {
			if ev, ok := rawEv(line); ok && !keep(ev, line) {
				continue
			}
		}
		e := &l.ev
		*e = Event{}
		if err = Decode(line, e); err != nil {
			msg := MsgTruncated
			if newline {
				msg = "not a JSON event: " + err.Error()
			}
			l.problem(Problem{l.path, n, msg})
			continue
		}
		if e.Ev == "" {
			l.problem(Problem{l.path, n, `no "ev" field`})
			continue
		}
		if keep != nil && !keep(e.Ev, nil) {
			continue // its "ev" was escaped, repeated or on a last line
		}
		return e, n, nil
	}
}

// lineScanner splits a file into lines of any length up to max bytes,
// reusing one buffer for the lines longer than the reader's.
type lineScanner struct {
	r       *bufio.Reader
	max     int
	long    []byte
	tooLong bool
}

// next returns the next line without its newline, and whether it ended
// with one. At the end of the file it returns (nil, false, nil). The line
// is valid until the next call.
func (s *lineScanner) next() (line []byte, newline bool, err error) {
	s.long, s.tooLong = s.long[:0], false
	for {
		frag, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.keep(frag)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, err
		}
		if len(s.long) > 0 || s.tooLong {
			s.keep(frag)
			frag = s.long
		}
		newline := len(frag) > 0 && frag[len(frag)-1] == '\n'
		if newline {
			frag = frag[:len(frag)-1]
		}
		if len(frag) > s.max {
			s.tooLong = true
		}
		if len(frag) == 0 && !newline && !s.tooLong {
			return nil, false, nil
		}
		return frag, newline, nil
	}
}

// keep adds a fragment of a long line, dropping it once the line passes
// max.
func (s *lineScanner) keep(frag []byte) {
	if s.tooLong || len(s.long)+len(frag) > s.max+1 {
		s.tooLong = true
		s.long = s.long[:0]
		return
	}
	s.long = append(s.long, frag...)
}

// maxLine is MaxLine, lowered by tests.
var maxLine = MaxLine

// evKey is how AppendJSON writes the event type; lines written otherwise
// are simply decoded.
var evKey = []byte(`"ev":"`)

// rawEv finds the event type in a line written by AppendJSON without
// decoding it.
func rawEv(line []byte) (string, bool) {
	i := bytes.Index(line, evKey)
	if i < 0 {
		return "", false
	}
	rest := line[i+len(evKey):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return "", false
	}
	return internEv(rest[:j]), true
}

// reopenReader reads a file from an offset on, opening it for each read
// and closing it after.
type reopenReader struct {
	path string
	off  int64
	// z reads a compressed file (trace.compress: zstd), which cannot be
	// read from an offset: it stays open until its end.
	z    io.ReadCloser
	zerr error // z's error, once it ended (z closed)
}

// NewReopenReader reads the file at path, opening it for each read and
// closing it after, so that a hundred thousand files can be read side by
// side without as many open descriptors (give it a buffer).
func NewReopenReader(path string) io.Reader { return &reopenReader{path: path} }

func (r *reopenReader) Read(p []byte) (int, error) {
	if r.zerr != nil {
		return 0, r.zerr
	}
	if r.z != nil {
		n, err := r.z.Read(p)
		if err != nil {
			r.zerr = err
			r.z.Close()
		}
		return n, err
	}
	f, err := OpenFile(r.path)
	if err != nil {
		return 0, err
	}
	n, err := f.ReadAt(p, r.off)
	f.Close()
	if r.off == 0 && IsZstd(p[:n]) {
		if r.z, err = Open(r.path); err != nil {
			return 0, err
		}
		return r.Read(p)
	}
	r.off += int64(n)
	if errors.Is(err, io.EOF) && n > 0 {
		err = nil
	}
	return n, err
}
