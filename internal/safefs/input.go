package safefs

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unicode/utf8"
)

// OpenInput opens the input file at path for reading, refusing at once
// anything but a regular file (a FIFO would block a reader forever, a
// device such as /dev/zero never ends, a directory is no file) and a file
// larger than max bytes; what is names the kind of file in messages
// ("mobility file"). The file is opened without blocking (a FIFO without
// a writer would block the open itself) and checked once open, so that
// nothing swapped in after a check is read. The reader should still stop
// at max (Limit): a file may grow while it is read.
func OpenInput(path, what string, max int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s %s: not a regular file (%s); only regular files are read", what, path, KindOf(fi.Mode()))
	}
	if fi.Size() > max {
		f.Close()
		return nil, fmt.Errorf("%s %s: %d bytes, more than the %d allowed", what, path, fi.Size(), max)
	}
	// Reads on a regular file never block; blocking mode again keeps
	// the runtime's poller out of it.
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return f, nil
}

// Limit reads r up to max bytes; one more is an error naming the file.
func Limit(r io.Reader, path, what string, max int64) io.Reader {
	return &limited{r: r, left: max, path: path, what: what, max: max}
}

type limited struct {
	r          io.Reader
	left, max  int64
	path, what string
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, fmt.Errorf("%s %s: more than the %d bytes allowed", l.what, l.path, l.max)
	}
	if room := l.left + 1; room > 0 && int64(len(p)) > room { // room <= 0: max near MaxInt64
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n - int(-l.left), fmt.Errorf("%s %s: more than the %d bytes allowed", l.what, l.path, l.max)
	}
	return n, err
}

// ReadInput reads the whole input file at path (see OpenInput), at most
// max bytes.
func ReadInput(path, what string, max int64) ([]byte, error) {
	f, err := OpenInput(path, what, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(Limit(f, path, what, max))
}

// KindOf names the kind of a file that is not a regular one.
func KindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

// Short quotes s for a message, cut to at most max bytes (Cut): a value
// of a hostile file can be megabytes long, and a message must not print
// it all.
func Short(s string, max int) string {
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", Cut(s, max), len(s))
}

// Cut is s cut to at most max bytes, at a rune boundary.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}
