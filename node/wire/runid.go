package wire

import (
	"encoding/binary"
	"hash/fnv"
)

// RunID derives a run's identifier from its name with FNV-64a, so every
// node of a run computes the same value without coordination and frames of
// another run sharing the multicast group can be told apart and dropped.
// It is what RunIDAt gives without a start time.
func RunID(name string) uint64 { return RunIDAt(name, 0) }

// RunIDAt derives a run's identifier from its name and its common start
// time (Unix ns), which the launcher chooses afresh for every run and
// hands to every process (--start). Two runs reusing a name thus differ on
// the wire, and with a key a frame recorded in one run fails the run check
// of the next: the identifier sits in the header the HMAC covers. A zero
// start (each process starting "now", as by hand on one machine) leaves
// the name alone to tell runs apart.
func RunIDAt(name string, start int64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	if start != 0 {
		var b [9]byte
		binary.BigEndian.PutUint64(b[1:], uint64(start))
		h.Write(b[:]) // the zero byte keeps "a"+start apart from names ending in digits' bytes
	}
	return h.Sum64()
}
