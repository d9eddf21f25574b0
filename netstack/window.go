package netstack

// windowBits is how far behind the newest sequence number a frame may
// arrive and still be told apart from a duplicate. Older frames are
// dropped as duplicates: with one-hop latencies of milliseconds, a frame
// 1024 sequence numbers late is a replay, not a reordering.
const windowBits = 1024

// Window remembers which of the last windowBits sequence numbers of one
// sender (or flood origin) were seen, in constant memory, so that
// duplicate suppression stays bounded however long the run and whatever
// an attacker sends.
type Window struct {
	max  uint64
	bits [windowBits / 64]uint64
}

// Accept reports whether seq is new, and records it. Sequence numbers
// start at 1; 0 is never new.
func (w *Window) Accept(seq uint64) bool {
	if seq == 0 {
		return false
	}
	if seq > w.max {
		if seq-w.max >= windowBits {
			w.bits = [windowBits / 64]uint64{}
		} else {
			for s := w.max + 1; s < seq; s++ {
				w.clear(s)
			}
		}
		w.max = seq
		w.set(seq)
		return true
	}
	if w.max-seq >= windowBits || w.has(seq) {
		return false
	}
	w.set(seq)
	return true
}

func (w *Window) set(s uint64)      { w.bits[(s%windowBits)/64] |= 1 << (s % 64) }
func (w *Window) clear(s uint64)    { w.bits[(s%windowBits)/64] &^= 1 << (s % 64) }
func (w *Window) has(s uint64) bool { return w.bits[(s%windowBits)/64]&(1<<(s%64)) != 0 }
