package trace

import (
	"fmt"
	"os"
	"syscall"
)

// Open opens the trace file at path for reading, refusing anything but a
// regular file: a FIFO, a device (a link to /dev/zero or /dev/urandom) or
// a directory would make a reader wait or read forever. The file is
// opened without blocking (a FIFO with no writer would block the open
// itself) and checked once open, so that nothing swapped in between a
// check and the open is read.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s); trace files are regular files", path, kindOf(fi.Mode()))
	}
	return f, nil
}

func kindOf(m os.FileMode) string {
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
