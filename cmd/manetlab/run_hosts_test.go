package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunHostsRejectsBadInput: --hosts with flags it cannot take, a bad
// host list, and the flags that need --hosts, each refused before any
// ssh. (testbed/runhosts_test.go runs --hosts for real, as root.)
func TestRunHostsRejectsBadInput(t *testing.T) {
	s := "../../configs/static-line.yaml"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", s, "--hosts", "h1,h2", "--wrap", "ip netns exec x"}, "--hosts and --wrap do not go together"},
		{[]string{"run", s, "--hosts", "h1,h2", "--collected", "--run", "x", "--out", t.TempDir()}, "--hosts and --collected do not go together"},
		{[]string{"run", s, "--hosts", "h1,h2 share=none"}, `entry 2 "h2 share=none": share=none: want a whole number`},
		{[]string{"run", s, "--hosts", "h1,h1"}, "host h1 listed twice"},
		{[]string{"run", s, "--hosts", "./no/such/hosts.txt"}, "no such file"},
		{[]string{"run", s, "--hosts", "h1", "--ttl", "0"}, "--ttl 0: want 1 to 255 across machines"},
		{[]string{"run", s, "--ssh-config", "x"}, "--ssh-config goes with --hosts"},
		{[]string{"run", s, "--collector", ":0"}, "--collector goes with --hosts"},
		{[]string{"run", s, "--hosts", "h1,h2,h3,h4,h5,h6", "--set", "nodes.count=5"}, "6 hosts for 5 nodes"},
	} {
		_, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestRunHostsNamesAnUnreachableHost: a host ssh cannot reach is named
// with ssh's reason, and nothing runs.
func TestRunHostsNamesAnUnreachableHost(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("needs the ssh client (scripts/deps.sh installs openssh-client)")
	}
	out := filepath.Join(t.TempDir(), "run")
	_, err := runCLI(t, "run", "../../configs/static-line.yaml", "--hosts", "nohost.invalid", "--out", out, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "host nohost.invalid: cannot reach nohost.invalid over ssh: ") {
		t.Fatalf("error %v, want the host named and ssh's reason", err)
	}
}
