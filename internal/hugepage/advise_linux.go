package hugepage

import "golang.org/x/sys/unix"

// advise marks [addr, addr+n) for huge pages and collapses what is
// already backed by small ones (MADV_COLLAPSE, Linux 6.1; an older kernel
// refuses it and khugepaged collapses them in its own time).
func advise(addr, n uintptr) bool {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_HUGEPAGE); e != 0 {
		return false
	}
	unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_COLLAPSE)
	return true
}
