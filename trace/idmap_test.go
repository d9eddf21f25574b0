package trace

import (
	"maps"
	"testing"

	"manetlab/protocol"
)

// TestIDMap holds small IDs in its slice and large ones in its map, and
// answers as a map would.
func TestIDMap(t *testing.T) {
	var m IDMap[string]
	want := map[protocol.NodeID]string{}
	for _, id := range []protocol.NodeID{0, 1, 63, 64, 1000, idDense - 1, idDense, 1 << 31, 4e9} {
		m.Set(id, "v")
		want[id] = "v"
	}
	m.Set(64, "w")
	want[64] = "w"
	for _, id := range []protocol.NodeID{2, 65, 999, idDense + 1, 1<<31 + 1} {
		if v, ok := m.Get(id); ok || v != "" {
			t.Errorf("Get(%d) = %q, %v; want none", id, v, ok)
		}
	}
	got := map[protocol.NodeID]string{}
	m.Each(func(id protocol.NodeID, v string) { got[id] = v })
	if !maps.Equal(got, want) {
		t.Errorf("Each gave %v, want %v", got, want)
	}
	for id, w := range want {
		if v, ok := m.Get(id); !ok || v != w {
			t.Errorf("Get(%d) = %q, %v; want %q", id, v, ok, w)
		}
	}
	if len(m.dense) > idDense {
		t.Errorf("the slice grew to %d, beyond %d", len(m.dense), idDense)
	}
}
