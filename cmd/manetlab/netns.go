package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"manetlab/node/link"
)

// netnsEnv marks a manetlab process already moved into its own network
// namespace, so that it does not try again.
const netnsEnv = "MANETLAB_NETNS"

// needPrivateNet reports whether `run` must move into a private network
// namespace: no interface was named and this host's loopback has no
// multicast. The launcher never picks another interface by itself, since
// joining a group there would send IGMP reports onto that network.
func needPrivateNet(iface string) (bool, error) {
	if iface != "" || os.Getenv(netnsEnv) != "" {
		return false, nil
	}
	lerr := func() error { _, err := link.Loopback(); return err }()
	if lerr == nil {
		return false, nil
	}
	if os.Geteuid() != 0 {
		return false, fmt.Errorf("%w; run as root and manetlab uses a private network namespace", lerr)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return false, fmt.Errorf("%w; and iproute2's ip command, needed for a private network namespace, is missing (scripts/deps.sh installs it)", lerr)
	}
	return true, nil
}

// rerunInPrivateNet runs this same command line again inside a new
// network namespace whose loopback carries multicast, and removes the
// namespace afterwards. The file system is shared, so traces land where
// they would have.
func rerunInPrivateNet() error {
	name := fmt.Sprintf("manetlab-run-%d", os.Getpid())
	setup := [][]string{
		{"netns", "add", name},
		{"-n", name, "link", "set", "lo", "up"},
		{"-n", name, "link", "set", "lo", "multicast", "on"},
		{"-n", name, "route", "add", "224.0.0.0/4", "dev", "lo"},
	}
	defer exec.Command("ip", "netns", "del", name).Run()
	for _, args := range setup {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("private network namespace: ip %v: %v: %s", args, err, out)
		}
	}
	fmt.Fprintf(os.Stderr, "run: lo has no multicast here; running inside the private network namespace %s\n", name)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", name, self}, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), netnsEnv+"="+name)
	// Ctrl-C reaches the child through the terminal's process group; the
	// parent only waits, and still removes the namespace.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	defer signal.Reset(os.Interrupt, syscall.SIGTERM)
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return cli1(exit.ExitCode())
	}
	return err
}

// cli1 is an exit status passed through from the re-run command, whose
// own error message was already printed.
type cli1 int

func (c cli1) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// ExitCode makes urfave/cli exit with the child's status.
func (c cli1) ExitCode() int { return int(c) }
