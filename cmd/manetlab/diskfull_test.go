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
// naming the nodes and where their traces stop (issue 24, item 4). Node 1
// crashes and cannot start again: the error says why, and the summary,
// of the run as it went (the final run file cannot be written either),
// has node 1 down (issue 24, item 10).
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
	// Node 1 crashes at 2.5 s and recovers at 3 s, on the full disk.
	path := writeRunScenario(t, 3, "4s", "radio: {hello: {period: 50ms}}\ntrace: {hello: true}\nfaults: [{at: 2500ms, crash: [1]}, {at: 3s, recover: [1]}]\n")
	// --allow-large: the pre-start estimate would refuse the run (its
	// traces do not fit); this test is of a disk that fills during it.
	out, err := runCLI(t, "run", path, "--out", dir, "--quiet", "--start-delay", "1s", "--allow-large")
	t.Logf("stdout:\n%s\nerror: %v", out, err)
	if err == nil {
		t.Fatal("run succeeded on a full disk")
	}
	// The final run file could not be written either: the summary is of
	// the run as it went (the faults in the timeline), and says so.
	// Node 1 cannot start again on the full disk: the error says so, with
	// what it said (its log is on the full disk too).
	for _, w := range []string{"could not be written", "no space left on device", "is the provisional run file, without the faults applied; the summary above is of the run as it went",
		"the recovery of node 1 at 3", "failed, it stayed down", "its standard error ends:\n  manetlab: node 1: trace "} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q", w)
		}
	}
	if strings.Contains(out, "verdict: valid") {
		t.Error("the summary says valid about instants no trace covers")
	}
	for _, w := range []string{"verdict: unknown (traces that stop without an end event: node 2 at ", "not judged: traces stop without an end event",
		"truncated last line", "ran 3 nodes in 3 processes", "(2 alive at the end)", "2.5s  node 1 crashed"} {
		if !strings.Contains(out, w) {
			t.Errorf("summary does not say %q", w)
		}
	}
}
