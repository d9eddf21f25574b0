package analysis

// dedup finds the lines a process logged twice (a collector that
// re-sent a batch, one node's file gathered in two directories). Two
// copies of a line have the same time, so while a process's times never
// go back only the lines at its latest time need comparing: they are kept
// in a small window, the older ones only as hashes, in order. When a time
// goes back (damage, or a second file of the same node) the process
// switches for good to a map of every line it logged, rebuilt from those
// hashes, so that the answer is the same as a map kept from the start.
type dedup struct {
	t    int64
	any  bool
	win  []dupLine         // the lines at time t
	old  []dupLine         // the lines before t, in order
	full map[uint64]uint64 // once a time went back: every line
	big  map[uint64]uint64 // the window, when it holds many lines
}

// dupLine is a line's hash and where it is (file<<32 | line).
type dupLine struct{ hash, at uint64 }

// winMax is how many lines at one time the window compares one by one.
const winMax = 32

// seen records the line with hash h at time t, found at at, and returns
// where its first copy is when it is a duplicate.
func (d *dedup) seen(t int64, h, at uint64) (uint64, bool) {
	if d.full == nil && d.any && t < d.t {
		d.full = make(map[uint64]uint64, len(d.old)+len(d.win))
		for _, l := range d.old {
			if _, ok := d.full[l.hash]; !ok {
				d.full[l.hash] = l.at
			}
		}
		for _, l := range d.win {
			if _, ok := d.full[l.hash]; !ok {
				d.full[l.hash] = l.at
			}
		}
		d.old, d.win, d.big = nil, nil, nil
	}
	if d.full != nil {
		if prev, ok := d.full[h]; ok {
			return prev, true
		}
		d.full[h] = at
		return 0, false
	}
	if !d.any || t > d.t {
		d.old = append(d.old, d.win...)
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

// lineHash is the FNV-1a hash of a canonical line.
func lineHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}
