package launch

import "syscall"

// rssUnit is the unit of Rusage.Maxrss in bytes: kilobytes on Linux.
const rssUnit = 1024

// dieWithParent has the kernel kill the child when the launcher dies, even
// by SIGKILL, so that no node outlives it.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
