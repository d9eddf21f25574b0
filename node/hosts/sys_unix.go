//go:build unix

package hosts

import (
	"os/exec"
	"syscall"
)

// ownGroup puts an ssh client in a process group of its own: a Ctrl-C on
// the terminal reaches `run` only, which stops the hosts in order
// (closing the clients' input), instead of killing every client at once
// and losing the launchers' results.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
