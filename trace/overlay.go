package trace

import (
	"fmt"
	"path/filepath"
	"slices"
)

// WithRunFile is src with the run file of dir replaced by evs, in memory:
// the run as its writer knows it, for a summary when the file itself could
// not be written (a full disk left the provisional one, without the
// faults applied). Every other file is read from src.
func WithRunFile(src Source, dir string, evs []Event) Source {
	return runFileOverlay{Source: src, path: RunFile(dir), dir: filepath.Clean(dir), evs: evs}
}

type runFileOverlay struct {
	Source
	path, dir string
	evs       []Event
}

func (o runFileOverlay) ScanEvents(path string, keep func(ev string) bool, fn func(e *Event, line int) error) ([]Problem, error) {
	if path != o.path {
		return o.Source.ScanEvents(path, keep, fn)
	}
	for i := range o.evs {
		e := o.evs[i] // fn may keep or change it
		if keep != nil && !keep(e.Ev) {
			continue
		}
		if err := fn(&e, i+1); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
	}
	return nil, nil
}

func (o runFileOverlay) Names(dir string) ([]string, error) {
	names, err := o.Source.Names(dir)
	if err != nil || filepath.Clean(dir) != o.dir || slices.Contains(names, RunFileName) {
		return names, err
	}
	names = append(names, RunFileName)
	slices.Sort(names)
	return names, nil
}

func (o runFileOverlay) Size(path string) (int64, error) {
	if path != o.path {
		return o.Source.Size(path)
	}
	// What the file would take: about a hundred bytes an event.
	return int64(100 * len(o.evs)), nil
}
