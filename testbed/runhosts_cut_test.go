package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRunHostsSurvivesALostConnection cuts home off host 3 for 30 s of
// a 40 s run of `run --hosts` (a blackhole route to home in host 3's
// namespace: ssh and the trace streams stall both ways, while the hosts'
// multicast goes on), across host 3's crash and recovery of node 17: the
// run goes on (ssh's keepalives tolerate --host-timeout, 90 s by
// default), host 3 applies its faults on time by itself, home says when
// it lost and heard from host 3 again, gathers its traces (byte-identical
// to host 3's) and fault record, and the run is valid with exit status 0.
func TestRunHostsSurvivesALostConnection(t *testing.T) {
	h, out, text := cutHost3(t, "cut")
	for _, re := range []string{
		`run: host h3: no word from it since \d\d:\d\d:\d\d: unreachable`,
		`run: host h3: heard from again at \d\d:\d\d:\d\d, after [0-9.]+s without a word`,
		`warning: host h3 was unreachable: no word from it between [0-9.]+m?s and [0-9.]+s of the run \([0-9.]+s\); it ran on by itself`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no line matching %s", re)
		}
	}
	if strings.Contains(text, "dropped out") || strings.Contains(text, "host h1: no word") || strings.Contains(text, "host h2: no word") {
		t.Errorf("another host was said unreachable, or host 3 dropped out")
	}
	h.checkRun(t, out, "cut", 20, 17, map[string]time.Duration{"crash": 10 * time.Second, "recover": 20 * time.Second}, "h3")
}

// TestRunHostsLosesAHostBeyondItsTimeout cuts home off host 3 for 30 s
// with --host-timeout 15s: home gives host 3's connection up mid-run,
// the other hosts go on (the run is not stopped), host 3 runs on by
// itself to the end applying its faults, and home, once it reaches
// host 3 again after the end, reads its launcher's result from its run
// directory and gathers its traces and fault record: the run is valid.
func TestRunHostsLosesAHostBeyondItsTimeout(t *testing.T) {
	h, out, text := cutHost3(t, "lost", "--host-timeout", "15s")
	for _, re := range []string{
		`run: host h3: connection given up at [0-9.]+s of the run \(`,
		`run: host h3: reached again; its launcher's result read from its run directory`,
		`warning: host h3 was unreachable: no word from it from [0-9.]+m?s of the run, its connection given up at [0-9.]+s \(--host-timeout\); it ran on by itself`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no line matching %s", re)
		}
	}
	if strings.Contains(text, "dropped out") || strings.Contains(text, "stopped the run") || strings.Contains(text, "stopping every host") {
		t.Errorf("the run was stopped for a host lost beyond --host-timeout")
	}
	h.checkRun(t, out, "lost", 20, 17, map[string]time.Duration{"crash": 10 * time.Second, "recover": 20 * time.Second}, "h3")
}

// cutHost3 runs quickstart for 40 s on three hosts (node 17, on host 3,
// crashes at 10 s and recovers at 20 s) and cuts home off host 3 from
// 3 s to 33 s of the run (a blackhole route to home in host 3's
// namespace: ssh and the trace streams stall both ways, while the
// hosts' multicast goes on). It returns the run's directory and its
// standard error, the run having exited 0.
func cutHost3(t *testing.T, run string, args ...string) (*sshHosts, string, string) {
	h := newSSHHosts(t, false)
	hostsFile := filepath.Join(h.dir, "hosts")
	if err := os.WriteFile(hostsFile, []byte("h1\nh2\nh3 dir=~/runs3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(h.dir, "home-"+run)
	cmd, stdout, stderr := h.runStart(t, 150*time.Second, append([]string{"run", "../configs/quickstart.yaml", "--hosts", hostsFile, "--ssh-config", h.config,
		"--run", run, "--out", out, "--ids-per-process", "5", "--set", "duration=40s",
		"--set", "faults=[{at: 10s, crash: [17]}, {at: 20s, recover: [17]}]"}, args...)...)
	route := func(op string) {
		if b, err := exec.Command("ip", "-n", h.ns[2], "route", op, "blackhole", h.sub+".100/32").CombinedOutput(); err != nil {
			t.Errorf("ip route %s blackhole: %v: %s", op, err, b)
		}
	}
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stderr.String(), " starts at "); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not start:\n%s", stderr.String())
		}
	}
	time.Sleep(3 * time.Second)
	route("add")
	time.Sleep(30 * time.Second)
	route("del")
	err := cmd.Wait()
	t.Logf("run --hosts:\n%s%s", stdout.String(), stderr.String())
	if code := exitCode(err); code != 0 {
		t.Fatalf("exit status %d (%v), want 0", code, err)
	}
	return h, out, stderr.String()
}
