package ext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// MaxLine is the longest reply line a program may write, in bytes.
const MaxLine = 1 << 20

// child is one node's program: the I/O outside the deterministic core.
// call writes one event line and reads one reply line, synchronously,
// with a deadline on the pipes (no goroutine): the state machine that
// calls it stays a function of its events.
type child struct {
	argv    []string
	cmd     *exec.Cmd
	in, out *os.File // our ends of its standard input and output
	r       *bufio.Reader
	timeout time.Duration
	exited  bool
	started bool // it has replied once: its interpreter is up
}

// StartTimeout is how long the first reply of a program may take at
// least: it includes starting the interpreter, which takes seconds when
// many start at once on a loaded machine.
const StartTimeout = time.Minute

// startChild starts argv with its standard error shared with ours (a
// program's debug output and tracebacks show there).
func startChild(argv []string, timeout time.Duration) (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	// The program dies with the process that runs it, whatever ends it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %q: %w", argv, err)
	}
	return &child{argv: argv, cmd: cmd, in: inW, out: outR, r: bufio.NewReaderSize(outR, 64<<10), timeout: timeout}, nil
}

// errTimeout is call's error when no reply came in time.
var errTimeout = errors.New("no reply in time")

// call writes line (with its newline) and returns the reply line without
// its newline.
func (c *child) call(line []byte) ([]byte, error) {
	wait := c.timeout
	if !c.started {
		wait = max(wait, StartTimeout)
	}
	deadline := time.Now().Add(wait)
	c.in.SetWriteDeadline(deadline)
	if _, err := c.in.Write(line); err != nil {
		return nil, c.failed(err)
	}
	c.out.SetReadDeadline(deadline)
	var reply []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		reply = append(reply, chunk...)
		if len(reply) > MaxLine {
			return nil, fmt.Errorf("its reply is longer than %d bytes", MaxLine)
		}
		if err == nil {
			c.started = true
			return bytes.TrimRight(reply, "\r\n"), nil
		}
		if err != bufio.ErrBufferFull {
			if len(reply) > 0 && err == io.EOF {
				return nil, fmt.Errorf("its reply %q has no end of line: %w", clip(reply), c.failed(err))
			}
			return nil, c.failed(err)
		}
	}
}

// failed explains an I/O error: a timeout, or the program's exit.
func (c *child) failed(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if !c.started {
			return fmt.Errorf("%w (%v: its first reply, the interpreter's start included)", errTimeout, max(c.timeout, StartTimeout))
		}
		return fmt.Errorf("%w (%v)", errTimeout, c.timeout)
	}
	// Broken pipe or end of file: the program ended; say how.
	c.in.Close()
	done := make(chan struct{})
	timer := time.AfterFunc(time.Second, func() {
		select {
		case <-done:
		default:
			c.cmd.Process.Kill()
		}
	})
	werr := c.cmd.Wait()
	close(done)
	timer.Stop()
	c.exited = true
	if werr != nil {
		return fmt.Errorf("the program ended (%v)", werr)
	}
	return errors.New("the program ended (exit status 0)")
}

// close ends the program: its input closes (a well-behaved program exits
// at the end of its input), then it is killed and reaped.
func (c *child) close() {
	if c.exited {
		return
	}
	c.exited = true
	c.in.Close()
	c.out.Close()
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
