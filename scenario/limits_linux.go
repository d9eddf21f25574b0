package scenario

import "syscall"

// rlimitNProc is RLIMIT_NPROC on Linux (the syscall package leaves it out).
const rlimitNProc = 6

// maxProcs is the soft RLIMIT_NPROC, 0 when unlimited or unknown.
func maxProcs() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(rlimitNProc, &r); err != nil || r.Cur == ^uint64(0) {
		return 0
	}
	return r.Cur
}
