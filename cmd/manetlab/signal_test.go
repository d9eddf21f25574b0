package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"manetlab/node/netnstest"
)

// procID names a process across PID reuse: its PID and start time.
type procID struct {
	pid   int
	start string
}

// procStat reads a process's parent, state and start time from
// /proc/PID/stat.
func procStat(pid int) (ppid int, state, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", "", false
	}
	i := bytes.LastIndexByte(b, ')') // the command may hold spaces
	if i < 0 {
		return 0, "", "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, "", "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0], f[19], true
}

// descendants lists the living descendants of pid.
func descendants(pid int) []procID {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]procID{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state, start, ok := procStat(p); ok && state != "Z" {
			children[ppid] = append(children[ppid], procID{p, start})
		}
	}
	var out []procID
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// alive reports whether p still runs (a zombie does not).
func (p procID) alive() bool {
	_, state, start, ok := procStat(p.pid)
	return ok && start == p.start && state != "Z"
}

// netnsHeld reports whether any process is in the network namespace ns
// (a /proc/PID/ns/net link such as "net:[4026532247]").
func netnsHeld(ns string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/net"); err == nil && l == ns {
			return true
		}
	}
	return false
}

// signalCase starts `run` on a two-minute scenario, waits until the
// player and its four nodes run, sends sig to the launcher and checks
// that every process it started, and in the private namespace mode the
// namespace, are gone within seconds.
func signalCase(t *testing.T, bin string, env []string, private bool, sig syscall.Signal) {
	sc := writeRunScenario(t, 4, "120s", "radio: {range: 250, hello: {period: 300ms}}\nprotocol: {name: baseline/floodmax, params: {period: 300ms}}\n")
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", sc, "--out", out)
	if sig == syscall.SIGINT {
		// As a script's background job: started with SIGINT ignored.
		cmd = exec.Command("sh", "-c", `trap "" INT; exec "$0" "$@"`, bin, "run", sc, "--out", out)
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var procs []procID
	t.Cleanup(func() {
		// Only what this test started, and only if the run failed to
		// end it.
		cmd.Process.Kill()
		for _, p := range procs {
			if p.alive() {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
	})
	want := 5 // the player and four nodes; plus the inner launcher
	if private {
		want = 6
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		procs = descendants(cmd.Process.Pid)
		_, err := os.Stat(filepath.Join(out, "node-4.jsonl"))
		if len(procs) >= want && err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s, %d processes under the launcher, want %d\n%s", len(procs), want, stderr.String())
		}
	}
	time.Sleep(time.Second) // let the nodes elect
	ns := ""
	if private {
		var err error
		if ns, err = os.Readlink("/proc/" + strconv.Itoa(procs[0].pid) + "/ns/net"); err != nil {
			t.Fatal(err)
		}
		self, _ := os.Readlink("/proc/self/ns/net")
		if ns == self {
			t.Fatalf("the inner launcher is in this test's namespace %s", ns)
		}
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("run still running 20 s after %v\n%s", sig, stderr.String())
	}
	var left []int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left = left[:0]
		for _, p := range procs {
			if p.alive() {
				left = append(left, p.pid)
			}
		}
		if len(left) == 0 && (ns == "" || !netnsHeld(ns)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after the launcher ended (%v), processes %v are alive; namespace %s held: %v\n%s", err, left, ns, ns != "" && netnsHeld(ns), stderr.String())
		}
	}
	if listed, _ := exec.Command("ip", "netns", "list").Output(); bytes.Contains(listed, []byte("manetlab-run-"+strconv.Itoa(cmd.Process.Pid))) {
		t.Errorf("a named namespace of this run is left:\n%s", listed)
	}
	if err == nil {
		t.Fatalf("run exited with status 0 after %v", sig)
	}
	if sig != syscall.SIGKILL {
		if name := strings.Fields(signalName(sig))[0]; !strings.Contains(stderr.String(), "interrupted by "+name) {
			t.Errorf("stderr does not name the signal:\n%s", stderr.String())
		}
		if !strings.Contains(stdout.String(), "ran 4 nodes") {
			t.Errorf("no summary of what was gathered:\n%s", stdout.String())
		}
		if _, err := os.Stat(filepath.Join(out, "run.jsonl")); err != nil {
			t.Errorf("no run file: %v", err)
		}
	}
}

// envWithout is the environment without the variables named.
func envWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && k != n
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// TestRunSignalsInPrivateNamespace: in the private namespace fallback,
// SIGTERM to the launcher, or SIGINT to it started as a script's
// background job (SIGINT ignored), stops the whole run with a summary,
// and SIGKILL leaves neither a process nor the namespace behind.
func TestRunSignalsInPrivateNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private network namespace; CI runs as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs iproute2 (scripts/deps.sh installs it)")
	}
	bin := buildBinary(t)
	env := append(envWithout(netnsEnv), forcePrivateNetEnv+"=1")
	t.Run("SIGTERM", func(t *testing.T) { signalCase(t, bin, env, true, syscall.SIGTERM) })
	t.Run("SIGINT", func(t *testing.T) { signalCase(t, bin, env, true, syscall.SIGINT) })
	t.Run("SIGKILL", func(t *testing.T) { signalCase(t, bin, env, true, syscall.SIGKILL) })
}

// TestRunSignalsDirect: the same where lo has multicast and the launcher
// starts its processes itself (inside a test namespace that has it).
func TestRunSignalsDirect(t *testing.T) {
	if !netnstest.Run(t, netnstest.LoopbackMulticast) {
		return
	}
	bin := buildBinary(t)
	env := envWithout(forcePrivateNetEnv)
	t.Run("SIGTERM", func(t *testing.T) { signalCase(t, bin, env, false, syscall.SIGTERM) })
	t.Run("SIGINT", func(t *testing.T) { signalCase(t, bin, env, false, syscall.SIGINT) })
	t.Run("SIGKILL", func(t *testing.T) { signalCase(t, bin, env, false, syscall.SIGKILL) })
}
