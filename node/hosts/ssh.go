package hosts

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"manetlab/internal/safefs"
)

// conn is one host's multiplexed ssh connection: a master started once
// (ControlMaster, ControlPersist), every later command a client of it.
type conn struct {
	host Host
	// base is the ssh command line before the target: options only.
	base []string
	ctl  string // the ControlPath
	log  string // the master's standard error
}

// SSHCommand is the ssh client run (tests may point it elsewhere).
var SSHCommand = "ssh"

// persist is how long a master outlives its last client: the bound on a
// master left behind by a launcher killed by SIGKILL.
const persist = "30s"

// aliveInterval is how often ssh asks a host whether the connection
// lives (ServerAliveInterval); the host timeout sets how many answers
// may be missed in a row.
const aliveInterval = 5 * time.Second

// DefaultHostTimeout is how long a host may stay unreachable before its
// connection is given up (Options.HostTimeout).
const DefaultHostTimeout = 90 * time.Second

func newConn(h Host, ctlDir string, index int, sshConfig string, logDir string, timeout time.Duration) *conn {
	c := &conn{host: h, ctl: filepath.Join(ctlDir, fmt.Sprintf("h%d", index)),
		log: filepath.Join(logDir, fmt.Sprintf("ssh-%s.log", safeName(h.Target)))}
	if sshConfig != "" {
		c.base = append(c.base, "-F", sshConfig)
	}
	// The connection outlives a cut of up to timeout: ssh gives it up
	// after that many unanswered keepalives, TCP retransmits meanwhile,
	// and the session (the host's launcher) goes on.
	misses := max(3, int((timeout+aliveInterval-1)/aliveInterval))
	c.base = append(c.base, "-o", "BatchMode=yes", "-o", "ControlPath="+c.ctl,
		"-o", fmt.Sprintf("ServerAliveInterval=%d", int(aliveInterval/time.Second)), "-o", fmt.Sprintf("ServerAliveCountMax=%d", misses), "-o", "ConnectTimeout=10")
	return c
}

// safeName turns a target into a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// master opens the multiplexed connection. Its standard error goes to a
// file, not a pipe: the master stays in the background (ControlPersist)
// and would hold a pipe open.
func (c *conn) master(ctx context.Context) error {
	f, err := safefs.Create(c.log)
	if err != nil {
		return err
	}
	defer f.Close()
	args := append(append([]string{}, c.base...), "-o", "ControlMaster=auto", "-o", "ControlPersist="+persist, c.host.Target, "true")
	cmd := exec.CommandContext(ctx, SSHCommand, args...)
	ownGroup(cmd)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		b, _ := os.ReadFile(c.log)
		msg := strings.TrimSpace(string(b))
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("cannot reach %s over ssh: %s", c.host.Target, msg)
	}
	return nil
}

// command is an ssh client of the master running the remote shell
// command line remote. ControlMaster=no: should the master be gone, the
// client connects by itself and never turns into a new master.
func (c *conn) command(ctx context.Context, remote string) *exec.Cmd {
	args := append(append([]string{}, c.base...), "-o", "ControlMaster=no", c.host.Target, remote)
	cmd := exec.CommandContext(ctx, SSHCommand, args...)
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs remote with stdin (nil: none) and returns its standard output;
// an error carries its standard error.
func (c *conn) run(ctx context.Context, stdin io.Reader, remote string) ([]byte, error) {
	cmd := c.command(ctx, remote)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("%s: %s", c.host.Target, msg)
	}
	return out.Bytes(), nil
}

// close ends the master (and with it any session left).
func (c *conn) close() {
	args := append(append([]string{}, c.base...), "-O", "exit", c.host.Target)
	cmd := exec.Command(SSHCommand, args...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Run()
}

// quote quotes s for a POSIX shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteAll quotes every word and joins them with spaces.
func quoteAll(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quote(w)
	}
	return strings.Join(q, " ")
}
