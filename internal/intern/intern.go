// Package intern numbers strings: each distinct string gets the next
// index, so that events can hold a small integer instead of a string.
package intern

import (
	"maps"
	"slices"
)

// Table holds the strings in the order they were first seen.
type Table struct {
	// Strs are the strings by index.
	Strs []string
	idx  map[string]uint32
}

// New returns a table holding first at indexes 0, 1, ...
func New(first ...string) *Table {
	t := &Table{idx: map[string]uint32{}}
	for _, s := range first {
		t.Index(s)
	}
	return t
}

// Index returns s's index, adding it if it is new.
func (t *Table) Index(s string) uint32 {
	if i, ok := t.idx[s]; ok {
		return i
	}
	i := uint32(len(t.Strs))
	t.Strs = append(t.Strs, s)
	t.idx[s] = i
	return i
}

// Clone returns a table of its own holding the same strings.
func (t *Table) Clone() *Table {
	return &Table{Strs: slices.Clone(t.Strs), idx: maps.Clone(t.idx)}
}
