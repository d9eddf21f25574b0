package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"manetlab/node/netnstest"
)

// TestRunOnAFullDisk runs real nodes with their output on a tmpfs too
// small for their traces: the nodes say so, and `run` prints the summary
// of what it has and fails naming the cause. The traces stop without an
// end event, so the end-of-run verdict cannot be valid: it is unknown,
// naming the nodes and where their traces stop (issue 24, item 4).
func TestRunOnAFullDisk(t *testing.T) {
	if findCommand(newApp().Commands, "node") == nil {
		t.Skip("no node command in this build")
	}
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=24k,mode=0755", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	useHelper(t, "main")
	path := writeRunScenario(t, 3, "4s", "radio: {hello: {period: 50ms}}\ntrace: {hello: true}\n")
	out, err := runCLI(t, "run", path, "--out", dir, "--quiet", "--start-delay", "1s")
	t.Logf("stdout:\n%s\nerror: %v", out, err)
	if err == nil {
		t.Fatal("run succeeded on a full disk")
	}
	for _, w := range []string{"could not be written", "no space left on device"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q", w)
		}
	}
	if strings.Contains(out, "verdict: valid") {
		t.Error("the summary says valid about instants no trace covers")
	}
	for _, w := range []string{"verdict: unknown (traces that stop without an end event: node 1 at ", "not judged: traces stop without an end event",
		"truncated last line", "ran 3 nodes in 3 processes"} {
		if !strings.Contains(out, w) {
			t.Errorf("summary does not say %q", w)
		}
	}
}
