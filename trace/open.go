package trace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// CreateFile creates (or truncates) the file at path for writing, with its
// parent directories, without following a symbolic link at path: a link
// planted where a trace, a log or a run file goes (by anyone who can
// write into the directory) would otherwise make the writer overwrite the
// link's target, whatever it is.
func CreateFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return OpenNoFollow(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
}

// OpenNoFollow opens path with flag (and O_NOFOLLOW), mode 0644 when it
// creates it, and explains a refusal to follow a symbolic link.
func OpenNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0o644)
	if err != nil && errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: refusing to write through it (remove it, or choose another directory)", path)
	}
	return f, err
}

// CheckOutDir refuses an output directory that others control: one owned
// by another user, or writable by every user (a sticky bit does not help:
// others may still plant files of their own names in it). A directory
// that does not exist yet is fine: its writer creates it, as its own.
func CheckOutDir(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("output %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("output directory %s belongs to uid %d, not to this user (uid %d): its owner could plant files in it; choose a directory of your own",
			dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o002 != 0 {
		return fmt.Errorf("output directory %s is writable by every user (mode %v): anyone could plant files in it; choose another, or chmod o-w it",
			dir, fi.Mode().Perm())
	}
	return nil
}
