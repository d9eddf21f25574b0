package testbed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

const skipRoot = "needs root and iproute2 to build network namespaces; CI runs as root (scripts/deps.sh installs iproute2)"

// buildManetlab builds the binary the script runs.
func buildManetlab(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "manetlab")
	cmd := exec.Command(gobin, "build", "-o", bin, "../cmd/manetlab")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestThreeHostsElectAcrossTheBridge runs 12 nodes on 3 namespace hosts
// (4 each) and checks the election and that frames crossed hosts.
func TestThreeHostsElectAcrossTheBridge(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip(skipRoot + " (not root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip(skipRoot + " (no ip command)")
	}
	bin := buildManetlab(t)
	out := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "../scripts/netns-testbed.sh", "testdata/twelve.yaml", "--hosts", "3",
		"--out", out, "--bin", bin, "--", "--quiet")
	// SIGINT on timeout lets the script's trap delete its namespaces.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 15 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Logf("netns-testbed.sh:\n%s%s", stdout.String(), stderr.String())
	if err != nil && !undecided(err, stderr.String()) {
		t.Fatal(err)
	}
	// The script names its namespaces on its first line; they must be gone.
	m := regexp.MustCompile(`\((mlh[0-9]+-1) .*in (mlsw[0-9]+),`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("the script did not name its namespaces")
	}
	for _, ns := range m[1:] {
		if _, err := os.Stat(filepath.Join("/run/netns", ns)); err == nil {
			t.Errorf("namespace %s is still there", ns)
		}
	}

	sum, err := report.Summarize(out)
	if err != nil {
		t.Fatal(err)
	}
	// The run the script names is the run it writes.
	name := regexp.MustCompile(`netns-testbed: run (\S+):`).FindStringSubmatch(stderr.String())
	if name == nil || sum.Run != name[1] || !strings.HasPrefix(name[1], "twelve-netns3-") {
		t.Errorf("the script names run %q, the run file says %q", name, sum.Run)
	}
	if !judge.ValidOrNothingJudged(sum.Verdict, sum.Reason) || sum.Nodes != 12 || sum.Alive != 12 || len(sum.Problems) > 0 {
		t.Errorf("summary %+v", sum)
	}
	if len(sum.Components) != 1 || sum.Components[0].ExpectedLeader != 12 {
		t.Errorf("components %+v, want one led by 12", sum.Components)
	}

	// Which host ran which node, from the launcher's record.
	var procs []struct {
		IDs  []protocol.NodeID `json:"ids"`
		Host int               `json:"host"`
	}
	b, err := os.ReadFile(filepath.Join(out, "log", "processes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &procs); err != nil {
		t.Fatal(err)
	}
	hostOf := map[protocol.NodeID]int{}
	perHost := map[int]int{}
	for _, p := range procs {
		for _, id := range p.IDs {
			hostOf[id] = p.Host
			perHost[p.Host]++
		}
	}
	// Hosts are numbered 1..3 as the namespaces mlh<PID>-1..3 are.
	if len(hostOf) != 12 || perHost[1] != 4 || perHost[2] != 4 || perHost[3] != 4 {
		t.Fatalf("nodes per host %v, want 4 on each of hosts 1, 2, 3", perHost)
	}
	if procs[len(procs)-1].Host != 1 {
		t.Errorf("the player ran on host %d, want 1", procs[len(procs)-1].Host)
	}

	run, err := analysis.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	// crossed[a-1][b-1]: some node on host b received a frame from a node on host a.
	var crossed [3][3]int
	for id := protocol.NodeID(1); id <= 12; id++ {
		evs, ok := run.Nodes[id]
		if !ok {
			t.Errorf("node %d has no trace file", id)
			continue
		}
		for _, e := range evs {
			if e.Ev == trace.EvRecv && e.From != 0 {
				crossed[hostOf[e.From]-1][hostOf[id]-1]++
			}
		}
	}
	t.Logf("receives by sender's host (rows) and receiver's host (columns): %v", crossed)
	for a := range 3 {
		for b := range 3 {
			if a != b && crossed[a][b] == 0 {
				t.Errorf("no frame from host %d reached host %d", a+1, b+1)
			}
		}
	}
}

// TestVagrantfileSyntax checks the Vagrantfile with ruby -c.
func TestVagrantfileSyntax(t *testing.T) {
	ruby, err := exec.LookPath("ruby")
	if err != nil {
		t.Skip("needs ruby to check the Vagrantfile's syntax (scripts/deps.sh installs it)")
	}
	out, err := exec.Command(ruby, "-c", "../Vagrantfile").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Syntax OK") {
		t.Fatalf("ruby -c Vagrantfile: %v\n%s", err, out)
	}
}

// undecided reports whether err is run's exit status 2, its verdict
// undecided (unsettled, unknown or stalled: docs/analysis.md, "Exit
// statuses"), as a short run's is: never an invalid verdict (1) or a
// failure.
func undecided(err error, stderr string) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == judge.ExitUndecided && strings.Contains(stderr, "the verdict is")
}
