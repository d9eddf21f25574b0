package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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
// not checked beyond its "ev" field. The lines are read and decoded a
// little ahead of fn, on another goroutine (scanAhead): keep is called
// there, and must be safe for that (a function of ev alone).
func ScanEvents(path string, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	f, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	return scanAhead(f, path, maxLine, keep, fn)
}

// aheadBatch is how many decoded events scanAhead hands over at a time;
// aheadBatches how many batches it uses.
const (
	aheadBatch   = 256
	aheadBatches = 4
)

// scanAhead is scanLines with the reading and decoding of the lines on a
// goroutine of its own, up to a few batches ahead of fn, so that a large
// trace's decoding takes the second core while fn judges the events
// before: fn sees the same events, lines and problems in the same order,
// and on an error the same problems (those of the lines before).
func scanAhead(r io.Reader, path string, max int, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	type item struct {
		e     Event
		line  int
		probs int // len(Problems) when it was read
	}
	type batch struct {
		items []item
		end   bool
		err   error
	}
	lr := newLineReader(r, path, 64<<10, max)
	var keepLine func(string, []byte) bool
	if keep != nil {
		keepLine = func(ev string, _ []byte) bool { return keep(ev) }
	}
	full := make(chan *batch, aheadBatches)
	free := make(chan *batch, aheadBatches)
	for range aheadBatches {
		free <- &batch{items: make([]item, 0, aheadBatch)}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		for {
			var b *batch
			select {
			case b = <-free:
			case <-done:
				return
			}
			b.items = b.items[:0]
			for len(b.items) < aheadBatch && !b.end {
				e, n, err := lr.Next(keepLine)
				switch {
				case err != nil:
					b.end, b.err = true, err
				case e == nil:
					b.end = true
				default:
					b.items = append(b.items, item{*e, n, len(lr.Problems)})
				}
			}
			select {
			case full <- b:
			case <-done:
				return
			}
			if b.end {
				return
			}
		}
	}()
	stop := sync.OnceFunc(func() {
		close(done)
		wg.Wait()
	})
	defer stop()
	var err error
	for b := range full {
		for i := range b.items {
			it := &b.items[i]
			if ferr := fn(&it.e, it.line); ferr != nil {
				stop()
				var ps []Problem // as scanLines has them then: nil for none
				if it.probs > 0 {
					ps = lr.Problems[:it.probs]
				}
				return ps, fmt.Errorf("%s:%d: %w", path, it.line, ferr)
			}
		}
		if b.end {
			err = b.err
		}
		free <- b
	}
	stop()
	return lr.Problems, err
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
