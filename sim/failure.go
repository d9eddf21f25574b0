package sim

import (
	"fmt"

	"manetlab/protocol"
)

// closeProcs ends every live process that holds something outside the
// simulator (protocol.Closer: a program per node, protocol/ext).
func (w *world) closeProcs() {
	for _, n := range w.nodes {
		if n.proc != nil {
			protocol.Close(n.proc)
		}
	}
}

// failed turns a process's protocol.Failure (recovered as v) into the
// run's error, after closing the processes and the traces; any other
// panic goes on.
func (w *world) failed(v any) error {
	err := protocol.Recover(v, nil)
	w.closeProcs()
	w.out.close()
	return fmt.Errorf("%s: at %v: %w", w.s.Path, w.now, err)
}

// guard runs f (a step of the Controller), stopping the run when a
// process fails: Err says why, and nothing is left to step.
func (c *Controller) guard(f func()) {
	if c.err != nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			c.err = c.w.failed(v)
			c.done, c.head, c.closed = true, nil, true
		}
	}()
	f()
}

// Err is why the run stopped early: a process failed (a program per
// node crashed, did not reply in time or replied with a bad line); nil
// otherwise.
func (c *Controller) Err() error { return c.err }
