// Package hugepage asks the kernel to back a large, randomly accessed
// array with transparent huge pages (2 MiB on amd64), where the kernel
// offers them on request (transparent_hugepage "madvise" or "always").
//
// A large simulation visits its nodes in no order of memory: each event
// is at a node drawn at random from a million. With 4 KiB pages, every
// such visit also misses the TLB and walks the page table (8 MiB of
// page-table entries for 4 GiB), which is most of why an event costs more
// as the network grows; with 2 MiB pages the whole array's translations
// fit in the TLB.
package hugepage

import (
	"os"
	"unsafe"
)

// off: MANETLAB_NOHUGEPAGE set (to anything) turns the advice off, to
// measure what it is worth.
var off = os.Getenv("MANETLAB_NOHUGEPAGE") != ""

// Size is a huge page's size: what is advised is the part of a slice
// that covers whole, aligned 2 MiB pages.
const Size = 2 << 20

// Advise advises the whole huge pages inside s's backing array (up to its
// capacity) and reports whether the kernel took the advice. It does not
// change s's contents or what a program may do with it: the advice only
// changes how the pages are backed. Small arrays (less than two huge
// pages) are left alone.
func Advise[T any](s []T) bool {
	if cap(s) == 0 || off {
		return false
	}
	var zero T
	bytes := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if bytes < 2*Size {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := (start + Size - 1) &^ (Size - 1)
	hi := (start + bytes) &^ (Size - 1)
	if hi <= lo {
		return false
	}
	return advise(lo, hi-lo)
}
