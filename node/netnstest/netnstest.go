// Package netnstest runs a test inside a fresh Linux network namespace, so
// tests that send real traffic (multicast on lo, veth pairs, bridges) see
// only what they build and never touch the host's network.
//
// The test binary re-executes itself inside the namespace with `ip netns
// exec`, running just the one test; the parent relays the child's output
// and result and deletes the namespace in a Cleanup, whether the child
// passed, failed, panicked or timed out.
//
//	func TestMulticast(t *testing.T) {
//		if !netnstest.Run(t, netnstest.LoopbackMulticast) {
//			return // the parent: the child did the work
//		}
//		// in the namespace from here on
//	}
//
// It imports only the standard library; only tests use it.
package netnstest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// LoopbackMulticast is the setup for multicast between sockets of one
// namespace: lo up, with the MULTICAST flag, routing 224.0.0.0/4.
var LoopbackMulticast = []string{
	"ip link set lo up",
	"ip link set lo multicast on",
	"ip route add 224.0.0.0/4 dev lo",
}

// The child learns it is the child, and which test it runs, from these.
const (
	envNamespace = "MANETLAB_NETNS"
	envTest      = "MANETLAB_NETNS_TEST"
)

// SkipMessage is why tests skip without the means to build a namespace.
const SkipMessage = "needs root and iproute2 to build a network namespace; CI runs as root"

var seq atomic.Int64

// Namespace returns the name of the namespace this process runs in when
// it is a child of Run, or "".
func Namespace() string { return os.Getenv(envNamespace) }

// Run makes the current test or benchmark run inside a fresh network
// namespace. In the child, already inside the namespace, it returns true
// and the test goes on. In the parent it creates the namespace, runs each
// setup command inside it (split on spaces, no shell), re-executes the
// test binary there for this test only, relays its output, fails tb if
// the child failed, and returns false: the parent's test must return. It
// skips tb without root or without the ip command.
//
// A benchmark's child output goes to standard output unchanged, so that
// its result lines reach go test -bench and benchstat; the parent
// benchmark then skips itself.
func Run(tb testing.TB, setup []string) bool {
	tb.Helper()
	if os.Getenv(envTest) != "" {
		if os.Getenv(envTest) != tb.Name() {
			tb.Fatalf("netnstest: child for %q runs %q: nested Run, or a test name that matches another", os.Getenv(envTest), tb.Name())
		}
		return true
	}
	if os.Geteuid() != 0 {
		tb.Skip(SkipMessage + " (not root)")
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		tb.Skip(SkipMessage + " (no ip command)")
	}
	removeStale(ip)

	name := fmt.Sprintf("%s%d-%d", prefix(), os.Getpid(), seq.Add(1))
	if out, err := exec.Command(ip, "netns", "add", name).CombinedOutput(); err != nil {
		tb.Skipf("%s (ip netns add %s: %v: %s)", SkipMessage, name, err, bytes.TrimSpace(out))
	}
	tb.Cleanup(func() {
		if out, err := exec.Command(ip, "netns", "del", name).CombinedOutput(); err != nil {
			tb.Errorf("netnstest: ip netns del %s: %v: %s", name, err, bytes.TrimSpace(out))
		}
	})
	for _, cmd := range setup {
		args := append([]string{"netns", "exec", name}, strings.Fields(cmd)...)
		if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
			tb.Fatalf("netnstest: in %s: %s: %v: %s", name, cmd, err, bytes.TrimSpace(out))
		}
	}

	ctx := context.Background()
	if d, ok := deadline(tb); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
	}
	args := append([]string{"netns", "exec", name, os.Args[0]}, childFlags(tb)...)
	cmd := exec.CommandContext(ctx, ip, args...)
	cmd.Env = append(os.Environ(), envNamespace+"="+name, envTest+"="+tb.Name())
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	_, bench := tb.(*testing.B)
	if bench {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	} else {
		cmd.Stdout, cmd.Stderr = &out, &out
	}
	err = cmd.Run()
	if !bench {
		// Quoted line by line so that go test -json does not read the
		// child's "--- FAIL" lines as results of the parent's tests.
		tb.Logf("in namespace %s:\n%s", name, quote(out.Bytes()))
	}
	if err != nil {
		tb.Fatalf("netnstest: %s in namespace %s: %v", tb.Name(), name, err)
	}
	if b, ok := tb.(*testing.B); ok {
		b.Skip("ran in a network namespace; results above")
	}
	return false
}

// prefix names this binary's namespaces: "manetlab-link-" for link.test.
func prefix() string {
	bin := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	bin = regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(bin, "")
	if len(bin) > 12 {
		bin = bin[:12]
	}
	return "manetlab-" + bin + "-"
}

var staleName = regexp.MustCompile(`^manetlab-[a-zA-Z0-9]*-([0-9]+)-[0-9]+$`)

// removeStale deletes namespaces that an earlier test binary, killed
// before its Cleanup ran, left behind: ours by name, their process gone.
func removeStale(ip string) {
	entries, err := os.ReadDir("/run/netns")
	if err != nil {
		return
	}
	for _, e := range entries {
		m := staleName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue // its test binary still runs
		}
		exec.Command(ip, "netns", "del", e.Name()).Run()
	}
}

// deadline is when the child must be stopped: a little before the test
// binary's own timeout, so that the parent can still report and clean up.
func deadline(tb testing.TB) (time.Time, bool) {
	t, ok := tb.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}, false
	}
	d, ok := t.Deadline()
	if !ok {
		return d, false
	}
	return d.Add(-time.Until(d) / 20), true
}

// childFlags selects this test, and only it, in the child, and passes on
// the flags that shape how it runs.
func childFlags(tb testing.TB) []string {
	var pattern []string
	for _, part := range strings.Split(tb.Name(), "/") {
		pattern = append(pattern, "^"+regexp.QuoteMeta(part)+"$")
	}
	sel := strings.Join(pattern, "/")
	var args []string
	if _, ok := tb.(*testing.B); ok {
		args = []string{"-test.run=^$", "-test.bench=" + sel}
		for _, f := range []string{"test.benchtime", "test.benchmem", "test.cpu", "test.count"} {
			args = appendFlag(args, f)
		}
	} else {
		args = []string{"-test.run=" + sel, "-test.v", "-test.count=1"}
		for _, f := range []string{"test.timeout", "test.short"} {
			args = appendFlag(args, f)
		}
	}
	return args
}

func appendFlag(args []string, name string) []string {
	if f := flag.Lookup(name); f != nil {
		args = append(args, "-"+name+"="+f.Value.String())
	}
	return args
}

func quote(b []byte) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return "| " + strings.Join(lines, "\n| ")
}
