package wire

import "hash/fnv"

// RunID derives a run's identifier from its name with FNV-64a, so every
// node of a run computes the same value without coordination and frames of
// another run sharing the multicast group can be told apart and dropped.
func RunID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}
