package testbed

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"manetlab/protocol"
	"manetlab/trace"
	"manetlab/trace/analysis"
	"manetlab/trace/judge"
	"manetlab/trace/report"
)

// TestRunHosts runs `manetlab run --hosts` from the root namespace over
// three namespace hosts, each with its own sshd and run directory, with
// the static binary copied to them: quickstart (shortened, its crash and
// recovery of node 8 on host 2) and the centralized mutual exclusion
// config (its coordinator's crash). Each run is valid; the faults are
// recorded by the host that applied them at their real times, within
// 100 ms of the schedule, and match node 8's trace and the run file; the
// traces collected at home are byte-identical to the hosts' copies; no
// process of the run is left on any host. Then a run stopped by SIGTERM
// mid-run (sent to its process group, as a terminal's Ctrl-C is), and a run whose host 3 drops out (its launcher killed: home
// names it and stops the others), leave nothing either, and a host whose clock is 2 s ahead (a
// `date` wrapper first in its sshd sessions' PATH) is refused with its
// name and the figure.
func TestRunHosts(t *testing.T) {
	h := newSSHHosts(t, false)
	hostsFile := filepath.Join(h.dir, "hosts")
	var hl strings.Builder
	// Each in its home's manetlab-runs (the default; each host's root has
	// a home of its own), host 3 in ~/runs3.
	fmt.Fprintf(&hl, "# the hosts\nh1\nh2 share=1\nh3 dir=~/runs3\n")
	if err := os.WriteFile(hostsFile, []byte(hl.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	runHosts := func(t *testing.T, name string, args ...string) (string, string, error) {
		t.Helper()
		out := filepath.Join(h.dir, "home-"+name)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, h.bin, append([]string{"run", "--hosts", hostsFile, "--ssh-config", h.config,
			"--run", name, "--out", out}, args...)...)
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 30 * time.Second
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		t.Logf("run --hosts %s:\n%s%s", name, stdout.String(), stderr.String())
		if undecided(err, stderr.String()) {
			err = nil // a run too short to judge: the summary says so
		}
		return out, stderr.String(), err
	}

	t.Run("quickstart", func(t *testing.T) {
		out, stderr, err := runHosts(t, "qs", "../configs/quickstart.yaml", "--ids-per-process", "4",
			"--set", "duration=12s", "--set", "faults=[{at: 4s, crash: [8]}, {at: 8s, recover: [8]}]")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "this manetlab copied there") {
			t.Errorf("the binary was not copied to the hosts")
		}
		h.checkRun(t, out, "qs", 20, 8, map[string]time.Duration{"crash": 4 * time.Second, "recover": 8 * time.Second}, "h2")
	})
	t.Run("live", func(t *testing.T) { h.liveFaults(t, hostsFile) })
	t.Run("mutex", func(t *testing.T) {
		out, _, err := runHosts(t, "mx", "../configs/mutex-centralized.yaml")
		if err != nil {
			t.Fatal(err)
		}
		// Nodes 1-3 on h1, 4-6 on h2, 7-8 on h3.
		h.checkRun(t, out, "mx", 8, 8, map[string]time.Duration{"crash": 8 * time.Second}, "h3")
	})
	// start starts a run of quickstart (45 s: its recovery at 40 s stays
	// inside the run) in the background and
	// waits until its start time is set and 3 s more.
	start := func(t *testing.T, name string) (*exec.Cmd, *syncBuf, string) {
		t.Helper()
		out := filepath.Join(h.dir, "home-"+name)
		cmd := exec.Command(h.bin, "run", "../configs/quickstart.yaml", "--hosts", hostsFile, "--ssh-config", h.config,
			"--run", name, "--out", out, "--ids-per-process", "5", "--set", "duration=45s")
		stderr := &syncBuf{}
		cmd.Stderr = stderr
		// A process group of its own, as a terminal's foreground job.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), "starts at"); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the run did not start:\n%s", stderr.String())
			}
		}
		time.Sleep(5 * time.Second)
		return cmd, stderr, out
	}
	// wait waits for the run to end (at most 60 s) and returns its error.
	wait := func(t *testing.T, cmd *exec.Cmd, stderr *syncBuf) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			t.Logf("run --hosts:\n%s", stderr.String())
			return err
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("run --hosts still runs 60 s later:\n%s", stderr.String())
		}
		return nil
	}
	t.Run("sigterm", func(t *testing.T) {
		cmd, stderr, out := start(t, "term")
		// To the whole group, as Ctrl-C on a terminal does: the ssh
		// clients, in groups of their own, are not killed by it; run
		// stops the hosts in order and gets their results.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		err := wait(t, cmd, stderr)
		if exitCode(err) != 1 || !strings.Contains(stderr.String(), "interrupted by SIGTERM") {
			t.Errorf("exit %v, want status 1 naming SIGTERM", err)
		}
		if strings.Contains(stderr.String(), "dropped out") || !strings.Contains(stderr.String(), "host h2: 2 faults of 2 not applied") {
			t.Errorf("the hosts did not all stop in order and report")
		}
		if left := h.leftOver(10 * time.Second); len(left) > 0 {
			t.Errorf("left after SIGTERM:\n%s", strings.Join(left, "\n"))
		}
		if _, err := os.Stat(trace.RunFile(out)); err != nil {
			t.Errorf("no run file after SIGTERM: %v", err)
		}
	})
	t.Run("lost-host", func(t *testing.T) {
		cmd, stderr, _ := start(t, "lost")
		// Host 3 drops out: its launcher dies (and its nodes with it).
		b, _ := exec.Command("ip", "netns", "pids", h.ns[2]).Output()
		killed := 0
		for _, p := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(p)
			if f := strings.Fields(cmdline(pid)); len(f) > 1 && f[1] == "launch" {
				syscall.Kill(pid, syscall.SIGKILL)
				killed++
			}
		}
		if killed != 1 {
			t.Fatalf("killed %d launchers on host 3, want 1", killed)
		}
		err := wait(t, cmd, stderr)
		if err == nil || !strings.Contains(stderr.String(), "host h3 dropped out: its session ended") {
			t.Errorf("exit %v, want a failure naming the lost host h3", err)
		}
		if left := h.leftOver(10 * time.Second); len(left) > 0 {
			t.Errorf("left after host 3 dropped out:\n%s", strings.Join(left, "\n"))
		}
	})
	t.Run("clock", func(t *testing.T) {
		// h3fast is host 3 (its home, its copy of manetlab in ~/runs3).
		list := "h1,h3fast dir=~/runs3"
		cmd := exec.Command(h.bin, "run", "../configs/static-line.yaml", "--hosts", list, "--ssh-config", h.config, "--out", filepath.Join(h.dir, "home-clock"))
		b, err := cmd.CombinedOutput()
		t.Logf("run --hosts with h3fast:\n%s", b)
		m := regexp.MustCompile(`host h3fast: its clock is ([0-9.]+)s ahead of this machine's`).FindSubmatch(b)
		if exitCode(err) != 1 || m == nil {
			t.Fatalf("exit %v; want status 1, host h3fast refused with its offset", err)
		}
		if off, _ := strconv.ParseFloat(string(m[1]), 64); off < 1.9 || off > 2.1 {
			t.Errorf("offset %ss, want about 2s", m[1])
		}
		if bytes.Contains(b, []byte("host h1:")) {
			t.Errorf("host h1 was refused too")
		}
		if left := h.leftOver(5 * time.Second); len(left) > 0 {
			t.Errorf("left after a refusal:\n%s", strings.Join(left, "\n"))
		}
	})
	t.Run("iface", func(t *testing.T) {
		// An interface that does not exist, and one with the same
		// address on two hosts (a NAT interface, as Vagrant's first):
		// refused before anything starts, naming the host.
		for i := 0; i < 2; i++ {
			for _, c := range [][]string{{"link", "add", "nat0", "type", "veth", "peer", "name", "nat0p"}, {"addr", "add", "10.0.2.15/24", "dev", "nat0"}, {"link", "set", "nat0p", "up"}, {"link", "set", "nat0", "up"}} {
				if b, err := exec.Command("ip", append([]string{"-n", h.ns[i]}, c...)...).CombinedOutput(); err != nil {
					t.Fatalf("ip %s: %v: %s", c, err, b)
				}
			}
		}
		for list, want := range map[string]string{
			"h1,h2 iface=eth9":            "host h2: interface eth9: no such interface there (it has lo, mlan0, nat0, nat0p)",
			"h1 iface=nat0,h2 iface=nat0": "host h1: its interface nat0 has the address 10.0.2.15, as h2's nat0 has: a NAT interface",
		} {
			// A run name of its own: two refusals within one second would
			// otherwise share the default name (and its directories).
			name := "iface-" + strings.Fields(strings.ReplaceAll(list, ",", " "))[1]
			cmd := exec.Command(h.bin, "run", "../configs/static-line.yaml", "--hosts", list, "--ssh-config", h.config, "--run", name, "--out", filepath.Join(h.dir, "home-iface"))
			b, err := cmd.CombinedOutput()
			if exitCode(err) != 1 || !bytes.Contains(b, []byte(want)) {
				t.Errorf("--hosts %q: exit %v, want status 1 and %q:\n%s", list, err, want, b)
			}
			if bytes.Contains(b, []byte("starts at")) {
				t.Errorf("--hosts %q: the run started", list)
			}
		}
		if left := h.leftOver(5 * time.Second); len(left) > 0 {
			t.Errorf("left after a refusal:\n%s", strings.Join(left, "\n"))
		}
	})
}

// checkRun checks a run --hosts of n nodes named run in out: valid or
// unsettled (never invalid, and never unknown: every trace came home; a
// run shorter than the stabilisation delay after its last fault, as
// quickstart's 12 s, may end with a component still changing), the
// faults (of node 8, applied on host faultHost at the times at), the
// run file, the traces against the hosts' copies, nothing left.
func (h *sshHosts) checkRun(t *testing.T, out, run string, n int, node protocol.NodeID, at map[string]time.Duration, faultHost string) {
	t.Helper()
	sum, err := report.Summarize(out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdict != judge.Valid && sum.Verdict != judge.Unsettled || sum.Nodes != n {
		t.Errorf("summary: verdict %s (%s), %d nodes; want valid or unsettled, %d (problems %v)", sum.Verdict, sum.Reason, sum.Nodes, n, sum.Problems)
	}
	// The faults as the hosts recorded them.
	f, err := os.Open(filepath.Join(out, "faults.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type rec struct {
		Node protocol.NodeID `json:"node"`
		Ev   string          `json:"ev"`
		T    int64           `json:"t"`
		Host string          `json:"host"`
	}
	got := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("faults.jsonl: %q: %v", sc.Text(), err)
		}
		if r.Node != node || r.Host != faultHost || at[r.Ev] == 0 {
			t.Errorf("fault %+v, want node %d's on %s", r, node, faultHost)
			continue
		}
		late := time.Duration(r.T) - at[r.Ev]
		t.Logf("%s of node %d applied on %s at %s: %s after the schedule", r.Ev, node, r.Host, time.Duration(r.T), late)
		if late < 0 || late > 100*time.Millisecond {
			t.Errorf("%s of node %d at %s, want within 100 ms after %s", r.Ev, node, time.Duration(r.T), at[r.Ev])
		}
		got[r.Ev] = r.T
	}
	if len(got) != len(at) {
		t.Fatalf("faults recorded %v, want %v", got, at)
	}
	tr, err := analysis.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	// The run file holds those times.
	for _, e := range tr.RunEvents {
		if e.Ev == trace.EvCrash || e.Ev == trace.EvRecover {
			if e.Node != node || e.T != got[e.Ev] {
				t.Errorf("run file: %s of node %d at %d, faults.jsonl says %d", e.Ev, e.Node, e.T, got[e.Ev])
			}
		}
	}
	// Node 8's trace: nothing after the crash until it recovers (a
	// "recover" event, then "start"), no earlier than the recovery
	// applied.
	life, recovered := 1, 0
	for _, e := range tr.Nodes[node] {
		if e.Ev == trace.EvRecover {
			life, recovered = 2, recovered+1
			if e.T < got["recover"] {
				t.Errorf("node %d recovered at %d in its trace, before its recovery was applied at %d", node, e.T, got["recover"])
			}
			continue
		}
		if life == 1 && e.T > got["crash"] {
			t.Errorf("node %d has a %s at %d after its crash at %d", node, e.Ev, e.T, got["crash"])
			break
		}
	}
	if want := len(at) - 1; recovered != want {
		t.Errorf("node %d recovered %d times in its trace, want %d", node, recovered, want)
	}
	// Every trace at home equals the copy on the host that ran it.
	found := 0
	for i := 1; i <= 3; i++ {
		base := "manetlab-runs"
		if i == 3 && !h.shared {
			base = "runs3"
		}
		rd := filepath.Join(h.home(i), base, run, fmt.Sprintf("h%d", i))
		if st, err := os.Stat(filepath.Join(rd, "in", "run.key")); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("host h%d: the run's key: %v, want a file of mode 0600", i, err)
		}
		copies, _ := filepath.Glob(filepath.Join(rd, "node-*.jsonl"))
		for _, c := range copies {
			found++
			remote, _ := os.ReadFile(c)
			home, err := os.ReadFile(filepath.Join(out, filepath.Base(c)))
			if err != nil || !bytes.Equal(home, remote) {
				t.Errorf("%s at home (%d bytes, %v) differs from host h%d's copy (%d bytes)", filepath.Base(c), len(home), err, i, len(remote))
			}
		}
	}
	if found != n {
		t.Errorf("%d traces on the hosts, want %d", found, n)
	}
	// The hosts' process logs came home.
	if logs, _ := filepath.Glob(filepath.Join(out, "log", "hosts", "h*", "*.log")); len(logs) == 0 {
		t.Errorf("no host's node logs in %s/log/hosts", out)
	}
	if left := h.leftOver(5 * time.Second); len(left) > 0 {
		t.Errorf("left after the run:\n%s", strings.Join(left, "\n"))
	}
}
