package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// StatDir says in words when a run directory does not exist or is not a
// directory ("run directory runs/x does not exist"), rather than that it
// has no run file. The error wraps the file system's (fs.ErrNotExist).
func StatDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &dirError{fmt.Sprintf("run directory %s does not exist", dir), err}
	case err != nil:
		return fmt.Errorf("run directory %s: %w", dir, err)
	case !fi.IsDir():
		return &dirError{fmt.Sprintf("run directory %s is not a directory (give the directory that holds %s)", dir, RunFileName), nil}
	}
	return nil
}

type dirError struct {
	msg string
	err error
}

func (e *dirError) Error() string { return e.msg }
func (e *dirError) Unwrap() error { return e.err }
