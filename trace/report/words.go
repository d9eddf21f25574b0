package report

import (
	"cmp"
	"fmt"
	"strconv"
)

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
