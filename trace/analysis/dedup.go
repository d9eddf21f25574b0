package analysis

import (
	"errors"
	"hash/maphash"
	"slices"

	"manetlab/protocol"
	"manetlab/trace"
)

// dedup finds the lines a process logged twice (a collector that
// re-sent a batch, one node's file gathered in two directories). Two
// copies of a line have the same time, so while a process's times never
// go back only the lines at its latest time need comparing: they are kept
// in a small window, and nothing of the older ones. When a time goes back
// (damage, or a second file of the same node) the process switches for
// good to a map of every line it logged, rebuilt by reading its lines
// before this one again (history), so that the answer is the same as a
// map kept from the start, at no cost for traces whose times never go
// back.
type dedup struct {
	t    int64
	any  bool
	win  []dupLine         // the lines at time t
	big  map[uint64]uint64 // the window, when it holds many lines
	full map[uint64]uint64 // once a time went back: every line
}

// dupLine is a line's hash and where it is (file<<32 | line).
type dupLine struct{ hash, at uint64 }

// winMax is how many lines at one time the window compares one by one.
const winMax = 32

// history calls add for every line the process logged before the one
// being judged, in order, with its hash and place.
type history func(add func(hash, at uint64))

// seen records the line with hash h at time t, found at at, and returns
// where its first copy is when it is a duplicate. past gives the
// process's earlier lines, and is called only when a time goes back.
func (d *dedup) seen(t int64, h, at uint64, past history) (uint64, bool) {
	if d.full == nil && d.any && t < d.t {
		d.full = map[uint64]uint64{}
		past(func(h, at uint64) {
			if _, ok := d.full[h]; !ok {
				d.full[h] = at
			}
		})
		d.win, d.big = nil, nil
	}
	if d.full != nil {
		if prev, ok := d.full[h]; ok {
			return prev, true
		}
		d.full[h] = at
		return 0, false
	}
	if !d.any || t > d.t {
		d.win, d.big = d.win[:0], nil
		d.t, d.any = t, true
	}
	if d.big != nil {
		if prev, ok := d.big[h]; ok {
			return prev, true
		}
		d.big[h] = at
	} else {
		for _, l := range d.win {
			if l.hash == h {
				return l.at, true
			}
		}
		if len(d.win) == winMax {
			d.big = make(map[uint64]uint64, 2*winMax)
			for _, l := range d.win {
				d.big[l.hash] = l.at
			}
			d.big[h] = at
		}
	}
	d.win = append(d.win, dupLine{h, at})
	return 0, false
}

// segment is a file a process's lines came from: a node file, the run
// file, or its lines of the combined node file.
type segment struct {
	file     int32
	combined bool
}

// errRescanned stops a rescan at the line being judged.
var errRescanned = errors.New("rescanned")

// rescan reads again the lines of process id (0: the run file) in the
// files segs, then in cur up to (not including) line upto, as load
// accepted them, and adds each one's hash (history).
func (r *run) rescan(id protocol.NodeID, segs []segment, cur segment, upto int, keep func(string) bool, add func(hash, at uint64)) {
	var buf []byte
	for k, sg := range append(slices.Clone(segs), cur) {
		last := k == len(segs)
		first := true
		fi := sg.file
		r.fsrc.ScanEvents(r.files[fi], keep, func(e *trace.Event, line int) error {
			if last && line >= upto {
				return errRescanned
			}
			if sg.combined && e.Node != id {
				return nil
			}
			if first {
				first = false // the header
				return nil
			}
			if !r.nodeLine(r.files[fi], id, sg.combined, line, e, nil) {
				return nil
			}
			buf = trace.AppendJSON(buf[:0], e)
			add(lineHash(buf), uint64(fi)<<32|uint64(uint32(line)))
			return nil
		})
	}
}

// lineSeed seeds lineHash for the life of the process: hashes are
// compared only with hashes of the same process.
var lineSeed = maphash.MakeSeed()

// lineHash is the hash of a canonical line (hash/maphash: a machine word
// at a time, not a byte).
func lineHash(b []byte) uint64 { return maphash.Bytes(lineSeed, b) }
