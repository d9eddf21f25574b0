// Package safefs opens the files manetlab writes without following a
// symbolic link that someone else could have planted, and the files it
// reads only when they are regular files of a bounded size.
//
// A path is resolved one component at a time from an opened directory
// (openat), as the kernel's protected_symlinks does for sticky
// world-writable directories, but stricter: a symbolic link found in a
// directory that others may write into (sticky, group- or other-writable)
// is followed only when it belongs to the invoking user or to the
// directory's owner; any other link there is refused with the path and
// the reason. The last component of a file opened for writing is never
// followed (O_NOFOLLOW), and a file found there must be the user's own.
// So a link planted in /tmp, in a shared group directory or inside an
// output directory others can write into cannot redirect a write.
package safefs

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks bounds the links followed while resolving one path, as the
// kernel's 40.
const maxLinks = 40

// PlantedError is a symbolic link refused: it lies in a directory others
// can write into and belongs neither to this user nor to the directory's
// owner.
type PlantedError struct {
	Path     string      // the link, as reached
	LinkUID  uint32      // its owner
	Dir      string      // the directory holding it
	DirUID   uint32      // that directory's owner
	DirMode  os.FileMode // and mode
	UserUID  int         // the invoking user
	Followed string      // what the link points to
}

func (e *PlantedError) Error() string {
	return fmt.Sprintf("%s is a symbolic link (to %s) owned by uid %d in %s, a directory others can write into (mode %v, owner uid %d): refusing to follow it, since anyone able to write there could have planted it (a link there is followed only when it belongs to you, uid %d, or to the directory's owner); remove it or give the real path",
		e.Path, Short(e.Followed, 80), e.LinkUID, e.Dir, e.DirMode, e.DirUID, e.UserUID)
}

// shared reports whether users other than its owner may add entries to a
// directory of mode m: sticky, or writable by its group or by all.
func shared(m uint32) bool {
	return m&unix.S_ISVTX != 0 || m&0o022 != 0
}

// walker resolves a path component by component from an opened directory.
type walker struct {
	fd     int    // the directory reached so far
	shown  string // its path as reached, for messages
	links  int
	create bool // create missing directories (mkdirat, perm 0755)
}

func (w *walker) close() {
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
}

// start opens the walk's first directory: / for an absolute path, the
// working directory otherwise.
func (w *walker) start(abs bool) error {
	w.close()
	from, shown := ".", ""
	if abs {
		from, shown = "/", "/"
	}
	fd, err := unix.Open(from, dirFlags, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: from, Err: err}
	}
	w.fd, w.shown = fd, shown
	return nil
}

// walk resolves path (every component a directory) from the current one.
func (w *walker) walk(path string) error {
	if strings.HasPrefix(path, "/") {
		if err := w.start(true); err != nil {
			return err
		}
	}
	for _, comp := range strings.Split(path, "/") {
		if comp == "" || comp == "." {
			continue
		}
		if err := w.step(comp); err != nil {
			return err
		}
	}
	return nil
}

// step moves into the directory comp of the current one, following a
// symbolic link only when the rule of the package allows it.
func (w *walker) step(comp string) error {
	shown := joinShown(w.shown, comp)
	for try := 0; ; try++ {
		fd, err := unix.Openat(w.fd, comp, dirFlags|unix.O_NOFOLLOW, 0)
		if err == nil {
			unix.Close(w.fd)
			w.fd, w.shown = fd, shown
			return nil
		}
		var st unix.Stat_t
		if serr := unix.Fstatat(w.fd, comp, &st, unix.AT_SYMLINK_NOFOLLOW); serr != nil {
			if errors.Is(serr, unix.ENOENT) && w.create {
				if merr := unix.Mkdirat(w.fd, comp, 0o755); merr != nil && !errors.Is(merr, unix.EEXIST) {
					return &os.PathError{Op: "mkdir", Path: shown, Err: merr}
				}
				continue // opened (and checked) on the next turn
			}
			return &os.PathError{Op: "open", Path: shown, Err: serr}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			switch {
			case st.Mode&unix.S_IFMT != unix.S_IFDIR:
				return &os.PathError{Op: "open", Path: shown, Err: unix.ENOTDIR}
			case errors.Is(err, unix.ENOENT) && try < 3:
				continue // made by another writer since the open
			}
			return &os.PathError{Op: "open", Path: shown, Err: err}
		}
		return w.follow(comp, shown, &st)
	}
}

// follow resolves the link comp of the current directory, if allowed.
func (w *walker) follow(comp, shown string, link *unix.Stat_t) error {
	target, err := readlinkat(w.fd, comp)
	if err != nil {
		return &os.PathError{Op: "readlink", Path: shown, Err: err}
	}
	var dir unix.Stat_t
	if err := unix.Fstat(w.fd, &dir); err != nil {
		return &os.PathError{Op: "stat", Path: w.shownDir(), Err: err}
	}
	uid := os.Geteuid()
	if shared(dir.Mode) && int(link.Uid) != uid && link.Uid != dir.Uid {
		return &PlantedError{Path: shown, LinkUID: link.Uid, Dir: w.shownDir(), DirUID: dir.Uid,
			DirMode: modeOf(dir.Mode), UserUID: uid, Followed: target}
	}
	if w.links++; w.links > maxLinks {
		return &os.PathError{Op: "open", Path: shown, Err: unix.ELOOP}
	}
	// walk starts again at / for an absolute target; a relative one is
	// read from the directory holding the link.
	return w.walk(target)
}

func (w *walker) shownDir() string {
	if w.shown == "" {
		return "."
	}
	return w.shown
}

func joinShown(dir, comp string) string {
	switch dir {
	case "":
		return comp
	case "/":
		return "/" + comp
	}
	return dir + "/" + comp
}

func readlinkat(fd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(fd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
		if size > 1<<16 {
			return "", unix.ENAMETOOLONG
		}
	}
}

// modeOf converts a stat mode to an os.FileMode for messages.
func modeOf(m uint32) os.FileMode {
	mode := os.FileMode(m & 0o777)
	if m&unix.S_ISVTX != 0 {
		mode |= os.ModeSticky
	}
	if m&unix.S_IFMT == unix.S_IFDIR {
		mode |= os.ModeDir
	}
	return mode
}

// resolve opens the directory at path, creating what is missing when
// create; the caller closes the descriptor.
func resolve(path string, create bool) (int, error) {
	w := &walker{fd: -1, create: create}
	if err := w.start(filepath.IsAbs(path)); err != nil {
		return -1, err
	}
	if err := w.walk(path); err != nil {
		w.close()
		return -1, err
	}
	return w.fd, nil
}

// Dir is an opened directory: files are created in it by name (openat),
// never through a link.
type Dir struct {
	fd   int
	path string
}

// OpenDir opens the directory at path, checking every link on the way;
// with create, what does not exist yet is made (0755).
func OpenDir(path string, create bool) (*Dir, error) {
	fd, err := resolve(path, create)
	if err != nil {
		return nil, err
	}
	return &Dir{fd: fd, path: path}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Stat describes the directory itself (the one opened, not a link).
func (d *Dir) Stat() (uid uint32, mode os.FileMode, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return 0, 0, &os.PathError{Op: "stat", Path: d.path, Err: err}
	}
	return st.Uid, modeOf(st.Mode), nil
}

// OpenFile opens name (one component) in the directory; see OpenFile.
func (d *Dir) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return openIn(d.fd, filepath.Join(d.path, name), name, flag, perm)
}

// MkdirAll creates the directories of path (and checks the links on the
// way, as OpenDir does).
func MkdirAll(path string) error {
	fd, err := resolve(path, true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// OpenFile opens the file at path as os.OpenFile does, with mode perm
// when it creates it, resolving its directory as OpenDir does and never
// following a link at path itself. A file opened for writing that exists
// must belong to this user: one planted by someone else is refused.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	dir, name := filepath.Split(path)
	if name == "" || name == "." || name == ".." {
		return nil, &os.PathError{Op: "open", Path: path, Err: unix.EISDIR}
	}
	fd, err := resolve(dir, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return openIn(fd, path, name, flag, perm)
}

// Create creates or truncates the file at path for writing (0644), with
// its directories, as OpenFile and MkdirAll do.
func Create(path string) (*os.File, error) {
	dir, _ := filepath.Split(path) // not Dir: Clean would read ".." before the links
	if err := MkdirAll(dir); err != nil {
		return nil, err
	}
	return OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
}

// WriteFile writes data to the file at path as Create does.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func openIn(dirfd int, path, name string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Openat(dirfd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link: refusing to write through it (remove it, or choose another directory)", path)
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			f.Close()
			return nil, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		if uid := os.Geteuid(); int(st.Uid) != uid {
			f.Close()
			return nil, fmt.Errorf("%s belongs to uid %d, not to this user (uid %d): refusing to write into a file someone else put there (remove it, or choose another directory)", path, st.Uid, uid)
		}
	}
	return f, nil
}

// Rename renames oldpath to newpath (a link at newpath is replaced, not
// followed), resolving both directories as OpenDir does.
func Rename(oldpath, newpath string) error {
	odir, oname := filepath.Split(oldpath)
	ndir, nname := filepath.Split(newpath)
	ofd, err := resolve(odir, false)
	if err != nil {
		return err
	}
	defer unix.Close(ofd)
	nfd, err := resolve(ndir, false)
	if err != nil {
		return err
	}
	defer unix.Close(nfd)
	if err := unix.Renameat(ofd, oname, nfd, nname); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// CreateTemp creates a new file named prefix followed by random digits in
// dir (O_EXCL, 0600), resolving dir as OpenDir does; the caller renames
// it into place (Rename) or removes it.
func CreateTemp(dir, prefix string) (*os.File, error) {
	fd, err := resolve(dir, false)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	for try := 0; ; try++ {
		var b [6]byte
		rand.Read(b[:])
		name := fmt.Sprintf("%s%x", prefix, b)
		f, err := openIn(fd, filepath.Join(dir, name), name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, os.ErrExist) || try == 100 {
			return f, err
		}
	}
}

// WriteAtomic writes the file at path (0644) through write, whole or not
// at all: into a temporary file beside it (CreateTemp), renamed into
// place (Rename) once write and the close succeed. Readers see the old
// file or the whole new one; after a failure the temporary file is gone
// and the old file untouched.
func WriteAtomic(path string, write func(io.Writer) error) error {
	f, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op after the rename
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return Rename(f.Name(), path)
}

// WriteFileAtomic writes data to the file at path as WriteAtomic does.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
