package launch

import "syscall"

// rssUnit is the unit of Rusage.Maxrss in bytes: kilobytes on Linux.
const rssUnit = 1024

// dieWithParent has the kernel kill the child when the launcher dies, even
// by SIGKILL, so that no node outlives it. Strictly, Pdeathsig fires when
// the thread that started the child exits: Go keeps its threads for the
// life of the process unless a goroutine exits while locked to one
// (runtime.LockOSThread), which nothing in manetlab does; a launcher that
// ever starts children from such a goroutine must unlock it first.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
