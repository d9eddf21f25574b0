package testbed

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepWithGNUParallelOverSSH runs a sweep's 4 slices with GNU
// parallel over ssh on the three namespace hosts (each with its own
// sshd; they share this machine's file system, as cluster nodes share
// NFS), the index from PARALLEL_SEQ (--shard 4), and compares the
// collected table with the one-machine sweep's (docs/sweeps.md).
func TestSweepWithGNUParallelOverSSH(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (scripts/deps.sh installs it)")
	}
	h := newSSHHosts(t, false)
	scenario, _ := filepath.Abs("../configs/static-line.yaml")
	grid := []string{"sweep", scenario, "--set", "nodes.list=[]", "--set", "duration=20s", "--vary", "nodes.count=4|6",
		"--vary", "protocol.name=adhoc/vasudevan|baseline/floodmax", "--seeds", "2"}
	one, err := exec.Command(h.bin, append(grid, "--quiet", "--out", filepath.Join(h.dir, "one"))...).Output()
	if err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(h.dir, "results")
	joblog := filepath.Join(h.dir, "joblog")
	args := append(append([]string{"--will-cite", "-q", "-N0", "--ssh", "ssh -F " + h.config, "--sshlogin", "1/h1,1/h2,1/h3", "--joblog", joblog, h.bin}, grid...),
		"--results", res, "--shard", "4", ":::", "1", "2", "3", "4")
	out, err := exec.Command("parallel", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("parallel: %v\n%s", err, out)
	}
	for i := 0; i < 4; i++ {
		if line := fmt.Sprintf("sweep: slice %d/4: 2 runs", i); !strings.Contains(string(out), line) {
			t.Errorf("no %q in parallel's output:\n%s", line, out)
		}
	}
	// The jobs ran on the hosts: the job log's third column is the host.
	log, _ := os.ReadFile(joblog)
	hosts := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(log)), "\n")[1:] {
		if f := strings.Split(l, "\t"); len(f) > 2 {
			hosts[f[2]] = true
		}
	}
	if len(hosts) < 2 || hosts[":"] {
		t.Errorf("the jobs ran on %v, want at least two of h1, h2, h3:\n%s", hosts, log)
	}
	got, err := exec.Command(h.bin, "sweep", "collect", res, "--quiet").Output()
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	if string(got) != string(one) {
		t.Fatalf("the collected table\n%s\nthe one-machine sweep's\n%s", got, one)
	}
}
