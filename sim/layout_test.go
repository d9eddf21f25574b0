package sim

import (
	"testing"
	"unsafe"
)

// TestNodeCacheLines: a node is a whole number of 64-byte cache lines
// (its padding says so), and its head, its stack's driver and its stack
// come first, so that each node's state read at every frame in reach
// starts at a line's start in w.all. Adding a field to node or
// netstack.Stack changes the size: adjust node's padding.
func TestNodeCacheLines(t *testing.T) {
	var n node
	if s := unsafe.Sizeof(n); s%64 != 0 {
		t.Errorf("node is %d bytes, not a multiple of 64: add %d bytes to its padding, or take %d off", s, 64-s%64, s%64)
	}
	if o := unsafe.Offsetof(n.stack); o > 64 {
		t.Errorf("node's stack starts at byte %d, beyond its first cache line", o)
	}
}
