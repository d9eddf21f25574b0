package trace

import "manetlab/protocol"

// IDMap maps node IDs to values: a slice for the small IDs a run's nodes
// have (1 to n), a map for the others, so that the lookups of every line
// of a large run hash nothing. The zero IDMap is empty and ready.
type IDMap[V any] struct {
	dense  []V
	has    []bool
	sparse map[protocol.NodeID]V
}

// idDense bounds the IDs an IDMap keeps in its slice: a hostile trace
// naming one node 4,000,000,000 costs a map entry, not a slice that long.
const idDense = 1 << 21

// Get returns id's value and whether it has one.
func (m *IDMap[V]) Get(id protocol.NodeID) (V, bool) {
	if int(id) < len(m.dense) {
		return m.dense[id], m.has[id]
	}
	v, ok := m.sparse[id]
	return v, ok
}

// Set gives id the value v.
func (m *IDMap[V]) Set(id protocol.NodeID, v V) {
	if id >= idDense {
		if m.sparse == nil {
			m.sparse = map[protocol.NodeID]V{}
		}
		m.sparse[id] = v
		return
	}
	if int(id) >= len(m.dense) {
		n := min(max(int(id)+1, 2*len(m.dense), 64), idDense)
		m.dense = append(m.dense, make([]V, n-len(m.dense))...)
		m.has = append(m.has, make([]bool, n-len(m.has))...)
	}
	m.dense[id], m.has[id] = v, true
}

// Each calls fn for every ID with a value, in no particular order.
func (m *IDMap[V]) Each(fn func(id protocol.NodeID, v V)) {
	for id, ok := range m.has {
		if ok {
			fn(protocol.NodeID(id), m.dense[id])
		}
	}
	for id, v := range m.sparse {
		fn(id, v)
	}
}
