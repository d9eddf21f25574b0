package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/klauspost/compress/zstd"

	"manetlab/internal/safefs"
)

// Open opens the trace file at path for reading its lines, as OpenFile
// does. A file that begins with zstd's magic number (the simulator's
// trace.compress: zstd writes its files as zstd frames) is read
// decompressed, so that every reader of traces reads both kinds. A
// compressed file cut inside a frame (its writer killed, or its disk
// full) reads as far as its last whole block.
func Open(path string) (io.ReadCloser, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	var head [4]byte
	if n, _ := f.ReadAt(head[:], 0); n < len(head) || !IsZstd(head[:]) {
		return f, nil
	}
	d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &zstdFile{d: d, f: f}, nil
}

// zstdMagic begins every zstd frame (RFC 8878).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// IsZstd says whether b begins with zstd's magic number: a compressed
// trace file's first bytes.
func IsZstd(b []byte) bool { return bytes.HasPrefix(b, zstdMagic) }

// zstdFile reads a compressed trace file decompressed.
type zstdFile struct {
	d *zstd.Decoder
	f *os.File
}

func (z *zstdFile) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF // a frame cut short: read what came before it
	}
	return n, err
}

// Stat is the compressed file's.
func (z *zstdFile) Stat() (os.FileInfo, error) { return z.f.Stat() }

func (z *zstdFile) Close() error {
	z.d.Close()
	return z.f.Close()
}

// OpenFile opens the trace file at path for reading, refusing anything but a
// regular file: a FIFO, a device (a link to /dev/zero or /dev/urandom) or
// a directory would make a reader wait or read forever. The file is
// opened without blocking (a FIFO with no writer would block the open
// itself) and checked once open, so that nothing swapped in between a
// check and the open is read. It reads the bytes as they are on disk
// (Open decompresses).
func OpenFile(path string) (*os.File, error) {
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
		return nil, fmt.Errorf("%s: not a regular file (%s); trace files are regular files", path, safefs.KindOf(fi.Mode()))
	}
	return f, nil
}

// CreateFile creates (or truncates) the file at path for writing, with its
// parent directories, without following a symbolic link at path or one
// someone else could have planted on the way (internal/safefs): a link
// planted where a trace, a log or a run file goes (by anyone who can
// write into the directory) would otherwise make the writer overwrite the
// link's target, whatever it is.
func CreateFile(path string) (*os.File, error) {
	return safefs.Create(path)
}

// OpenNoFollow opens path with flag, mode 0644 when it creates it, as
// safefs.OpenFile does: never through a link at path, nor through one on
// the way that someone else could have planted; a file opened for
// writing must be the user's own.
func OpenNoFollow(path string, flag int) (*os.File, error) {
	return safefs.OpenFile(path, flag, 0o644)
}

// CheckOutDir refuses an output directory that others control: one owned
// by another user, or writable by every user (a sticky bit does not help:
// others may still plant files of their own names in it), or reached
// through a symbolic link that someone else could have planted (a link
// owned by another user in /tmp, say: safefs). A directory that does not
// exist yet is fine: its writer creates it, as its own.
func CheckOutDir(dir string) error {
	d, err := safefs.OpenDir(dir, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	uid, mode, err := d.Stat()
	if err != nil {
		return err
	}
	if int(uid) != os.Geteuid() {
		return fmt.Errorf("output directory %s belongs to uid %d, not to this user (uid %d): its owner could plant files in it; choose a directory of your own",
			dir, uid, os.Geteuid())
	}
	if mode.Perm()&0o002 != 0 {
		return fmt.Errorf("output directory %s is writable by every user (mode %v): anyone could plant files in it; choose another, or chmod o-w it",
			dir, mode.Perm())
	}
	return nil
}
