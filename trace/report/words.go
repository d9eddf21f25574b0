package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// LeaderCounts maps a leader ID (decimal; "none", "others") to how many
// nodes follow it. As JSON its keys come in numeric order (1, 2, 10),
// where a plain map's would come as strings (1, 10, 2).
type LeaderCounts map[string]int

// MarshalJSON writes the object with its keys in cmpKeys order.
func (m LeaderCounts) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmpKeys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		fmt.Fprintf(&b, ":%d", m[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// cmpKeys orders the keys of a leaders map: node IDs by number (1, 2, 10,
// not 1, 10, 2), then words such as "none" and "others" alphabetically.
func cmpKeys(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// nodes is "1 node" or "3 nodes".
func nodes(n int) string { return count(n, "node", "nodes") }

// count is n with the singular or plural noun: "1 component", "2 components".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
