//go:build !unix

package launch

import (
	"errors"
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

var errLocked = errors.New("locked")

// tryLock fails: without flock a run cannot keep a second one out of its
// directory, and run refuses to start rather than mix two runs' traces.
func tryLock(*os.File) error {
	return errors.New("no file locking (flock) on this system: run cannot lock its output directory")
}
