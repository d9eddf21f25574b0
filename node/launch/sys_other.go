//go:build !unix

package launch

import (
	"os"
	"os/exec"
	"time"
)

func detach(*exec.Cmd)        {}
func terminate(p *os.Process) { p.Kill() }
func kill(p *os.Process)      { p.Kill() }

func usage(ps *os.ProcessState) (user, sys time.Duration, maxRSS int64) {
	if ps == nil {
		return 0, 0, 0
	}
	return ps.UserTime(), ps.SystemTime(), 0
}
