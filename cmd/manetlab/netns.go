package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"manetlab/node/link"
)

// netnsEnv marks a manetlab process already moved into its own network
// namespace, so that it does not try again. The value netnsPrivate asks
// it to set up that namespace's loopback first.
const netnsEnv = "MANETLAB_NETNS"

// netnsPrivate is netnsEnv's value in the process rerunInPrivateNet
// starts.
const netnsPrivate = "private"

// forcePrivateNetEnv, set to 1, makes `run` take its private network
// namespace even where lo has multicast (tests of that path).
const forcePrivateNetEnv = "MANETLAB_FORCE_PRIVATE_NET"

// needPrivateNet reports whether `run` must move into a private network
// namespace: no interface was named and this host's loopback has no
// multicast. The launcher never picks another interface by itself, since
// joining a group there would send IGMP reports onto that network.
func needPrivateNet(iface string) (bool, error) {
	if iface != "" || os.Getenv(netnsEnv) != "" {
		return false, nil
	}
	lerr := func() error { _, err := link.Loopback(); return err }()
	if lerr == nil && os.Getenv(forcePrivateNetEnv) != "1" {
		return false, nil
	}
	if lerr == nil {
		lerr = errors.New(forcePrivateNetEnv + "=1")
	}
	if os.Geteuid() != 0 {
		return false, fmt.Errorf("%w; run as root and manetlab uses a private network namespace", lerr)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return false, fmt.Errorf("%w; and iproute2's ip command, needed for a private network namespace, is missing (scripts/deps.sh installs it)", lerr)
	}
	return true, nil
}

// rerunInPrivateNet runs this same command line again inside a new,
// unnamed network namespace (clone with CLONE_NEWNET), which the kernel
// removes with its last process: nothing is left behind however the run
// ends, even by SIGKILL. The child dies with this process (Pdeathsig),
// and its own children with it; SIGINT and SIGTERM are passed on to it,
// and it stops its nodes, writes what was gathered and prints its
// summary. The file system is shared, so traces land where they would
// have.
func rerunInPrivateNet(ln net.Listener) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "run: lo has no multicast here; running inside a private network namespace (it ends with the run)\n")
	cmd := exec.Command(self, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), netnsEnv+"="+netnsPrivate)
	if ln != nil {
		// The live page's socket, made here, stays in this network
		// namespace, where the browser is.
		f, err := ln.(*net.TCPListener).File()
		if err != nil {
			return fmt.Errorf("--live: %w", err)
		}
		defer f.Close()
		cmd.ExtraFiles = []*os.File{f}
		cmd.Env = append(cmd.Env, liveFDEnv+"=3")
	}
	// A process group of its own: a Ctrl-C on the terminal reaches this
	// process only, which passes it on once. Pdeathsig fires when the
	// thread that started the child exits; Go keeps its threads for the
	// life of the process unless a goroutine exits locked to one, which
	// nothing here does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("private network namespace: %w", err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("the run in the private network namespace was killed by %s", signalName(ws.Signal()))
		}
		return cli1(exit.ExitCode())
	}
	return err
}

// setupPrivateNet gives the namespace rerunInPrivateNet made a loopback
// that carries multicast, when this process is the one it started.
func setupPrivateNet() error {
	if os.Getenv(netnsEnv) != netnsPrivate {
		return nil
	}
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "set", "lo", "multicast", "on"},
		{"route", "add", "224.0.0.0/4", "dev", "lo"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("private network namespace: ip %v: %v: %s", args, err, out)
		}
	}
	return os.Setenv(netnsEnv, "set-up")
}

// signalName names a signal as kill(1) does, with its description.
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT (interrupt)"
	case syscall.SIGTERM:
		return "SIGTERM (terminated)"
	case syscall.SIGKILL:
		return "SIGKILL (killed)"
	}
	return sig.String()
}

// cli1 is an exit status passed through from the re-run command, whose
// own error message was already printed.
type cli1 int

func (c cli1) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// ExitCode makes urfave/cli exit with the child's status.
func (c cli1) ExitCode() int { return int(c) }
