//go:build unix

package launch

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// detach puts the child in a process group of its own, so that a Ctrl-C
// on the terminal reaches the launcher only (which then stops the children
// in order), and so that a signal to the group also reaches anything the
// child started.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// signalGroup sends sig to the process group of pid, which detach made
// the child's own.
func signalGroup(pid int, sig syscall.Signal) {
	if pid > 0 {
		syscall.Kill(-pid, sig)
	}
}

func terminate(p *os.Process) { signalGroup(p.Pid, syscall.SIGTERM) }
func kill(p *os.Process)      { signalGroup(p.Pid, syscall.SIGKILL) }

// usage is the user and system CPU time and peak resident set size of an
// exited process, from wait4's rusage.
func usage(ps *os.ProcessState) (user, sys time.Duration, maxRSS int64) {
	if ps == nil {
		return 0, 0, 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		maxRSS = int64(ru.Maxrss) * rssUnit
	}
	return ps.UserTime(), ps.SystemTime(), maxRSS
}

// errLocked is tryLock's error when another process holds the lock.
var errLocked = syscall.EWOULDBLOCK

// tryLock takes an exclusive flock on f without waiting; the kernel
// releases it when f is closed or the process ends, however it ends.
func tryLock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
