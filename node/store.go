package node

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"manetlab/internal/safefs"
	"manetlab/protocol"
)

// StoreFile is where node id keeps its stable storage in the trace
// directory dir: node-<id>.store, beside its trace.
func StoreFile(dir string, id protocol.NodeID) string {
	return filepath.Join(dir, "node-"+strconv.FormatUint(uint64(id), 10)+".store")
}

// fileStore is a real node's protocol.Store: the entries in memory, and
// every Put rewriting the whole file atomically (a temporary file in the
// same directory, fsync, rename over the old one, fsync the directory), so
// that a node killed at any moment leaves either the old store or the new
// one. Only the loop uses it.
type fileStore struct {
	path string
	run  string
	id   protocol.NodeID
	m    map[string][]byte
	log  io.Writer // failed Puts are logged here too; nil: not logged
}

// openStore loads node id's store from dir. A missing file, or the file
// of another run, gives an empty store. A file that cannot be read or
// decoded is renamed aside (node-<id>.store.corrupt) and the store starts
// empty; lost then says what happened, for the log and the trace.
func openStore(dir, run string, id protocol.NodeID) (s *fileStore, lost error) {
	s = &fileStore{path: StoreFile(dir, id), run: run, id: id, m: map[string][]byte{}}
	// Temporary files are left only by a node killed before its rename:
	// the store file still holds what the interrupted Put replaced.
	if tmps, err := filepath.Glob(s.path + ".tmp-*"); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err == nil {
		var fileRun string
		var fileID protocol.NodeID
		var m map[string][]byte
		fileRun, fileID, m, err = decodeStore(b)
		switch {
		case err == nil && fileID != id:
			err = fmt.Errorf("it holds node %d's store", fileID)
		case err == nil && fileRun != run:
			return s, nil // another run's, replaced at the first Put as its trace was
		case err == nil:
			s.m = m
			return s, nil
		}
	}
	name := filepath.Base(s.path)
	aside, rerr := setAside(s.path)
	if rerr != nil {
		return s, fmt.Errorf("%s is corrupt (%v): starting empty; could not keep it aside: %v", name, err, rerr)
	}
	return s, fmt.Errorf("%s is corrupt (%v): starting empty; kept as %s", name, err, filepath.Base(aside))
}

// setAside renames a corrupt store to path.corrupt (or .corrupt.2, .3, ...
// if that exists), so that nothing is lost.
func setAside(path string) (string, error) {
	aside := path + ".corrupt"
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if i > 1000 {
			return "", errors.New("too many corrupt stores kept")
		}
		aside = path + ".corrupt." + strconv.Itoa(i)
	}
	return aside, os.Rename(path, aside)
}

// Get implements protocol.Store.
func (s *fileStore) Get(key string) ([]byte, bool) {
	v, ok := s.m[key]
	return bytes.Clone(v), ok
}

// Keys implements protocol.Store.
func (s *fileStore) Keys() []string {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Put implements protocol.Store: it returns once the file holding value
// is on disk, or with the error, the old value kept. (When only the final
// directory sync fails, the file may already hold the new value: after a
// crash the node sees one or the other.)
func (s *fileStore) Put(key string, value []byte) error {
	old, had := s.m[key]
	if had && bytes.Equal(old, value) {
		return nil // already on disk
	}
	s.m[key] = append([]byte{}, value...)
	if err := s.save(); err != nil {
		if had {
			s.m[key] = old
		} else {
			delete(s.m, key)
		}
		err = fmt.Errorf("store %s: %w", s.path, err)
		if s.log != nil {
			fmt.Fprintf(s.log, "node %d: %v (the old value is kept)\n", s.id, err)
		}
		return err
	}
	return nil
}

// save writes the whole store to its file atomically.
func (s *fileStore) save() error {
	dir := filepath.Dir(s.path)
	f, err := safefs.CreateTemp(dir, filepath.Base(s.path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(encodeStore(s.run, s.id, s.m))
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = safefs.Rename(tmp, s.path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
