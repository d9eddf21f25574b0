package protocol

import "sort"

// Store is a node's stable storage: a small key-value store that survives
// a crash and a recovery (Garcia-Molina's Assumption 4: the state vector
// is kept in safe storage). A recovered node gets a fresh Process, but the
// same Store with what was put before the crash. In sim the driver keeps
// it in memory across recoveries; a real node writes it atomically to a
// file beside its trace (node-ID.store), so a crash in the middle of a Put
// keeps the old value. Keep it small (counters, a state vector): every
// Put rewrites the whole store.
type Store interface {
	// Get returns the value put under key, or false.
	Get(key string) ([]byte, bool)
	// Put stores value under key; it returns once the value would survive
	// a crash, or an error (a real node's disk failed), in which case the
	// old value is kept.
	Put(key string, value []byte) error
	// Keys lists the keys in ascending order.
	Keys() []string
}

// MemStore is a Store in memory: the simulator's, and what tests and
// drivers without storage hand to protocols. The zero value is empty and
// ready.
type MemStore struct{ m map[string][]byte }

// Get implements Store.
func (s *MemStore) Get(key string) ([]byte, bool) {
	v, ok := s.m[key]
	return append([]byte(nil), v...), ok
}

// Put implements Store.
func (s *MemStore) Put(key string, value []byte) error {
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = append([]byte(nil), value...)
	return nil
}

// Keys implements Store.
func (s *MemStore) Keys() []string {
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
