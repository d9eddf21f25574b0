package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/node/link"
)

// TestRunUsesAPrivateNamespaceWhenLoopbackHasNoMulticast runs the real
// binary's `run` on the host itself. Where lo has no multicast (as on CI)
// it must move into a private network namespace, elect, and remove the
// namespace afterwards.
func TestRunUsesAPrivateNamespaceWhenLoopbackHasNoMulticast(t *testing.T) {
	if _, err := link.Loopback(); err == nil {
		t.Skip("lo has multicast here: run needs no private namespace")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to build a network namespace; CI runs as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs iproute2 (scripts/deps.sh installs it)")
	}
	bin := buildBinary(t)
	sc := writeRunScenario(t, 4, "3s", "radio: {range: 250, hello: {period: 300ms}}\nprotocol: {name: baseline/floodmax, params: {period: 300ms}}\n")
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", sc, "--out", out, "--json", "--quiet")
	cmd.Env = os.Environ()
	stdout, err := cmd.Output()
	stderr := ""
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	var sum struct{ Verdict string }
	if err := json.Unmarshal(stdout, &sum); err != nil || sum.Verdict != "valid" {
		t.Fatalf("verdict %q (%v)\n%s", sum.Verdict, err, stdout)
	}
	ns, _ := exec.Command("ip", "netns", "list").Output()
	if name := fmt.Sprintf("manetlab-run-%d", cmd.Process.Pid); strings.Contains(string(ns), name) {
		t.Fatalf("namespace %s left behind", name)
	}
}
