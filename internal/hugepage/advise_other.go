//go:build !linux

package hugepage

func advise(addr, n uintptr) bool { return false }
