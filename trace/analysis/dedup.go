package analysis

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
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
	t   int64
	any bool
	// The lines at time t: n of them, the first in few (beside t, so
	// that a node's line at a new time touches no memory of its own:
	// a miss per line at 100,000 nodes), the rest in win.
	n    int
	few  [2]dupLine
	win  []dupLine
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
		d.n, d.win, d.big = 0, nil, nil
	}
	if d.full != nil {
		if prev, ok := d.full[h]; ok {
			return prev, true
		}
		d.full[h] = at
		return 0, false
	}
	if !d.any || t > d.t {
		d.n, d.win, d.big = 0, d.win[:0], nil
		d.t, d.any = t, true
	}
	if d.big != nil {
		if prev, ok := d.big[h]; ok {
			return prev, true
		}
		d.big[h] = at
	} else {
		for _, l := range d.few[:min(d.n, len(d.few))] {
			if l.hash == h {
				return l.at, true
			}
		}
		for _, l := range d.win {
			if l.hash == h {
				return l.at, true
			}
		}
		if d.n == winMax {
			d.big = make(map[uint64]uint64, 2*winMax)
			for _, l := range append(d.few[:], d.win...) {
				d.big[l.hash] = l.at
			}
			d.big[h] = at
		}
	}
	if d.n < len(d.few) {
		d.few[d.n] = dupLine{h, at}
	} else {
		d.win = append(d.win, dupLine{h, at})
	}
	d.n++
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
			add(eventHash(e), uint64(fi)<<32|uint64(uint32(line)))
			return nil
		})
	}
}

// lineSeed seeds eventHash for the life of the process: hashes are
// compared only with hashes of the same process.
var lineSeed = maphash.MakeSeed()

// eventHash is the hash of e's canonical line (trace.AppendJSON's), taken
// from its fields without writing the line: for events read from JSON
// (valid UTF-8 strings, no NaN) two lines are equal exactly when their
// fields are, pointers compared by what they point to, floats by their
// bits (-0 is written "-0", 0 "0"). Writing the line was a fifth of a
// check's CPU at 100,000 nodes.
func eventHash(e *trace.Event) uint64 {
	var b [30 * 8]byte
	w := b[:0]
	put := func(v uint64) { w = binary.LittleEndian.AppendUint64(w, v) }
	str := func(s string) {
		if s == "" {
			put(0)
			return
		}
		put(maphash.String(lineSeed, s))
	}
	var flags uint64
	var hlc trace.HLC
	if e.HLC != nil {
		flags, hlc = 1, *e.HLC
	}
	var value uint64
	if e.Value != nil {
		flags |= 2
		value = math.Float64bits(*e.Value)
	}
	var pos [3]float64
	if e.Pos != nil {
		flags |= 4
		pos = *e.Pos
	}
	put(uint64(e.T))
	put(uint64(e.Wall))
	put(uint64(hlc.Wall))
	put(uint64(hlc.Logical) | flags<<32)
	put(uint64(e.Node) | uint64(e.From)<<32)
	put(uint64(e.To) | uint64(e.Origin)<<32)
	put(uint64(e.Leader) | uint64(e.Peer)<<32)
	put(e.Seq)
	put(e.OSeq)
	put(uint64(e.Hops))
	put(uint64(e.Bytes))
	put(value)
	put(math.Float64bits(pos[0]))
	put(math.Float64bits(pos[1]))
	put(math.Float64bits(pos[2]))
	put(uint64(e.Schema))
	put(e.Seed)
	str(e.Ev)
	str(e.Kind)
	str(e.Reason)
	str(e.Epoch)
	str(e.Text)
	str(e.Run)
	str(e.Driver)
	str(e.Protocol)
	str(e.Scenario)
	str(e.Host)
	str(e.ScenarioHash)
	str(e.Src)
	return maphash.Bytes(lineSeed, w)
}
