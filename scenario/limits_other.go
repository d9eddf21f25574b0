//go:build !linux

package scenario

// maxProcs is unknown off Linux.
func maxProcs() uint64 { return 0 }
